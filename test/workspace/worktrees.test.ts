import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepWorkspace } from '../../src/machines/types.js';
import { WorkspaceSetupError } from '../../src/workspace/setup.js';
import {
  diskBytes,
  isStaleClaim,
  listWorktrees,
  mergedFile,
  openWorktree,
  prepareSlots,
  recoverSlots,
  releasePlanSlots,
  releaseSlot,
  resetFreeSlot,
  SLOT_LOCK_REASON,
  slotRoot,
  trimSlots,
} from '../../src/workspace/worktrees.js';
import { gitIn, initRepo, read, supported, tempDirs, userState, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';
const OTHER = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Z';
const step = { planId: PLAN, stepId: 'code', attempt: 1, include: [] as string[] };
/** What OpenCode 1.18 writes as .opencode/.gitignore: its install, and itself. */
const OPENCODE_GITIGNORE = 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore';
const claimOf = (root: string) => JSON.parse(readFileSync(`${root}.claim.json`, 'utf8'));

describe('openWorktree', () => {
  it("should take a slot reset to the user's tree as it is, uncommitted and untracked files included, and leave that tree alone", async () => {
    const dir = initRepo(dirs.make(), { 'app/a.txt': 'a\n' });
    writeFiles(dir, { 'app/a.txt': 'edited\n', 'app/new.txt': 'new\n' });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const before = userState(dir);

    const workspace = await openWorktree(repo, step);

    const root = slotRoot(repo, 1);
    expect(workspace).toEqual({ kind: 'worktree', root, dir: join(root, 'app/'), base: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(root).toBe(join(repo.worktrees, 'slots', '1'));
    expect(read(workspace.dir, 'a.txt')).toBe('edited\n');
    expect(read(workspace.dir, 'new.txt')).toBe('new\n');
    expect(gitIn(root, 'rev-parse', 'HEAD').trim()).toBe(workspace.base);
    expect(gitIn(root, 'status', '--porcelain')).toBe('');
    expect(claimOf(root)).toEqual({ plan_id: PLAN, step_id: 'code', attempt: 1, base: workspace.base });
    expect(userState(dir)).toEqual(before);
  });

  it('should give the same slot again, with the work done in it, when the same attempt asks twice (a restart)', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    writeFiles(first.dir, { 'work.txt': 'in progress\n' });
    writeFiles(dir, { 'README.md': 'user moved on\n' });

    expect(await openWorktree(repo, step)).toEqual(first);
    expect(read(first.dir, 'work.txt')).toBe('in progress\n');
  });

  it('should reset anew a slot whose reset was cut short', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    // As if the process died while resetting: the claim has no base yet.
    writeFileSync(`${first.root}.claim.json`, JSON.stringify({ plan_id: PLAN, step_id: 'code', attempt: 1, base: null }));
    writeFiles(first.dir, { 'half.txt': 'x\n' });
    writeFiles(dir, { 'README.md': 'later\n' });

    const again = await openWorktree(repo, step);
    expect(again.root).toBe(first.root);
    expect(again.base).not.toBe(first.base);
    expect(existsSync(join(again.dir, 'half.txt'))).toBe(false);
    expect(read(again.dir, 'README.md')).toBe('later\n');
  });

  it("should hand a slot given back to the next step, reset to that step's start: only the files that differ are written, what .gitignore hides stays", async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': 'build/\n', 'same.txt': 'same\n', 'changed.txt': 'v1\n' });
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    writeFiles(first.dir, { 'changed.txt': 'the step wrote this\n', 'added.txt': 'new\n', 'build/out.js': 'built\n' });
    const sameBefore = statSync(join(first.dir, 'same.txt'));
    await releaseSlot(repo, first.root!, PLAN, 'code');
    writeFiles(dir, { 'changed.txt': 'v2\n' });

    const next = await openWorktree(repo, { ...step, stepId: 'test' });

    expect(next.root).toBe(first.root);
    expect(read(next.dir, 'changed.txt')).toBe('v2\n');
    expect(existsSync(join(next.dir, 'added.txt'))).toBe(false);
    expect(read(next.dir, 'build/out.js')).toBe('built\n');
    const sameAfter = statSync(join(next.dir, 'same.txt'));
    expect([sameAfter.ino, sameAfter.mtimeMs]).toEqual([sameBefore.ino, sameBefore.mtimeMs]);
    expect(gitIn(next.root!, 'status', '--porcelain')).toBe('');
    expect(claimOf(next.root!)).toMatchObject({ plan_id: PLAN, step_id: 'test', attempt: 1 });
  });

  it('should reset the slot the step holds for its next attempt (Run again on top)', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    writeFiles(first.dir, { 'attempt1.txt': 'x\n' });

    const second = await openWorktree(repo, { ...step, attempt: 2 });

    expect(second.root).toBe(first.root);
    expect(existsSync(join(second.dir, 'attempt1.txt'))).toBe(false);
    expect(claimOf(second.root!)).toMatchObject({ attempt: 2, base: second.base });
  });

  it('should give steps running at once a slot each, and never take a slot another process claimed', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const [one, two] = await Promise.all([openWorktree(repo, step), openWorktree(repo, { ...step, stepId: 'docs' })]);
    expect(new Set([one.root, two.root])).toEqual(new Set([slotRoot(repo, 1), slotRoot(repo, 2)]));

    await releaseSlot(repo, one.root!, PLAN, one.root === slotRoot(repo, 1) ? 'code' : 'docs');
    // Another process takes the free slot first.
    writeFileSync(`${slotRoot(repo, 1)}.claim.json`, JSON.stringify({ plan_id: OTHER, step_id: 'x', attempt: 1, base: null }));
    const three = await openWorktree(repo, { ...step, stepId: 'third' });
    expect(three.root).toBe(slotRoot(repo, 3));
  });

  it('should copy a file of the include list and link a folder, which git leaves out, and place them again on reset', async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': '.env\nnode_modules/\n' });
    writeFiles(dir, { '.env': 'KEY=1\n', 'node_modules/lib/index.js': 'module.exports = 1;\n' });
    const repo = await supported(dir, dirs.make());
    const include = ['.env', 'node_modules', 'node_modules/lib', 'missing.txt'];

    const workspace = await openWorktree(repo, { ...step, include });

    expect(read(workspace.dir, '.env')).toBe('KEY=1\n');
    expect(lstatSync(join(workspace.dir, '.env')).isSymbolicLink()).toBe(false);
    expect(readlinkSync(join(workspace.dir, 'node_modules'))).toBe(join(dir, 'node_modules'));
    expect(existsSync(join(workspace.dir, 'missing.txt'))).toBe(false);
    expect(read(dir, 'node_modules/lib/index.js')).toBe('module.exports = 1;\n');

    writeFiles(dir, { '.env': 'KEY=2\n' });
    await releaseSlot(repo, workspace.root!, PLAN, 'code');
    const next = await openWorktree(repo, { ...step, stepId: 'next', include });
    expect(read(next.dir, '.env')).toBe('KEY=2\n');
  });

  it("should place OpenCode's install of its .opencode folder, which its .gitignore hides, in a slot that has that folder: linked node_modules, copied lock; in the project folder of a monorepo too", async () => {
    // OpenCode writes .opencode/.gitignore hiding its install and itself (never committed); the user's orca.jsonc is untracked and carried.
    const dir = initRepo(dirs.make(), { 'app/a.txt': 'a\n' });
    writeFiles(dir, {
      'app/.opencode/.gitignore': OPENCODE_GITIGNORE,
      'app/.opencode/orca.jsonc': '{}\n',
      'app/.opencode/package.json': '{"dependencies":{"@opencode-ai/plugin":"1.0.0"}}\n',
      'app/.opencode/package-lock.json': '{"lockfileVersion":3}\n',
      'app/.opencode/node_modules/@opencode-ai/plugin/index.js': 'export {};\n',
    });
    const repo = await supported(join(dir, 'app'), dirs.make());

    const workspace = await openWorktree(repo, step);

    const config = join(workspace.dir, '.opencode');
    expect(read(config, 'orca.jsonc')).toBe('{}\n');
    expect(readlinkSync(join(config, 'node_modules'))).toBe(join(dir, 'app', '.opencode', 'node_modules'));
    expect(read(config, 'package.json')).toBe('{"dependencies":{"@opencode-ai/plugin":"1.0.0"}}\n');
    expect(read(config, 'package-lock.json')).toBe('{"lockfileVersion":3}\n');
    expect(existsSync(join(config, 'bun.lock'))).toBe(false); // the user has none
    expect(read(config, '.gitignore')).toBe(OPENCODE_GITIGNORE);
    // Hidden from git in the slot as in the project: not a change of the step.
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe('');

    // Placed again on reset, as the user's install is now.
    writeFiles(dir, { 'app/.opencode/package-lock.json': '{"lockfileVersion":3,"packages":{}}\n' });
    await releaseSlot(repo, workspace.root!, PLAN, 'code');
    const next = await openWorktree(repo, { ...step, stepId: 'next' });
    expect(read(join(next.dir, '.opencode'), 'package-lock.json')).toBe('{"lockfileVersion":3,"packages":{}}\n');
  });

  it('should leave what git carries of the .opencode folder to git, and place nothing in a slot without that folder', async () => {
    // A package.json the user commits (their own tools' dependencies) is the slot's: a step may change it.
    const committed = initRepo(dirs.make(), { '.opencode/package.json': '{"committed":true}\n', '.gitignore': 'node_modules\n' });
    writeFiles(committed, { '.opencode/package.json': '{"edited":true}\n', '.opencode/node_modules/x/index.js': '1\n' });
    const repo = await supported(committed, dirs.make());
    const workspace = await openWorktree(repo, step);
    expect(read(join(workspace.dir, '.opencode'), 'package.json')).toBe('{"edited":true}\n'); // the user's tree, as git carries it
    expect(lstatSync(join(workspace.dir, '.opencode', 'package.json')).isSymbolicLink()).toBe(false);
    expect(readlinkSync(join(workspace.dir, '.opencode', 'node_modules'))).toBe(join(committed, '.opencode', 'node_modules'));
    writeFiles(workspace.dir, { '.opencode/package.json': '{"step":true}\n' });
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe(' M .opencode/package.json\n');

    // Only ignored files under .opencode: git carries no .opencode folder, OpenCode installs nothing there.
    const hidden = initRepo(dirs.make(), { '.gitignore': '.opencode/node_modules\n.opencode/package.json\n' });
    writeFiles(hidden, { '.opencode/package.json': '{}\n', '.opencode/node_modules/x/index.js': '1\n' });
    const other = await supported(hidden, dirs.make());
    const bare = await openWorktree(other, step);
    expect(existsSync(join(bare.dir, '.opencode'))).toBe(false);
  });

  it("should give a slot the project's OpenCode config git ignores: a .opencode folder git carries nothing of (but Orca's plans), and opencode.json files up to the top", async () => {
    // A monorepo package whose whole .opencode is ignored, and config files the user keeps out of git.
    const dir = initRepo(dirs.make(), { 'app/a.txt': 'a\n', '.gitignore': '.opencode/\nopencode.json\nopencode.jsonc\n' });
    writeFiles(dir, {
      'opencode.json': '{"top":true}\n',
      'app/opencode.jsonc': '{"app":true}\n',
      'app/.opencode/opencode.json': '{"provider":{}}\n',
      'app/.opencode/orca.jsonc': '{"review":{"enabled":false}}\n',
      'app/.opencode/agent/helper.md': '# helper\n',
      'app/.opencode/node_modules/x/index.js': '1\n',
      'app/.opencode/plans/plan_x.json': '{}\n',
      'app/.opencode/agenda/items.json': '{}\n',
    });
    const repo = await supported(join(dir, 'app'), dirs.make());

    const workspace = await openWorktree(repo, step);

    const config = join(workspace.dir, '.opencode');
    expect(read(config, 'opencode.json')).toBe('{"provider":{}}\n');
    expect(read(config, 'orca.jsonc')).toBe('{"review":{"enabled":false}}\n');
    expect(lstatSync(join(config, 'orca.jsonc')).isSymbolicLink()).toBe(false);
    expect(readlinkSync(join(config, 'agent'))).toBe(join(dir, 'app', '.opencode', 'agent'));
    expect(readlinkSync(join(config, 'node_modules'))).toBe(join(dir, 'app', '.opencode', 'node_modules'));
    // Orca's own state stays the project's.
    expect(existsSync(join(config, 'plans'))).toBe(false);
    expect(existsSync(join(config, 'agenda'))).toBe(false);
    expect(read(workspace.dir, 'opencode.jsonc')).toBe('{"app":true}\n');
    expect(read(workspace.root!, 'opencode.json')).toBe('{"top":true}\n');
    // Hidden from git in the slot as in the project: not a change of the step.
    expect(gitIn(workspace.root!, 'status', '--porcelain', '--untracked-files=all')).toBe('');

    // Placed again on reset, as the user's config is then.
    writeFiles(dir, { 'app/.opencode/orca.jsonc': '{}\n', 'app/opencode.jsonc': '{"app":2}\n' });
    await releaseSlot(repo, workspace.root!, PLAN, 'code');
    const next = await openWorktree(repo, { ...step, stepId: 'next' });
    expect(read(join(next.dir, '.opencode'), 'orca.jsonc')).toBe('{}\n');
    expect(read(next.dir, 'opencode.jsonc')).toBe('{"app":2}\n');
  });

  it('should leave a folder of .opencode that git ignores but carries files of (added with -f) as git made it in the slot', async () => {
    // git does not call a folder holding tracked files ignored: replaced by a link, it would be a change of the step (its files deleted).
    const dir = initRepo(dirs.make(), { '.gitignore': '.opencode/agent/\n', 'README.md': 'hello\n' });
    writeFiles(dir, { '.opencode/agent/shared.md': '# committed anyway\n', '.opencode/agent/mine.md': '# ignored\n' });
    gitIn(dir, 'add', '-f', '.opencode/agent/shared.md');
    gitIn(dir, 'commit', '-q', '-m', 'force-add one agent');
    const repo = await supported(dir, dirs.make());

    const workspace = await openWorktree(repo, step);

    const agents = join(workspace.dir, '.opencode', 'agent');
    expect(lstatSync(agents).isSymbolicLink()).toBe(false);
    expect(read(agents, 'shared.md')).toBe('# committed anyway\n');
    // What git hides beside it is placed as any hidden config is.
    expect(read(agents, 'mine.md')).toBe('# ignored\n');
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe('');
  });

  it('should place what git hides deeper in .opencode (an agent of yours in a folder git carries, a folder ignored as a folder: copied), never a plan', async () => {
    const dir = initRepo(dirs.make(), {
      '.gitignore': '*.local.md\nprivate/\n.opencode/plans/\n',
      '.opencode/agent/team.md': '# team\n',
      '.opencode/command/deploy.md': '# deploy\n',
    });
    writeFiles(dir, {
      '.opencode/agent/me.local.md': '# mine\n',
      '.opencode/command/private/secret.md': '# secret\n',
      '.opencode/plans/plan_x.json': '{}\n',
    });
    const repo = await supported(dir, dirs.make());

    const workspace = await openWorktree(repo, step);

    const config = join(workspace.dir, '.opencode');
    expect(read(join(config, 'agent'), 'team.md')).toBe('# team\n');
    expect(read(join(config, 'agent'), 'me.local.md')).toBe('# mine\n');
    expect(lstatSync(join(config, 'agent', 'me.local.md')).isSymbolicLink()).toBe(false);
    // `private/` ignores folders only: a link there would show as the step's new file, so it is a copy.
    expect(lstatSync(join(config, 'command', 'private')).isSymbolicLink()).toBe(false);
    expect(read(join(config, 'command', 'private'), 'secret.md')).toBe('# secret\n');
    expect(existsSync(join(config, 'plans'))).toBe(false);
    expect(gitIn(workspace.root!, 'status', '--porcelain', '--untracked-files=all')).toBe('');

    // Placed again at the next reset, as the user's file is then.
    writeFiles(dir, { '.opencode/agent/me.local.md': '# mine, edited\n' });
    await releaseSlot(repo, workspace.root!, PLAN, 'code');
    const next = await openWorktree(repo, { ...step, stepId: 'next' });
    expect(read(join(next.dir, '.opencode', 'agent'), 'me.local.md')).toBe('# mine, edited\n');
  });

  it('should open a slot in a project whose .opencode is a link git carries (a shared config folder), its plans beyond the link left out', async () => {
    const shared = dirs.make();
    writeFiles(shared, { 'orca.jsonc': '{}\n', 'plans/plan_x.json': '{}\n' });
    const dir = initRepo(dirs.make());
    symlinkSync(shared, join(dir, '.opencode'));
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '-m', 'link the config folder');
    writeFiles(dir, { 'README.md': 'edited\n' });
    const repo = await supported(dir, dirs.make());

    const workspace = await openWorktree(repo, step);

    expect(readlinkSync(join(workspace.dir, '.opencode'))).toBe(shared); // the link, as git carries it
    expect(read(workspace.dir, 'README.md')).toBe('edited\n');
    expect(gitIn(workspace.root!, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('.opencode\nREADME.md\n');
  });

  it('should run the setup command once, in the project folder of a new slot, not when the slot is reused', async () => {
    const dir = initRepo(dirs.make(), { 'app/package.json': '{}\n', '.gitignore': 'setup.log\n' });
    const repo = await supported(join(dir, 'app'), dirs.make());
    const setup = 'ls package.json >> setup.log && echo "$ORCA_STEP_ID" >> setup.log';
    const workspace = await openWorktree(repo, { ...step, setup });
    expect(read(workspace.dir, 'setup.log')).toBe('package.json\ncode\n');
    expect(gitIn(workspace.root!, 'rev-parse', 'HEAD').trim()).toBe(workspace.base);
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe('');

    await releaseSlot(repo, workspace.root!, PLAN, 'code');
    const next = await openWorktree(repo, { ...step, stepId: 'next', setup });
    expect(next.root).toBe(workspace.root);
    expect(read(next.dir, 'setup.log')).toBe('package.json\ncode\n');
  });

  it('should reject with the output of a failing setup command, and make the slot anew next time', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const failure = await openWorktree(repo, { ...step, setup: 'echo "npm ERR! missing lockfile" >&2; exit 3' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkspaceSetupError);
    expect((failure as Error).message).toMatch(/^The worktree setup command "echo .*" failed \(exit 3\) after [\d.]+ s:\nnpm ERR! missing lockfile$/);

    const again = await openWorktree(repo, { ...step, setup: 'true' });
    expect(existsSync(join(again.dir, 'README.md'))).toBe(true);
  });

  it('should make the project folder in the slot when git carries nothing of it (an empty new package in a monorepo)', async () => {
    const dir = initRepo(dirs.make(), { 'packages/old/index.js': '1\n' });
    const project = join(dir, 'packages', 'new');
    writeFiles(dir, { 'packages/new/.keep-out': '' });
    unlinkSync(join(project, '.keep-out'));
    const repo = await supported(project, dirs.make());
    expect(repo.prefix).toBe('packages/new/');

    const workspace = await openWorktree(repo, step);

    expect(workspace.dir).toBe(join(workspace.root!, 'packages/new/'));
    expect(statSync(workspace.dir).isDirectory()).toBe(true);
    expect(read(workspace.root!, 'packages/old/index.js')).toBe('1\n');
  });

  it("should keep the project folder while a slot is reset, also when git carries nothing of it: OpenCode's instance there never meets it gone", async () => {
    const dir = initRepo(dirs.make(), { 'packages/old/index.js': '1\n' });
    const project = join(dir, 'packages', 'new');
    mkdirSync(project, { recursive: true });
    const repo = await supported(project, dirs.make());
    const first = await openWorktree(repo, step);
    // What the first step left: a file in the folder, another outside it.
    writeFiles(first.root!, { 'packages/new/index.js': 'step 1\n', 'stray.txt': 'x\n' });
    await releaseSlot(repo, first.root!, PLAN, 'code');

    // Held open, the folder's inode cannot be given to a folder made anew: the same number means the same folder.
    const held = await opendir(first.dir);
    try {
      const before = statSync(first.dir).ino;
      const next = await openWorktree(repo, { ...step, stepId: 'next' });
      expect(next.dir).toBe(first.dir);
      expect(statSync(next.dir).ino).toBe(before);
      // Still reset whole: what the last step left is gone, inside the folder and out.
      expect(readdirSync(next.dir)).toEqual([]);
      expect(existsSync(join(next.root!, 'stray.txt'))).toBe(false);
      expect(read(next.root!, 'packages/old/index.js')).toBe('1\n');
    } finally {
      await held.close();
    }
  });
});

