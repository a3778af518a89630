import { existsSync, lstatSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceSetupError } from '../../src/workspace/setup.js';
import { diskBytes, listWorktrees, openWorktree, removePlanWorktrees, removeWorktree, worktreeRoot } from '../../src/workspace/worktrees.js';
import { gitIn, initRepo, read, supported, tempDirs, userState, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const step = { planId: 'plan_1', stepId: 'code', attempt: 1, include: [] as string[] };

describe('openWorktree', () => {
  it("should start from the user's tree as it is, uncommitted and untracked files included, and leave that tree alone", async () => {
    const dir = initRepo(dirs.make(), { 'app/a.txt': 'a\n' });
    writeFiles(dir, { 'app/a.txt': 'edited\n', 'app/new.txt': 'new\n' });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const before = userState(dir);

    const workspace = await openWorktree(repo, step);

    const root = worktreeRoot(repo, 'plan_1', 'code', 1);
    expect(workspace).toEqual({ kind: 'worktree', root, dir: join(root, 'app/'), base: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(root.startsWith(`${repo.worktrees}/plan_1/`)).toBe(true);
    expect(read(workspace.dir, 'a.txt')).toBe('edited\n');
    expect(read(workspace.dir, 'new.txt')).toBe('new\n');
    expect(gitIn(root, 'rev-parse', 'HEAD').trim()).toBe(workspace.base);
    expect(gitIn(root, 'status', '--porcelain')).toBe('');
    expect(userState(dir)).toEqual(before);
  });

  it('should give the same worktree again, with the work done in it, when asked twice', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    writeFiles(first.dir, { 'work.txt': 'in progress\n' });
    writeFiles(dir, { 'README.md': 'user moved on\n' });

    expect(await openWorktree(repo, step)).toEqual(first);
    expect(read(first.dir, 'work.txt')).toBe('in progress\n');
  });

  it('should make anew a worktree whose opening was cut short', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    unlinkSync(`${first.root}.base`); // as if the process died before the setup finished
    writeFiles(first.dir, { 'half.txt': 'x\n' });
    writeFiles(dir, { 'README.md': 'later\n' });

    const again = await openWorktree(repo, step);
    expect(again.base).not.toBe(first.base);
    expect(existsSync(join(again.dir, 'half.txt'))).toBe(false);
    expect(read(again.dir, 'README.md')).toBe('later\n');
  });

  it('should copy a file of the include list and link a folder, which git leaves out', async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': '.env\nnode_modules/\n' });
    writeFiles(dir, { '.env': 'KEY=1\n', 'node_modules/lib/index.js': 'module.exports = 1;\n' });
    const repo = await supported(dir, dirs.make());

    const workspace = await openWorktree(repo, { ...step, include: ['.env', 'node_modules', 'node_modules/lib', 'missing.txt'] });

    expect(read(workspace.dir, '.env')).toBe('KEY=1\n');
    expect(lstatSync(join(workspace.dir, '.env')).isSymbolicLink()).toBe(false);
    expect(readlinkSync(join(workspace.dir, 'node_modules'))).toBe(join(dir, 'node_modules'));
    expect(existsSync(join(workspace.dir, 'missing.txt'))).toBe(false);
    expect(read(dir, 'node_modules/lib/index.js')).toBe('module.exports = 1;\n');
  });

  it('should run the setup command in the project folder of the worktree', async () => {
    const dir = initRepo(dirs.make(), { 'app/package.json': '{}\n' });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const workspace = await openWorktree(repo, { ...step, setup: 'ls package.json > setup.log && echo "$ORCA_STEP_ID" >> setup.log' });
    expect(read(workspace.dir, 'setup.log')).toBe('package.json\ncode\n');
    // What the setup wrote is part of the base, not a change of the step.
    expect(gitIn(workspace.root!, 'rev-parse', 'HEAD').trim()).toBe(workspace.base);
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe('');
  });

  it('should reject with the output of a failing setup command, and make the worktree anew next time', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const failure = await openWorktree(repo, { ...step, setup: 'echo "npm ERR! missing lockfile" >&2; exit 3' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkspaceSetupError);
    expect((failure as Error).message).toMatch(/^The worktree setup command "echo .*" failed \(exit 3\) after [\d.]+ s:\nnpm ERR! missing lockfile$/);

    const again = await openWorktree(repo, { ...step, setup: 'true' });
    expect(existsSync(join(again.dir, 'README.md'))).toBe(true);
  });
});

describe('removeWorktree', () => {
  it("should remove the worktree and git's record of it, leaving the folder it linked", async () => {
    const dir = initRepo(dirs.make());
    writeFiles(dir, { 'node_modules/keep.js': 'kept\n' });
    const repo = await supported(dir, dirs.make());
    const { root } = await openWorktree(repo, { ...step, include: ['node_modules'] });

    await removeWorktree(repo, root!);

    expect(existsSync(root!)).toBe(false);
    expect(gitIn(dir, 'worktree', 'list')).not.toContain(root);
    expect(read(dir, 'node_modules/keep.js')).toBe('kept\n');
  });

  it('should accept a worktree already deleted by hand, and one already removed', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const { root } = await openWorktree(repo, step);
    rmSync(root!, { recursive: true });

    await removeWorktree(repo, root!);
    await removeWorktree(repo, root!);
    expect(gitIn(dir, 'worktree', 'list', '--porcelain')).not.toContain(root);
  });
});

describe('listWorktrees', () => {
  it("should list Orca's worktrees with their plan, step, attempt and size, and not the user's own", async () => {
    const dir = initRepo(dirs.make());
    gitIn(dir, 'worktree', 'add', '-q', '--detach', join(dirs.make(), 'mine'));
    const repo = await supported(dir, dirs.make());
    const one = await openWorktree(repo, { ...step, stepId: 'step.v2' });
    await openWorktree(repo, { ...step, planId: 'plan_2', attempt: 3 });

    const listed = await listWorktrees(repo);

    expect(listed).toEqual([
      { planId: 'plan_1', stepId: 'step.v2', attempt: 1, path: one.root, dir: one.dir, bytes: await diskBytes(one.root!) },
      { planId: 'plan_2', stepId: 'code', attempt: 3, path: worktreeRoot(repo, 'plan_2', 'code', 3), dir: join(worktreeRoot(repo, 'plan_2', 'code', 3), repo.prefix), bytes: expect.any(Number) },
    ]);
    expect(listed[0]!.bytes).toBeGreaterThan('hello\n'.length);
  });

  it('should remove every worktree of one plan and no other', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    await openWorktree(repo, step);
    await openWorktree(repo, { ...step, attempt: 2 });
    const other = await openWorktree(repo, { ...step, planId: 'plan_2' });

    await removePlanWorktrees(repo, 'plan_1');

    expect((await listWorktrees(repo)).map((worktree) => worktree.path)).toEqual([other.root]);
    expect(existsSync(join(repo.worktrees, 'plan_1'))).toBe(false);
  });
});

describe('diskBytes', () => {
  it('should count a symlink as a link, not what it points to', async () => {
    const dir = dirs.make();
    writeFiles(dir, { 'big/data.bin': Buffer.alloc(10_000), 'tree/a.txt': '12345' });
    symlinkSync(join(dir, 'big'), join(dir, 'tree/link'));
    writeFileSync(join(dir, 'tree/b.txt'), '678');
    expect(await diskBytes(join(dir, 'tree'))).toBe(5 + 3 + lstatSync(join(dir, 'tree/link')).size);
  });
});
