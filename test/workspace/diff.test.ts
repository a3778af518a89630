import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { measure, parseChanges, projectRelative, splitChanges, undeclaredPaths } from '../../src/workspace/diff.js';
import { snapshotCommit } from '../../src/workspace/snapshot.js';
import { openWorktree } from '../../src/workspace/worktrees.js';
import { gitIn, initRepo, supported, tempDirs, tracedGit, writeFiles } from './repo.js';
import { execFileSync } from 'node:child_process';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const lines = (count: number, tag = '') => Array.from({ length: count }, (_, i) => `line ${i + 1}${tag}`).join('\n') + '\n';

describe('measure', () => {
  it('should tell what a worktree step changed, file by file, and write the patch', async () => {
    const dir = initRepo(dirs.make(), {
      'app/edit.txt': lines(5),
      'app/old-name.txt': lines(30),
      'app/gone.txt': 'bye\n',
      'app/logo.bin': Buffer.from([0, 1, 2, 3]),
      'app/run.sh': 'echo\n',
    });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const workspace = await openWorktree(repo, { planId: 'p', stepId: 's', attempt: 1, include: [] });
    const at = workspace.dir;
    writeFileSync(join(at, 'edit.txt'), lines(5).replace('line 2\n', 'line two\nline 2.5\n'));
    renameSync(join(at, 'old-name.txt'), join(at, 'new-name.txt'));
    rmSync(join(at, 'gone.txt'));
    writeFileSync(join(at, 'logo.bin'), Buffer.from([0, 9, 9]));
    chmodSync(join(at, 'run.sh'), 0o755);
    writeFiles(at, { 'src/added.ts': 'export {};\n' });
    const patchPath = join(dirs.make(), 'plans', 'p.s.patch');

    const diff = await measure(repo, { planId: 'p', stepId: 's', attempt: 1, workspace, declared: [], include: [], patchPath });

    expect(diff).toEqual({
      files: [
        { path: 'edit.txt', status: 'modified', added: 2, removed: 1 },
        { path: 'gone.txt', status: 'deleted', added: 0, removed: 1 },
        { path: 'logo.bin', status: 'modified', added: null, removed: null },
        { path: 'new-name.txt', status: 'renamed', from: 'old-name.txt', added: 0, removed: 0 },
        { path: 'run.sh', status: 'modified', added: 0, removed: 0 },
        { path: 'src/added.ts', status: 'added', added: 1, removed: 0 },
      ],
      undeclared: [],
      patch_path: patchPath,
      base: workspace.base,
      result: expect.stringMatching(/^[0-9a-f]{40}$/),
      where: 'worktree',
    });
    const patch = readFileSync(patchPath, 'utf8');
    expect(patch).toContain('+++ b/app/src/added.ts');
    expect(patch).toContain('rename to app/new-name.txt');
    expect(patch).toContain('GIT binary patch');
  });

  it('should measure the shared project tree against the base, flag undeclared files, and survive an unwritable patch path', async () => {
    const dir = initRepo(dirs.make(), { 'app/src/a.ts': 'a\n', 'lib/b.ts': 'b\n' });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const base = await snapshotCommit(dir, { exclude: [] });
    writeFiles(dir, { 'app/src/a.ts': 'a2\n', 'app/README.md': 'new\n', 'lib/b.ts': 'b2\n' });
    const blocker = join(dirs.make(), 'file');
    writeFileSync(blocker, '');

    const diff = await measure(repo, {
      planId: 'p',
      attempt: 1,
      stepId: 's',
      workspace: { kind: 'shared', dir: join(dir, 'app'), base },
      declared: ['src/'],
      include: [],
      patchPath: join(blocker, 'cannot', 'be.patch'),
    });

    expect(diff.files.map((file) => file.path)).toEqual(['README.md', 'src/a.ts', '../lib/b.ts']);
    expect(diff.undeclared).toEqual(['README.md', '../lib/b.ts']);
    expect(diff).toMatchObject({ patch_path: null, where: 'shared', base });
  });

  it('should measure a step whose start and end are one snapshot as no change, without asking git', async () => {
    const dir = initRepo(dirs.make(), { 'a.ts': 'a\n' });
    const repo = await supported(dir, dirs.make());
    // No such commit: git would fail to diff it, so an empty answer means git was not asked.
    const same = 'f'.repeat(40);
    const patchPath = join(dirs.make(), 'plans', 'p.s.patch');

    const diff = await measure(repo, { planId: 'p', stepId: 's', attempt: 1, workspace: { kind: 'shared', dir, base: same }, result: same, declared: ['a.ts'], include: [], patchPath });

    expect(diff).toEqual({ files: [], undeclared: [], patch_path: patchPath, base: same, result: same, where: 'shared', landed: { at: expect.any(String), patch_path: patchPath } });
    expect(readFileSync(patchPath, 'utf8')).toBe('');
  });

  it('should measure a step whose start and end are two snapshots of one tree (a slot on its base) as no change, without asking git', async () => {
    const dir = initRepo(dirs.make(), { 'a.ts': 'a\n' });
    const repo = await supported(dir, dirs.make());
    const base = await snapshotCommit(dir, { exclude: [], index: join(dirs.make(), 'index') });
    const root = join(dirs.make(), 'slot');
    gitIn(dir, 'worktree', 'add', '-q', '--detach', root, base);
    const workspace = { kind: 'worktree' as const, root, dir: root, base };
    const patchPath = join(dirs.make(), 'plans', 'p.s.patch');

    const { result: diff, verbs } = await tracedGit(dirs.make(), () => measure(repo, { planId: 'p', stepId: 's', attempt: 1, workspace, declared: [], include: [], patchPath }));

    expect(diff.result).not.toBe(base);
    expect(diff.files).toEqual([]);
    expect(verbs).not.toContain('diff-tree');
    expect(readFileSync(patchPath, 'utf8')).toBe('');
    // Once the slot's tree differs, git is asked.
    writeFiles(root, { 'b.ts': 'b\n' });
    const changed = await measure(repo, { planId: 'p', stepId: 's', attempt: 2, workspace, declared: [], include: [], patchPath });
    expect(changed.files.map((file) => file.path)).toEqual(['b.ts']);
  });

  it("should reject when the step's worktree is gone", async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const workspace = { kind: 'worktree' as const, root: join(dir, 'nowhere'), dir: join(dir, 'nowhere'), base: 'HEAD' };
    await expect(measure(repo, { planId: 'p', stepId: 's', attempt: 1, workspace, declared: [], include: [], patchPath: join(dir, 'x') })).rejects.toThrow(
      /worktree .*nowhere is gone/,
    );
  });
});

