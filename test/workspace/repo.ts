import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { workspaceSupport, type GitRepository } from '../../src/workspace/support.js';

/** Real git in temporary folders: each test's repository, removed by `cleanup`. */
export function tempDirs() {
  const made: string[] = [];
  return {
    make(): string {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'orca-ws-')));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** GIT_OPTIONAL_LOCKS=0: `git status` here must not rewrite the index the tests compare. */
const env = {
  ...process.env,
  GIT_OPTIONAL_LOCKS: '0',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};
export const gitIn = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });

/** A repository with one commit holding `files`. */
export function initRepo(dir: string, files: Record<string, string | Buffer> = { 'README.md': 'hello\n' }): string {
  gitIn(dir, 'init', '-q');
  writeFiles(dir, files);
  if (Object.keys(files).length > 0) {
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-q', '-m', 'initial');
  }
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

export const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

/** workspaceSupport of `dir`, which must allow worktrees; they go under `dataHome`. */
export async function supported(dir: string, dataHome: string): Promise<GitRepository> {
  const support = await workspaceSupport(dir, { dataHome });
  if (!support.ok) throw new Error(`expected worktree support in ${dir}: ${support.reason}`);
  return support;
}

/** What a snapshot or merge must leave as it was: the index bytes, HEAD, and what `git status` says. */
export function userState(dir: string) {
  return {
    index: readFileSync(join(dir, '.git', 'index')).toString('base64'),
    head: gitIn(dir, 'rev-parse', 'HEAD'),
    status: gitIn(dir, 'status', '--porcelain'),
    refs: gitIn(dir, 'for-each-ref'),
  };
}

/**
 * `run`'s result and the git subcommands Orca ran meanwhile in this process, from git's own trace
 * (GIT_TRACE2_EVENT: one file per process, in `folder`).
 */
export async function tracedGit<T>(folder: string, run: () => Promise<T>): Promise<{ result: T; verbs: string[] }> {
  const before = process.env.GIT_TRACE2_EVENT;
  process.env.GIT_TRACE2_EVENT = folder;
  let result: T;
  try {
    result = await run();
  } finally {
    if (before === undefined) delete process.env.GIT_TRACE2_EVENT;
    else process.env.GIT_TRACE2_EVENT = before;
  }
  const verbs = readdirSync(folder).map((name) => {
    const start = readFileSync(join(folder, name), 'utf8')
      .split('\n')
      .map((line) => (line ? (JSON.parse(line) as { event: string; argv?: string[] }) : null))
      .find((event) => event?.event === 'start');
    return start?.argv?.find((arg) => /^[a-z][a-z-]+$/.test(arg) && arg !== 'git') ?? '?';
  });
  return { result, verbs };
}
