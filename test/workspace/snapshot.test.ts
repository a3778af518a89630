import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OrcaError } from '../../src/errors.js';
import { excludedPaths, projectPath, snapshotCommit, touchTree } from '../../src/workspace/snapshot.js';
import { gitIn, initRepo, tempDirs, tracedGit, userState, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const filesOf = (dir: string, commit: string) => gitIn(dir, 'ls-tree', '-r', '--name-only', commit).trim().split('\n');
const show = (dir: string, commit: string, path: string) => gitIn(dir, 'show', `${commit}:${path}`);

describe('snapshotCommit', () => {
  it('should hold the working tree as it is: changes, deletions and untracked files, ignored ones and excluded paths left out', async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', 'gone.txt': 'g\n', '.gitignore': 'dist/\n', 'app/.opencode/plans/old.json': '{}\n' });
    writeFiles(dir, {
      'a.txt': 'changed\n',
      'new/b.txt': 'b\n',
      'dist/out.js': 'built\n',
      'app/.opencode/plans/p.json': '{}\n',
      'app/.opencode/agenda/x.json': '{}\n',
      'app/.env': 'SECRET=1\n',
    });
    rmSync(join(dir, 'gone.txt'));
    gitIn(dir, 'add', 'new/b.txt'); // staged or not, the tree is what counts
    const before = userState(dir);

    const commit = await snapshotCommit(join(dir, 'app'), { exclude: excludedPaths('app/', ['.env']) });

    expect(filesOf(dir, commit)).toEqual(['.gitignore', 'a.txt', 'new/b.txt']);
    expect(show(dir, commit, 'a.txt')).toBe('changed\n');
    expect(gitIn(dir, 'rev-parse', `${commit}^`)).toBe(before.head);
    expect(userState(dir)).toEqual(before);
  });

  it('should make a commit without a parent in a repository with no commit yet', async () => {
    const dir = initRepo(dirs.make(), {});
    writeFiles(dir, { 'first.txt': '1\n' });
    const commit = await snapshotCommit(dir, { exclude: [] });
    expect(filesOf(dir, commit)).toEqual(['first.txt']);
    expect(gitIn(dir, 'rev-list', '--parents', '-n1', commit).trim()).toBe(commit);
    expect(gitIn(dir, 'status', '--porcelain')).toBe('?? first.txt\n');
  });

  it('should give the same tree for the same files', async () => {
    const dir = initRepo(dirs.make());
    writeFiles(dir, { 'x.txt': 'x\n' });
    const [one, two] = [await snapshotCommit(dir, { exclude: [] }), await snapshotCommit(dir, { exclude: [] })];
    expect(gitIn(dir, 'rev-parse', `${one}^{tree}`)).toBe(gitIn(dir, 'rev-parse', `${two}^{tree}`));
  });
});