describe('splitChanges', () => {
  it("should split git's records from the patch, which is byte for byte what diff-tree -p writes alone, odd names included", () => {
    const dir = initRepo(dirs.make(), { 'old name.txt': lines(20), 'run.sh': 'echo\n', 'gone.txt': 'bye\n' });
    renameSync(join(dir, 'old name.txt'), join(dir, 'new\tname "é".txt'));
    chmodSync(join(dir, 'run.sh'), 0o755);
    rmSync(join(dir, 'gone.txt'));
    writeFiles(dir, { 'logo.bin': Buffer.from([0, 0, 1, 0, 0]), 'ä/b.ts': 'export {};\n' });
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '-m', 'change');
    const run = (...args: string[]) => execFileSync('git', ['diff-tree', ...args, 'HEAD~1', 'HEAD'], { cwd: dir });

    const { listed, patch } = splitChanges(run('-r', '-M', '-z', '--raw', '--numstat', '-p', '--binary', '--no-ext-diff', '--no-color'));

    expect(patch.equals(run('-p', '--binary', '-M', '--no-ext-diff', '--no-color'))).toBe(true);
    expect(parseChanges(listed).map((c) => [c.status, c.path, c.added])).toEqual([
      ['deleted', 'gone.txt', 0],
      ['added', 'logo.bin', null],
      ['renamed', 'new\tname "é".txt', 0],
      ['modified', 'run.sh', 0],
      ['added', 'ä/b.ts', 1],
    ]);
  });

  it('should read an empty answer (no change) as no records and an empty patch', () => {
    expect(splitChanges(Buffer.alloc(0))).toEqual({ listed: '', patch: Buffer.alloc(0) });
  });
});

describe('undeclaredPaths', () => {
  const change = (path: string, from?: string) => ({ path, status: from ? ('renamed' as const) : ('modified' as const), ...(from ? { from } : {}), added: 1, removed: 0 });

  it('should accept paths, folders and globs, and flag both ends of a rename', () => {
    const files = [change('src/a.ts'), change('src/deep/b.ts'), change('docs/x.md'), change('test/a.test.ts'), change('README.md'), change('src/c.ts', 'lib/c.ts')];
    expect(undeclaredPaths(files, ['./src/*.ts', 'docs', 'test/**/*.test.ts', 'README.md'])).toEqual(['src/deep/b.ts', 'lib/c.ts']);
    expect(undeclaredPaths(files, ['src/**'])).toEqual(['docs/x.md', 'test/a.test.ts', 'README.md', 'lib/c.ts']);
  });

  it('should flag nothing when the step declared nothing', () => {
    expect(undeclaredPaths([change('anything.ts')], [])).toEqual([]);
  });

  it('should take a dot in a declared path literally', () => {
    expect(undeclaredPaths([change('aXts')], ['a.ts'])).toEqual(['aXts']);
  });
});

describe('parseChanges', () => {
  it('should read a path with spaces, tabs and newlines as it is', () => {
    const output = [':100644 100644 a b M', 'we ird\tname\n.txt', '1\t2\twe ird\tname\n.txt', ''].join('\0');
    expect(parseChanges(output)).toEqual([{ path: 'we ird\tname\n.txt', status: 'modified', added: 1, removed: 2 }]);
  });
});

describe('projectRelative', () => {
  it('should strip the prefix, and climb out of it for a path outside', () => {
    expect(projectRelative('app/src/a.ts', 'app/')).toBe('src/a.ts');
    expect(projectRelative('lib/b.ts', 'app/web/')).toBe('../../lib/b.ts');
    expect(projectRelative('a.ts', '')).toBe('a.ts');
  });
});

