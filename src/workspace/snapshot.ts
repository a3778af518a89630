import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { OrcaError } from '../errors.js';
import { git } from './git.js';

/** Orca's state folders, relative to the project directory: never part of a step's tree, never merged. */
export const STATE_FOLDERS = ['.opencode/plans', '.opencode/agenda'] as const;

/**
 * The repository-relative paths no snapshot holds: the state folders, and the include list
 * (copied or linked into each worktree, so their worktree copy is never the step's change).
 */
export function excludedPaths(prefix: string, include: readonly string[]): string[] {
  return [...STATE_FOLDERS, ...include.map(projectPath)].map((path) => prefix + path);
}

/** `./node_modules/` → `node_modules`; a path that leaves the project directory is refused. */
export function projectPath(path: string): string {
  const normal = posix.normalize(path.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (isAbsolute(path) || normal === '..' || normal.startsWith('../') || normal === '.' || normal === '')
    throw new OrcaError(`Expected a path inside the project directory in the workspace include list, got ${JSON.stringify(path)}.`);
  return normal;
}

export interface SnapshotOptions {
  /** Repository-relative paths left out (see excludedPaths). */
  exclude: readonly string[];
  signal?: AbortSignal;
}

/**
 * A commit holding the working tree of the repository around `dir` as it is now: tracked changes,
 * deletions and untracked files that .gitignore does not ignore, less the `exclude` paths. Built in a
 * temporary index, so the user's index, tree and refs stay as they are; its parent is HEAD when there is one.
 */
export async function snapshotCommit(dir: string, { exclude, signal }: SnapshotOptions): Promise<string> {
  const temp = await mkdtemp(join(tmpdir(), 'orca-index-'));
  const env = { GIT_INDEX_FILE: join(temp, 'index') };
  const run = (args: string[], okCodes?: number[]) => git(args, { cwd: dir, env, ...(signal ? { signal } : {}), ...(okCodes ? { okCodes } : {}) });
  // `top`: the paths are repository-relative wherever `dir` is; `literal`: a `*` in a name is a `*`.
  const pathspecs = exclude.map((path) => `:(top,literal)${path}`);
  try {
    // An unborn HEAD (no commit yet) has nothing to start from: the index starts empty.
    const head = (await run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], [0, 1])).stdout.trim();
    if (head) await run(['read-tree', head]);
    await run(['add', '-A', '--', ':/']);
    // Removed after adding, not left out by `:(exclude)` pathspecs: `add` fails on those that name an
    // ignored file (`.env`, `node_modules`). Also removes a state folder or include path the user committed.
    if (exclude.length > 0) await run(['rm', '--cached', '-r', '-q', '-f', '--ignore-unmatch', '--', ...pathspecs]);
    const tree = (await run(['write-tree'])).stdout.trim();
    const commit = await run(['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', 'Orca: snapshot of the working tree']);
    return commit.stdout.trim();
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