describe('prepareSlots', () => {
  it('should make free slots until there are as many as asked, claimed by nobody once made, and the steps then take them', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const held = await openWorktree(repo, step);

    expect(await prepareSlots(repo, 2, { include: [] })).toEqual([slotRoot(repo, 2), slotRoot(repo, 3)]);
    // Already there: none made again, the same two free slots named.
    const made = statSync(join(slotRoot(repo, 2), '.git')).ino;
    expect(await prepareSlots(repo, 2, { include: [] })).toEqual([slotRoot(repo, 2), slotRoot(repo, 3)]);
    expect(statSync(join(slotRoot(repo, 2), '.git')).ino).toBe(made);
    expect((await listWorktrees(repo)).map((w) => [w.slot, w.claim?.step_id ?? null])).toEqual([
      [1, 'code'],
      [2, null],
      [3, null],
    ]);

    writeFiles(dir, { 'README.md': 'changed after the slots were made\n' });
    const next = await openWorktree(repo, { ...step, stepId: 'docs' });
    expect(next.root).toBe(slotRoot(repo, 2));
    expect(read(next.dir, 'README.md')).toBe('changed after the slots were made\n');
    expect(held.root).toBe(slotRoot(repo, 1));
  });
});

describe('openWorktree with a cap on slots (maxSlots)', () => {
  it('should wait while every slot is held and take the one given back, making none beyond the cap', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const logged: string[] = [];
    const capped = { ...step, maxSlots: 2, log: (_level: string, message: string) => logged.push(message) };
    const a = await openWorktree(repo, capped);
    await openWorktree(repo, { ...capped, stepId: 'b' });

    let third: string | undefined;
    const told: boolean[] = [];
    const waiting = openWorktree(repo, { ...capped, stepId: 'c', onWait: (w) => told.push(w) }).then((w) => (third = w.root));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(third).toBeUndefined();
    expect(told).toEqual([true]);
    expect(existsSync(slotRoot(repo, 3))).toBe(false);

    await releaseSlot(repo, a.root!, PLAN, 'code');
    await waiting;
    expect(third).toBe(a.root);
    expect(told).toEqual([true, false]);
    expect((await listWorktrees(repo)).map((w) => [w.slot, w.claim?.step_id])).toEqual([
      [1, 'c'],
      [2, 'b'],
    ]);
    expect(logged).toEqual(['Step c waits for a worktree slot: all 2 are held.']);
  });

  it('should give slots back to the waiting steps in the order they asked, only the first in line looking for one another process gave back', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const capped = { ...step, maxSlots: 1 };
    const a = await openWorktree(repo, capped);
    const got: string[] = [];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const waitFor = (stepId: string, signal?: AbortSignal) =>
      openWorktree(repo, { ...capped, stepId, ...(signal ? { signal } : {}) }).then((w) => {
        got.push(stepId);
        return w;
      });
    const b = waitFor('b');
    await sleep(100);
    const stop = new AbortController();
    const c = waitFor('c', stop.signal);
    await sleep(400);
    // d asks half a second after b: were every waiter to look each second, d would look first after the release below.
    const d = waitFor('d');
    stop.abort(new Error('plan stopped'));
    await expect(c).rejects.toThrow('plan stopped');
    await sleep(700);
    // Given back by another process: its claim removed, this process not told.
    unlinkSync(`${a.root}.claim.json`);

    const first = await b;
    expect(first.root).toBe(a.root);
    await sleep(50);
    expect(got).toEqual(['b']);
    await releaseSlot(repo, first.root!, PLAN, 'b');
    expect((await d).root).toBe(a.root);
    expect(got).toEqual(['b', 'd']);
  });

  it('should make one more slot, and say so, once a step waited slotWaitMs; and stop waiting when its signal aborts', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const logged: Array<[string, string]> = [];
    const capped = { ...step, maxSlots: 1, slotWaitMs: 200, log: (level: string, message: string) => logged.push([level, message]) };
    await openWorktree(repo, capped);

    const stop = new AbortController();
    const stopped = openWorktree(repo, { ...capped, stepId: 'stopped', slotWaitMs: 60_000, signal: stop.signal });
    stop.abort(new Error('plan stopped'));
    await expect(stopped).rejects.toThrow('plan stopped');

    const more = await openWorktree(repo, { ...capped, stepId: 'late' });
    expect(more.root).toBe(slotRoot(repo, 2));
    expect(logged.at(-1)).toEqual(['warn', expect.stringMatching(/^Step late waited \d+\.\d s for one of the 1 worktree slots, all held by steps waiting at a gate, and made one more\.$/)]);
  });

  it('should not prepare slots beyond the cap', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    await openWorktree(repo, step);
    expect(await prepareSlots(repo, 2, { include: [], maxSlots: 2 })).toEqual([slotRoot(repo, 2)]);
    expect(await prepareSlots(repo, 2, { include: [], maxSlots: 2 })).toEqual([slotRoot(repo, 2)]);
    expect(existsSync(slotRoot(repo, 3))).toBe(false);
  });
});