describe('snapshotCommit with a kept index', () => {
  const treeOf = (dir: string, commit: string) => gitIn(dir, 'rev-parse', `${commit}^{tree}`);

  it('should hold the same tree as a temporary index would, snapshot after snapshot, and leave the user\'s index alone', async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', 'b.txt': 'b\n', '.gitignore': 'node_modules/\n.env\n' });
    writeFiles(dir, { 'node_modules/x.js': '1\n', '.env': 'K=1\n', '.opencode/plans/p.json': '{}\n' });
    const index = join(dirs.make(), 'kept', 'index');
    const exclude = excludedPaths('', ['node_modules', '.env']);
    const before = userState(dir);
    const both = async () => {
      const [kept, temp] = [await snapshotCommit(dir, { exclude, index }), await snapshotCommit(dir, { exclude })];
      expect(treeOf(dir, kept)).toBe(treeOf(dir, temp));
      return kept;
    };

    expect(filesOf(dir, await both())).toEqual(['.gitignore', 'a.txt', 'b.txt']);
    expect(existsSync(index)).toBe(true);
    writeFiles(dir, { 'a.txt': 'a changed\n', 'new/c.txt': 'c\n' });
    rmSync(join(dir, 'b.txt'));
    const second = await both();
    expect(filesOf(dir, second)).toEqual(['.gitignore', 'a.txt', 'new/c.txt']);
    expect(show(dir, second, 'a.txt')).toBe('a changed\n');
    // A file rewritten with the same size in the same second: git looks at racy entries again.
    writeFileSync(join(dir, 'a.txt'), 'A CHANGED\n');
    expect(show(dir, await both(), 'a.txt')).toBe('A CHANGED\n');
    expect({ ...userState(dir), status: '' }).toEqual({ ...before, status: '' });
    expect(gitIn(dir, 'rev-parse', `${second}^`)).toBe(before.head);
  });

  it("should work on a copy while another process holds the kept index's lock (or a killed one left it), and take over a lock left for long", async () => {
    const dir = initRepo(dirs.make());
    // Named as userIndexPath names it: a hash, so git's lock is `<hash>.lock`, not `index.lock`.
    const index = join(dirs.make(), 'index', '7a67cd448bd3');
    await snapshotCommit(dir, { exclude: [], index });
    writeFileSync(`${index}.lock`, '');
    writeFiles(dir, { 'locked.txt': 'x\n' });

    expect(filesOf(dir, await snapshotCommit(dir, { exclude: [], index }))).toEqual(['README.md', 'locked.txt']);
    expect(existsSync(`${index}.lock`)).toBe(true);

    const old = new Date(Date.now() - 120_000);
    utimesSync(`${index}.lock`, old, old);
    expect(filesOf(dir, await snapshotCommit(dir, { exclude: [], index }))).toEqual(['README.md', 'locked.txt']);
    expect(existsSync(`${index}.lock`)).toBe(false);
    writeFiles(dir, { 'later.txt': 'y\n' });
    expect(filesOf(dir, await snapshotCommit(dir, { exclude: [], index }))).toEqual(['README.md', 'later.txt', 'locked.txt']);
  });

  it('should take snapshots asked at once one after the other', async () => {
    const dir = initRepo(dirs.make());
    const index = join(dirs.make(), 'index');
    writeFiles(dir, { 'x.txt': 'x\n' });
    const commits = await Promise.all([1, 2, 3].map(() => snapshotCommit(dir, { exclude: [], index })));
    expect(new Set(commits.map((c) => treeOf(dir, c))).size).toBe(1);
  });
});

