import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { OrcaError } from '../errors.js';

export interface GitOptions {
  cwd: string;
  /** Added to the environment, after Orca's fixed identity: `GIT_INDEX_FILE` for a temporary index. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  input?: string | Buffer;
  /** Exit codes that resolve; any other rejects with GitError. `merge-tree` exits 1 on a conflict. */
  okCodes?: readonly number[];
}

export interface GitResult<Out = string> {
  stdout: Out;
  stderr: string;
  code: number;
}

/** Characters of stderr a GitError keeps: the tail, where git says what went wrong. */
const STDERR_LIMIT = 2000;

/** A git call that could not start or exited with a code its caller did not accept. */
export class GitError extends OrcaError {
  override readonly name = 'GitError';
  /** null when git could not start (not installed, the directory is gone). */
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(message: string, exitCode: number | null = null, stderr = '') {
    super(message);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/**
 * Config for every call, so the user's settings cannot act on Orca's plumbing: no hooks
 * (`worktree add` runs post-checkout), no signing prompt on `commit-tree`, no fsmonitor daemon,
 * no refusal of a CRLF conversion on `add`.
 */
const FIXED_CONFIG = [
  ['core.hooksPath', '/dev/null'],
  ['commit.gpgSign', 'false'],
  ['core.fsmonitor', 'false'],
  ['core.safecrlf', 'false'],
  ['advice.detachedHead', 'false'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/**
 * Inherited variables that would point git at another repository, index or config: set when
 * OpenCode itself runs under a git hook, and they would send Orca's calls to the user's index.
 */
const DROPPED_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_EXTERNAL_DIFF',
  'GIT_DIFF_OPTS',
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
  'GIT_QUARANTINE_PATH',
];

function gitEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of DROPPED_ENV) delete env[name];
  return {
    ...env,
    GIT_AUTHOR_NAME: 'Orca',
    GIT_AUTHOR_EMAIL: 'orca@localhost',
    GIT_COMMITTER_NAME: 'Orca',
    GIT_COMMITTER_EMAIL: 'orca@localhost',
    GIT_TERMINAL_PROMPT: '0',
    // No opportunistic index refresh by read-only commands: the user's index stays byte-identical.
    GIT_OPTIONAL_LOCKS: '0',
    // English messages: they reach the user and the step's record.
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs `git args` (no shell) and resolves with its output as text. */
export async function git(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const result = await gitBytes(args, options);
  return { ...result, stdout: result.stdout.toString('utf8') };
}

/** Runs `git args` and resolves with its output as bytes: patches and file contents need not be UTF-8. */
export function gitBytes(args: readonly string[], { cwd, env, signal, input, okCodes = [0] }: GitOptions): Promise<GitResult<Buffer>> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const command = describe(args);
    const child = spawn('git', [...FIXED_CONFIG, ...args], {
      cwd,
      env: gitEnv(env),
      // No input: git reads an empty stdin from /dev/null, with no pipe to make and end (about a third
      // less of OpenCode's CPU per call under its Bun, measured: 1.5–1.6 ms against 2.1–2.5).
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(signal ? { signal } : {}),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (child.stdin) {
      // git may exit before reading all its input (a failed check): the pipe's EPIPE is not the error.
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) return reject(signal.reason);
      // Node says ENOENT both for a missing git and a missing cwd.
      const why = error.code !== 'ENOENT' ? error.message : existsSync(cwd) ? 'git is not installed or not on PATH' : 'the directory does not exist';
      reject(new GitError(`${command} could not start in ${cwd}: ${why}.`));
    });
    child.once('close', (code, killedBy) => {
      if (signal?.aborted) return reject(signal.reason);
      const err = Buffer.concat(stderr).toString('utf8');
      if (code === null) return reject(new GitError(`${command} was killed by ${killedBy} in ${cwd}.`, null, err));
      if (!okCodes.includes(code)) {
        const tail = err.trim().slice(-STDERR_LIMIT);
        return reject(new GitError(`${command} failed (exit ${code}) in ${cwd}${tail ? `: ${tail}` : ', with no message.'}`, code, err));
      }
      resolve({ stdout: Buffer.concat(stdout), stderr: err, code });
    });
  });
}

/** `git worktree add …`, cut so a long pathspec list does not bury the message. */
function describe(args: readonly string[]): string {
  const text = `git ${args.join(' ')}`;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