describe('releasePlanSlots', () => {
  it("should give back every slot of one plan and no other's, and remove the plan's landing records", async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const a = await openWorktree(repo, step);
    const b = await openWorktree(repo, { ...step, stepId: 'docs' });
    const other = await openWorktree(repo, { ...step, planId: OTHER });
    writeFiles(repo.worktrees, { [`${PLAN}/code.1.merged.json`]: '{}' });
    expect(mergedFile(repo, PLAN, 'code', 1)).toBe(join(repo.worktrees, PLAN, 'code.1.merged.json'));

    expect((await releasePlanSlots(repo, PLAN)).sort()).toEqual([a.root, b.root].sort());

    const listed = await listWorktrees(repo);
    expect(listed.map((w) => [w.path, w.claim?.plan_id ?? null])).toEqual([
      [a.root, null],
      [b.root, null],
      [other.root, OTHER],
    ]);
    expect(existsSync(join(repo.worktrees, PLAN))).toBe(false);
  });
});

describe('trimSlots', () => {
  it("should keep the pool's size of free slots, whatever steps hold, remove the free ones beyond it, and leave the folders they linked", async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': 'node_modules/\n' });
    writeFiles(dir, { 'node_modules/keep.js': 'kept\n' });
    const repo = await supported(dir, dirs.make());
    const slots = await Promise.all(['a', 'b', 'c'].map((stepId) => openWorktree(repo, { ...step, stepId, include: ['node_modules'] })));
    await releaseSlot(repo, slotRoot(repo, 2), PLAN, claimOf(slotRoot(repo, 2)).step_id);
    await releaseSlot(repo, slotRoot(repo, 3), PLAN, claimOf(slotRoot(repo, 3)).step_id);

    // Two free, one held: a pool of two keeps them all (the held one does not count).
    expect(await trimSlots(repo, 2)).toEqual([]);
    const removed = await trimSlots(repo, 1);

    expect(removed).toEqual([slotRoot(repo, 3)]);
    expect(existsSync(slotRoot(repo, 3))).toBe(false);
    expect(gitIn(dir, 'worktree', 'list')).not.toContain(slotRoot(repo, 3));
    expect((await listWorktrees(repo)).map((w) => w.path)).toEqual([slotRoot(repo, 1), slotRoot(repo, 2)]);
    expect(read(dir, 'node_modules/keep.js')).toBe('kept\n');
    expect(slots).toHaveLength(3);
  });

  it('should take a slot deleted by hand as gone, and make it anew when a step needs it', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    await releaseSlot(repo, first.root!, PLAN, 'code');
    rmSync(first.root!, { recursive: true });

    const again = await openWorktree(repo, { ...step, stepId: 'next' });
    expect(existsSync(join(again.dir, 'README.md'))).toBe(true);
    expect(gitIn(dir, 'worktree', 'list', '--porcelain')).toContain(again.root);
  });
});

