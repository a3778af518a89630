import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OrcaError } from '../../src/errors.js';
import { excludedPaths, projectPath, snapshotCommit } from '../../src/workspace/snapshot.js';
import { gitIn, initRepo, tempDirs, userState, writeFiles } from './repo.js';

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
