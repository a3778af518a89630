import { afterEach, describe, expect, it } from 'vitest';
import { OrcaError } from '../../src/errors.js';
import { git, GitError, gitBytes } from '../../src/workspace/git.js';
import { gitIn, initRepo, tempDirs } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('git', () => {
  it('should resolve with the output and run as Orca, whatever the repository config says', async () => {
    const dir = initRepo(dirs.make());
    const tree = gitIn(dir, 'rev-parse', 'HEAD^{tree}').trim();
    const commit = await git(['commit-tree', tree, '-m', 'x'], { cwd: dir });
    expect(commit.code).toBe(0);
    expect(gitIn(dir, 'log', '-1', '--format=%an <%ae> %cn <%ce>', commit.stdout.trim())).toBe('Orca <orca@localhost> Orca <orca@localhost>\n');
  });

  it('should reject with a GitError naming the command, the exit code and what git said', async () => {
    const dir = initRepo(dirs.make());
    const failure = await git(['cat-file', '-p', 'no-such-thing'], { cwd: dir }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitError);
    expect(failure).toBeInstanceOf(OrcaError);
    expect((failure as GitError).exitCode).toBe(128);
    expect((failure as GitError).message).toMatch(/^git cat-file -p no-such-thing failed \(exit 128\) in .*: fatal: Not a valid object name no-such-thing/);
  });

  it('should resolve with an exit code the caller accepts', async () => {
    const dir = initRepo(dirs.make());
    const result = await git(['rev-parse', '-q', '--verify', 'nope'], { cwd: dir, okCodes: [0, 1] });
    expect(result).toMatchObject({ code: 1, stdout: '' });
  });

  it('should pass its input on stdin and give bytes as they are', async () => {
    const dir = initRepo(dirs.make());
    const bytes = Buffer.from([0xff, 0x00, 0xfe]);
    const oid = (await git(['hash-object', '-w', '--stdin'], { cwd: dir, input: bytes })).stdout.trim();
    expect((await gitBytes(['cat-file', 'blob', oid], { cwd: dir })).stdout).toEqual(bytes);
  });

  it('should give git an empty stdin when there is no input, so a command that reads it ends at once', async () => {
    const dir = initRepo(dirs.make());
    // The empty blob's id: git read end-of-file, not a pipe left open (which would hang) nor anything inherited.
    expect((await git(['hash-object', '--stdin'], { cwd: dir })).stdout.trim()).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('should ignore an inherited GIT_INDEX_FILE, which would point it at another index', async () => {
    const dir = initRepo(dirs.make());
    const saved = process.env.GIT_INDEX_FILE;
    process.env.GIT_INDEX_FILE = '/nonexistent/index';
    try {
      expect((await git(['ls-files'], { cwd: dir })).stdout).toBe('README.md\n');
    } finally {
      if (saved === undefined) delete process.env.GIT_INDEX_FILE;
      else process.env.GIT_INDEX_FILE = saved;
    }
  });

  it('should say when git is not installed', async () => {
    await expect(git(['--version'], { cwd: dirs.make(), env: { PATH: '/nonexistent' } })).rejects.toThrow(/could not start in .*: git is not installed or not on PATH\.$/);
  });

  it('should say the directory is missing rather than git', async () => {
    await expect(git(['status'], { cwd: '/nonexistent/orca' })).rejects.toThrow(/could not start in \/nonexistent\/orca: the directory does not exist/);
  });

  it('should reject with the abort reason', async () => {
    const dir = initRepo(dirs.make());
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(git(['status'], { cwd: dir, signal: controller.signal })).rejects.toThrow('stopped');
  });
});