describe('snapshotCommit of files unchanged since the last', () => {
  const traced = (run: () => Promise<string>) => tracedGit(dirs.make(), run).then(({ result, verbs }) => ({ commit: result, verbs }));

  /**
   * Files written a minute ago, as a user's files mostly are: git takes one written in the second its
   * index is written as maybe changed at the next look (racy git), and adds it again then.
   */
  const backdate = (dir: string, paths: string[]) => {
    const then = new Date(Date.now() - 60_000);
    for (const path of paths) utimesSync(join(dir, path), then, then);
  };

  it('should ask git for no tree and no commit when the index is as the last snapshot left it, and for both once a file changed', async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', 'src/b.ts': 'b\n' });
    const index = join(dirs.make(), 'index', 'unchanged');
    writeFiles(dir, { 'untracked.txt': 'u\n' });
    backdate(dir, ['a.txt', 'src/b.ts', 'untracked.txt']);
    const first = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    expect(first.verbs).toEqual(expect.arrayContaining(['add', 'write-tree', 'commit-tree']));
    const again = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    expect(again.commit).toBe(first.commit);
    expect(again.verbs).not.toContain('write-tree');
    expect(again.verbs).not.toContain('commit-tree');
    expect(again.verbs).toContain('add');

    writeFiles(dir, { 'src/b.ts': 'b changed\n' });
    const changed = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    expect(changed.verbs).toEqual(expect.arrayContaining(['write-tree', 'commit-tree']));
    expect(show(dir, changed.commit, 'src/b.ts')).toBe('b changed\n');
    // Back as it was: the tree git wrote before, and its commit, serve again.
    writeFiles(dir, { 'src/b.ts': 'b\n' });
    const back = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    expect(back.commit).toBe(first.commit);
    expect(back.verbs).not.toContain('commit-tree');
  });

  it("should ask git to drop excluded paths from a worktree's own index only when it holds some (added there by hand)", async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n' });
    const root = join(dirs.make(), 'slot');
    gitIn(dir, 'worktree', 'add', '-q', '--detach', root);
    const exclude = excludedPaths('', ['.env']);
    writeFiles(root, { 'step.txt': 's\n', '.env': 'K=1\n', '.opencode/plans/p.json': '{}\n' });
    const clean = await traced(() => snapshotCommit(root, { exclude, own: true }));
    expect(clean.verbs).not.toContain('rm');
    expect(filesOf(dir, clean.commit)).toEqual(['a.txt', 'step.txt']);

    gitIn(root, 'add', '-f', '.env', '.opencode/plans/p.json');
    const added = await traced(() => snapshotCommit(root, { exclude, own: true }));
    expect(added.verbs).toContain('rm');
    expect(filesOf(dir, added.commit)).toEqual(['a.txt', 'step.txt']);
  });

  it('should do the same in a SHA-256 repository', async () => {
    const dir = dirs.make();
    gitIn(dir, 'init', '-q', '--object-format=sha256');
    writeFiles(dir, { 'a.txt': 'a\n' });
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '-m', 'initial');
    writeFiles(dir, { 'new.txt': 'n\n' });
    backdate(dir, ['a.txt', 'new.txt']);
    const index = join(dirs.make(), 'index', 'sha256');
    const first = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    const again = await traced(() => snapshotCommit(dir, { exclude: [], index }));
    expect(first.commit).toHaveLength(64);
    expect(again.commit).toBe(first.commit);
    expect(again.verbs).not.toContain('write-tree');
    expect(filesOf(dir, again.commit)).toEqual(['a.txt', 'new.txt']);
  });

  it('should make the commit anew in a clone, which holds the same ids but not the same objects', async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n' });
    const clone = join(dirs.make(), 'clone');
    gitIn(dir, 'clone', '-q', dir, clone);
    for (const where of [dir, clone]) {
      writeFiles(where, { 'same.txt': 's\n' });
      backdate(where, ['a.txt', 'same.txt']);
    }
    const mine = await snapshotCommit(dir, { exclude: [], index: join(dirs.make(), 'index') });
    const theirs = await snapshotCommit(clone, { exclude: [], index: join(dirs.make(), 'index') });
    expect(filesOf(clone, theirs)).toEqual(['a.txt', 'same.txt']);
    expect(gitIn(clone, 'rev-parse', `${theirs}^{tree}`)).toBe(gitIn(dir, 'rev-parse', `${mine}^{tree}`));
  });

  it("should do the same in a worktree's own index, found through its .git file", async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n' });
    const root = join(dirs.make(), 'slot');
    gitIn(dir, 'worktree', 'add', '-q', '--detach', root);
    writeFiles(root, { 'step.txt': 's\n' });
    backdate(root, ['a.txt', 'step.txt']);
    const first = await traced(() => snapshotCommit(root, { exclude: [], own: true }));
    const again = await traced(() => snapshotCommit(root, { exclude: [], own: true }));
    expect(again.commit).toBe(first.commit);
    expect(again.verbs).not.toContain('write-tree');
    expect(filesOf(dir, again.commit)).toEqual(['a.txt', 'step.txt']);
  });
});