/** What the slot's git says of it: its HEAD, `git status`, and the lock `git worktree list --porcelain` shows. */
function slotState(dir: string, root: string) {
  const entry = gitIn(dir, 'worktree', 'list', '--porcelain').split('\n\n').find((block) => block.startsWith(`worktree ${root}\n`)) ?? '';
  return { head: gitIn(root, 'rev-parse', 'HEAD').trim(), status: gitIn(root, 'status', '--porcelain', '--untracked-files=all'), locked: /^locked(?: (.*))?$/m.exec(entry)?.[1] ?? null };
}

/** The pid of a process of this machine that has ended. */
function deadPid(): number {
  const ended = spawnSync('true');
  return ended.pid!;
}

describe('slots in git', () => {
  it("should lock each slot it makes, with a reason naming Orca and the command that removes it, which git worktree list shows and git worktree prune respects", async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const step1 = await openWorktree(repo, step);
    const [ahead] = await prepareSlots(repo, 1, { include: [] });

    expect(SLOT_LOCK_REASON).toBe("Orca's warm slot for plan steps (opencode-orca-statecharts); remove with: orca prune --slots");
    expect(slotState(dir, step1.root!).locked).toBe(SLOT_LOCK_REASON);
    expect(slotState(dir, ahead!).locked).toBe(SLOT_LOCK_REASON);
    expect(gitIn(dir, 'worktree', 'list', '-v')).toContain(`\tlocked: ${SLOT_LOCK_REASON}\n`);
    expect((await listWorktrees(repo)).map((w) => w.locked)).toEqual([SLOT_LOCK_REASON, SLOT_LOCK_REASON]);

    // Deleted by hand: git keeps a locked record through a prune, and the slot is made again over it.
    rmSync(ahead!, { recursive: true });
    gitIn(dir, 'worktree', 'prune');
    expect(gitIn(dir, 'worktree', 'list', '--porcelain')).toContain(`worktree ${ahead}\n`);
    const again = await openWorktree(repo, { ...step, stepId: 'next' });
    expect(again.root).toBe(ahead);
    expect(slotState(dir, again.root!).locked).toBe(SLOT_LOCK_REASON);
  });

  it('should lock a slot made by a version before locks when it is next reset, or looked at after a restart', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const [one, two] = await Promise.all([openWorktree(repo, step), openWorktree(repo, { ...step, stepId: 'docs' })]);
    for (const root of [one.root!, two.root!]) gitIn(dir, 'worktree', 'unlock', root);
    await releaseSlot(repo, one.root!, PLAN, claimOf(one.root!).step_id);
    await releaseSlot(repo, two.root!, PLAN, claimOf(two.root!).step_id);
    expect((await listWorktrees(repo)).map((w) => w.locked)).toEqual([null, null]);

    expect(await resetFreeSlot(repo, one.root!)).toBe(true);
    expect(slotState(dir, one.root!).locked).toBe(SLOT_LOCK_REASON);
    await recoverSlots(repo);
    expect(slotState(dir, two.root!).locked).toBe(SLOT_LOCK_REASON);
  });
});

