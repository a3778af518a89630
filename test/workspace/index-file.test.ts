import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdsAny, readIndexFile, rootTreeOf } from '../../src/workspace/index-file.js';
import { gitIn, initRepo, tempDirs, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const index = (dir: string) => join(dir, '.git', 'index');
const rootTree = (dir: string) => rootTreeOf(readFileSync(index(dir)), 20);

describe('rootTreeOf', () => {
  it("should read the tree write-tree prints from the index's cache tree, and nothing once an add changed an entry", async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', 'src/b.ts': 'b\n', 'src/deep/c.ts': 'c\n' });
    const tree = gitIn(dir, 'write-tree').trim();
    expect(rootTreeOf((await readIndexFile(index(dir)))!, 20)).toBe(tree);

    writeFiles(dir, { 'src/deep/c.ts': 'changed\n' });
    gitIn(dir, 'add', '-A');
    expect(rootTree(dir)).toBeUndefined();
    expect(rootTree(dir)).toBeUndefined();
    const next = gitIn(dir, 'write-tree').trim();
    expect(next).not.toBe(tree);
    expect(rootTree(dir)).toBe(next);
  });

  it('should read index versions 3 (a skip-worktree entry has extended flags) and 4 (names prefix-compressed), and a name of 4095 bytes or more', async () => {
    const dir = initRepo(dirs.make(), { 'one/a.txt': 'a\n', 'one/ab.txt': 'ab\n', 'two/x.txt': 'x\n' });
    const blob = gitIn(dir, 'hash-object', '-w', '--stdin').trim();
    // Only in the index: no file system takes a path this long.
    const long = `${'d'.repeat(200)}/`.repeat(21) + 'end.txt';
    gitIn(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${long}`);
    gitIn(dir, 'update-index', '--skip-worktree', 'one/ab.txt');
    expect(readFileSync(index(dir)).readUInt32BE(4)).toBe(3);
    const three = gitIn(dir, 'write-tree').trim();
    expect(rootTree(dir)).toBe(three);

    gitIn(dir, 'update-index', '--index-version', '4');
    expect(readFileSync(index(dir)).readUInt32BE(4)).toBe(4);
    expect(gitIn(dir, 'write-tree').trim()).toBe(three);
    expect(rootTree(dir)).toBe(three);
    expect(gitIn(dir, 'ls-tree', '-r', '--name-only', three)).toContain('end.txt');
  });

  it('should read the index of a SHA-256 repository (32-byte ids)', () => {
    const dir = dirs.make();
    gitIn(dir, 'init', '-q', '--object-format=sha256');
    writeFiles(dir, { 'a.txt': 'a\n', 'src/b.ts': 'b\n' });
    gitIn(dir, 'add', '-A');
    const tree = gitIn(dir, 'write-tree').trim();
    expect(tree).toHaveLength(64);
    expect(rootTreeOf(readFileSync(index(dir)), 32)).toBe(tree);
    expect(holdsAny(readFileSync(index(dir)), ['src'], 32)).toBe(true);
  });

  it('should say nothing for what it does not read: no file, not an index, a split index; nor when git keeps the root invalid (an intent-to-add entry)', async () => {
    const dir = initRepo(dirs.make());
    writeFiles(dir, { 'later.txt': 'l\n' });
    gitIn(dir, 'add', '-N', 'later.txt');
    gitIn(dir, 'write-tree');
    expect(rootTree(dir)).toBeUndefined();
    gitIn(dir, 'rm', '-q', '--cached', 'later.txt');
    expect(gitIn(dir, 'write-tree').trim()).toBe(rootTree(dir));
    expect(await readIndexFile(join(dir, 'missing'))).toBeUndefined();
    expect(rootTreeOf(Buffer.from('not an index at all, long enough to be read'), 20)).toBeUndefined();
    // Cut short (a file read while half written, say): its entries or extensions run past its end.
    gitIn(dir, 'write-tree');
    const whole = readFileSync(index(dir));
    expect(rootTreeOf(whole, 20)).toBeDefined();
    for (const cut of [40, whole.length - 60, whole.length - 25]) {
      expect(rootTreeOf(whole.subarray(0, cut), 20)).toBeUndefined();
      expect(holdsAny(whole.subarray(0, cut), ['README.md'], 20)).toBeUndefined();
    }
    gitIn(dir, 'update-index', '--split-index');
    gitIn(dir, 'write-tree');
    expect(rootTree(dir)).toBeUndefined();
  });
});

describe('holdsAny', () => {
  it('should find an entry at or under a path, not one that only begins with its name, in index versions 2 and 4', async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', '.opencode/plansx/keep.md': 'k\n', 'app/.env': 'K=1\n', 'app/src/main.ts': 'm\n' });
    // A name longer than the reader's first buffer for names (v4), only in the index.
    const long = `${'d'.repeat(200)}/`.repeat(25) + 'end.txt';
    gitIn(dir, 'update-index', '--add', '--cacheinfo', `100644,${gitIn(dir, 'hash-object', '-w', 'a.txt').trim()},${long}`);
    for (const version of ['2', '4']) {
      gitIn(dir, 'update-index', '--index-version', version);
      expect(readFileSync(index(dir)).readUInt32BE(4)).toBe(Number(version));
      expect(holdsAny(readFileSync(index(dir)), [long.slice(0, 4020).replace(/\/$/, '')], 20)).toBe(true);
      expect(holdsAny(readFileSync(index(dir)), [`${long.slice(0, 4019)}x`], 20)).toBe(false);
      expect(holdsAny(readFileSync(index(dir)), ['.opencode/plans', 'app/.opencode/plans', 'node_modules'], 20)).toBe(false);
      expect(holdsAny(readFileSync(index(dir)), ['.opencode/plans', 'app/.env'], 20)).toBe(true);
      expect(holdsAny(readFileSync(index(dir)), ['app/src'], 20)).toBe(true);
      expect(holdsAny(readFileSync(index(dir)), ['app/s'], 20)).toBe(false);
    }
    gitIn(dir, 'update-index', '--split-index');
    expect(holdsAny(readFileSync(index(dir)), ['a.txt'], 20)).toBeUndefined();
  });
});