describe('snapshotCommit for a base (recentMs)', () => {
  it('should give a base the snapshot just taken, and a measurement a snapshot begun after it asked', async () => {
    const dir = initRepo(dirs.make());
    const index = join(dirs.make(), 'index', 'base');
    const measured = await snapshotCommit(dir, { exclude: [], index });
    // Written in the moment between a step's measurement and the next step's start.
    writeFiles(dir, { 'between.txt': 'x\n' });

    const base = await snapshotCommit(dir, { exclude: [], index, recentMs: 60_000 });
    expect(base).toBe(measured);
    expect(filesOf(dir, base)).toEqual(['README.md']);
    const fresh = await snapshotCommit(dir, { exclude: [], index });
    expect(filesOf(dir, fresh)).toEqual(['README.md', 'between.txt']);
    // A base asked while a snapshot runs joins it: that saves a git run and changes no tree (two runs of
    // the same files in the same second make the same commit), so the bench measures it, not this test.
  });

  it('should take a new snapshot for a base once Orca wrote to the tree (touchTree), or the last one is older than recentMs', async () => {
    const dir = initRepo(dirs.make());
    const index = join(dirs.make(), 'index', 'touched');
    await snapshotCommit(dir, { exclude: [], index });
    // A step's changes landing: written, then said.
    writeFiles(dir, { 'landed.txt': 'x\n' });
    touchTree(dir);
    expect(filesOf(dir, await snapshotCommit(dir, { exclude: [], index, recentMs: 60_000 }))).toEqual(['README.md', 'landed.txt']);

    writeFiles(dir, { 'later.txt': 'y\n' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(filesOf(dir, await snapshotCommit(dir, { exclude: [], index, recentMs: 10 }))).toEqual(['README.md', 'landed.txt', 'later.txt']);
  });
});

describe('snapshotCommit for a measurement (quietSince)', () => {
  it("should give a measurement a snapshot begun after the step's last write, running or ended, and a new one when the snapshot began before that write", async () => {
    const dir = initRepo(dirs.make());
    const index = join(dirs.make(), 'index', 'quiet');
    // The step's session wrote its file, and its last tool call ended: then another step's snapshot began.
    writeFiles(dir, { 'mine.txt': 'mine\n' });
    const quietSince = performance.now();
    const other = snapshotCommit(dir, { exclude: [], index });
    // Asked while it runs: joined (a second run of the same files in the same second would make the
    // same commit, so this line cannot tell them apart; the one below can).
    const mine = await snapshotCommit(dir, { exclude: [], index, quietSince });
    expect(mine).toBe(await other);
    expect(filesOf(dir, mine)).toEqual(['README.md', 'mine.txt']);
    // Ended by now, it still holds all the step did: taken, though someone else wrote since.
    writeFiles(dir, { 'sibling.txt': 'theirs\n' });
    expect(await snapshotCommit(dir, { exclude: [], index, quietSince })).toBe(mine);

    // The step wrote again after that snapshot began: the measurement takes a snapshot of its own.
    writeFiles(dir, { 'later.txt': 'later\n' });
    const afterWrite = performance.now();
    const fresh = await snapshotCommit(dir, { exclude: [], index, quietSince: afterWrite });
    expect(fresh).not.toBe(mine);
    expect(filesOf(dir, fresh)).toEqual(['README.md', 'later.txt', 'mine.txt', 'sibling.txt']);
  });

  it('should take a new snapshot for a measurement once Orca wrote to the tree after the last one began (touchTree)', async () => {
    const dir = initRepo(dirs.make());
    const index = join(dirs.make(), 'index', 'quiet-touched');
    const quietSince = performance.now();
    const first = await snapshotCommit(dir, { exclude: [], index });
    writeFiles(dir, { 'landed.txt': 'x\n' });
    touchTree(dir);
    const measured = await snapshotCommit(dir, { exclude: [], index, quietSince });
    expect(measured).not.toBe(first);
    expect(filesOf(dir, measured)).toEqual(['README.md', 'landed.txt']);
  });
});

describe('excludedPaths', () => {
  it('should name the state folders and the include list under the prefix', () => {
    expect(excludedPaths('app/', ['./node_modules/', '.env'])).toEqual(['app/.opencode/plans', 'app/.opencode/agenda', 'app/node_modules', 'app/.env']);
  });
});

describe('projectPath', () => {
  it('should refuse a path that leaves the project directory', () => {
    for (const path of ['../x', '/etc/passwd', '.', 'a/../../b']) expect(() => projectPath(path)).toThrow(OrcaError);
    expect(projectPath('a/./b/')).toBe('a/b');
  });
});