describe('resetFreeSlot', () => {
  it("should reset a slot given back to the user's HEAD: nothing of its step is left (files, index), git status there is clean, what .gitignore hides stays", async () => {
    const dir = initRepo(dirs.make(), { '.gitignore': 'build/\n.env\n', 'src/a.txt': 'a\n' });
    writeFiles(dir, { '.env': 'KEY=1\n', 'notes.txt': "the user's untracked file\n", 'src/a.txt': 'edited by the user\n' });
    const repo = await supported(dir, dirs.make());
    const head = gitIn(dir, 'rev-parse', 'HEAD').trim();
    const before = userState(dir);
    const work = await openWorktree(repo, { ...step, include: ['.env'] });
    // The step's work, staged in the slot's index as its measure leaves it (`M  src/a.txt`), a new file, a build.
    writeFiles(work.dir, { 'src/a.txt': 'the step wrote this\n', 'src/new.txt': 'new\n', 'build/out.js': 'built\n' });
    gitIn(work.root!, 'add', '-A');
    expect(gitIn(work.root!, 'status', '--porcelain')).toBe('M  src/a.txt\nA  src/new.txt\n');

    await releaseSlot(repo, work.root!, PLAN, 'code');
    expect((await listWorktrees(repo))[0]).toMatchObject({ claim: null, lastStep: { plan_id: PLAN, step_id: 'code' } });
    expect(await resetFreeSlot(repo, work.root!)).toBe(true);

    expect(slotState(dir, work.root!)).toEqual({ head, status: '', locked: SLOT_LOCK_REASON });
    expect(read(work.dir, 'src/a.txt')).toBe('a\n');
    expect(existsSync(join(work.dir, 'src/new.txt'))).toBe(false);
    expect(existsSync(join(work.dir, 'notes.txt'))).toBe(false); // the user's untracked file: the next step brings it back
    expect(read(work.dir, 'build/out.js')).toBe('built\n');
    expect(read(work.dir, '.env')).toBe('KEY=1\n');
    expect((await listWorktrees(repo))[0]).toMatchObject({ claim: null, lastStep: null });
    expect(existsSync(`${work.root}.claim.json`)).toBe(false);
    expect(userState(dir)).toEqual(before);

    // The next step finds its start as before.
    const next = await openWorktree(repo, { ...step, stepId: 'next', include: ['.env'] });
    expect(next.root).toBe(work.root);
    expect(read(next.dir, 'src/a.txt')).toBe('edited by the user\n');
    expect(read(next.dir, 'notes.txt')).toBe("the user's untracked file\n");
    expect(gitIn(next.root!, 'status', '--porcelain')).toBe('');
  });

  it('should leave alone a slot a step holds: its files and claim stay', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const work = await openWorktree(repo, step);
    writeFiles(work.dir, { 'work.txt': 'in progress\n' });

    expect(await resetFreeSlot(repo, work.root!)).toBe(false);
    expect(read(work.dir, 'work.txt')).toBe('in progress\n');
    expect(claimOf(work.root!)).toMatchObject({ plan_id: PLAN, step_id: 'code', attempt: 1 });
  });

  it('should keep a step off a slot while it is reset: the step waits for it rather than make another, then resets it to its own start', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const first = await openWorktree(repo, step);
    writeFiles(first.dir, { 'left.txt': 'by the first step\n' });
    await releaseSlot(repo, first.root!, PLAN, 'code');
    writeFiles(dir, { 'README.md': 'the user moved on\n' });

    const order: string[] = [];
    const reset = resetFreeSlot(repo, first.root!).then((done) => {
      order.push('reset');
      return done;
    });
    const next = openWorktree(repo, { ...step, stepId: 'next' }).then((workspace) => {
      order.push('step');
      return workspace;
    });
    // Who holds the slot, each time it changes, until the step holds it ready.
    const holders: string[] = [];
    const look = () => {
      let text = 'free';
      try {
        text = readFileSync(`${first.root}.claim.json`, 'utf8');
      } catch {
        // given up, or not made yet
      }
      if (holders.at(-1) !== text) holders.push(text);
    };
    while (order.length < 2) {
      look();
      await new Promise((resolve) => setImmediate(resolve));
    }
    look();

    expect(await reset).toBe(true);
    const workspace = await next;
    expect(order).toEqual(['reset', 'step']);
    const resetting = { plan_id: '', step_id: 'reset', attempt: 0, base: null, pid: process.pid, host: hostname(), run: expect.any(String) };
    // The reset's own claim, then only the step's: never the step's while the reset ran.
    const claims = holders.filter((text) => text !== 'free').map((text) => JSON.parse(text));
    expect(claims[0]).toEqual(resetting);
    expect(claims.slice(1).map((claim) => `${claim.plan_id}:${claim.step_id}`)).toEqual(claims.slice(1).map(() => `${PLAN}:next`));
    expect(claims.at(-1)).toEqual({ plan_id: PLAN, step_id: 'next', attempt: 1, base: workspace.base });
    expect(workspace.root).toBe(first.root);
    expect(existsSync(slotRoot(repo, 2))).toBe(false);
    expect(read(workspace.dir, 'README.md')).toBe('the user moved on\n');
    expect(existsSync(join(workspace.dir, 'left.txt'))).toBe(false);
    expect(claimOf(workspace.root!)).toMatchObject({ plan_id: PLAN, step_id: 'next' });
  });
});

describe('recoverSlots', () => {
  it('should take back the slots whose Orca claim a process that is gone left: a reset cut short to be reset again, a slot cut short while made removed; never a step\'s claim', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const [a, b, c] = (await Promise.all(['a', 'b', 'c'].map((stepId) => openWorktree(repo, { ...step, stepId })))) as [StepWorkspace, StepWorkspace, StepWorkspace];
    const dead = deadPid();
    const left = (work: string) => ({ plan_id: '', step_id: work, attempt: 0, base: null, pid: dead, host: hostname(), run: 'gone' });
    writeFileSync(`${a.root}.claim.json`, JSON.stringify(left('reset')));
    writeFileSync(`${b.root}.claim.json`, JSON.stringify(left('prepare')));
    expect(isStaleClaim(left('reset'))).toBe(true);
    expect(isStaleClaim({ ...left('reset'), pid: process.pid, run: 'an earlier process with this pid' })).toBe(true);
    expect(isStaleClaim({ ...left('reset'), host: 'another-machine' })).toBe(false);
    expect(isStaleClaim({ plan_id: PLAN, step_id: 'c', attempt: 1, base: null })).toBe(false);

    expect(await recoverSlots(repo)).toEqual([a.root]);

    expect(existsSync(`${a.root}.claim.json`)).toBe(false);
    expect(existsSync(b.root!)).toBe(false);
    expect(existsSync(`${b.root}.claim.json`)).toBe(false);
    expect(gitIn(dir, 'worktree', 'list', '--porcelain')).not.toContain(b.root);
    expect(claimOf(c.root!)).toMatchObject({ plan_id: PLAN, step_id: 'c' });
  });
});

describe('listWorktrees', () => {
  it("should list Orca's slots with who holds each and their size, and not the user's own worktrees", async () => {
    const dir = initRepo(dirs.make());
    gitIn(dir, 'worktree', 'add', '-q', '--detach', join(dirs.make(), 'mine'));
    const repo = await supported(dir, dirs.make());
    const one = await openWorktree(repo, { ...step, stepId: 'step_v2' });

    const listed = await listWorktrees(repo);

    expect(listed).toEqual([
      { slot: 1, path: one.root, dir: one.dir, claim: { plan_id: PLAN, step_id: 'step_v2', attempt: 1, base: one.base }, bytes: await diskBytes(one.root!), locked: SLOT_LOCK_REASON, lastStep: null },
    ]);
    expect(listed[0]!.bytes).toBeGreaterThan('hello\n'.length);
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
