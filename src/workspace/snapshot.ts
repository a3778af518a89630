import { lstatSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { OrcaError } from '../errors.js';
import { git, GitError } from './git.js';
import { holdsAny, readIndexFile, rootTreeOf } from './index-file.js';
import { oneAtATimeIn, sharedNextIn } from './one-at-a-time.js';
import type { GitRepository } from './support.js';

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

/**
 * Orca's own index of the user's working tree (never the user's index): kept between snapshots,
 * so each one reads only what changed. One per working tree of the repository.
 */
export function userIndexPath(repo: GitRepository): string {
  return join(repo.worktrees, 'index', createHash('sha1').update(repo.toplevel).digest('hex').slice(0, 12));
}

export interface SnapshotOptions {
  /** Repository-relative paths left out (see excludedPaths). */
  exclude: readonly string[];
  signal?: AbortSignal;
  /**
   * An index file Orca keeps for this working tree between snapshots (never the user's own): git
   * then looks again only at files whose size or time changed, instead of reading every file.
   * Absent: the worktree's own index when `own` is set, else a temporary one (every file read).
   */
  index?: string;
  /** The tree is Orca's own worktree: its index is Orca's, so it is used as is. */
  own?: boolean;
  /** The snapshot's parent, when the caller knows it (a slot's base): HEAD is not looked up. */
  parent?: string;
  /**
   * For a step's base (the tree it starts from), never for a measurement (which must see all that was
   * done before it asked): a snapshot of this tree in Orca's kept index that is running now, or ended at
   * most this many ms ago, will do when Orca wrote nothing to the tree since it began (touchTree).
   */
  recentMs?: number;
  /**
   * For a measurement of the shared tree: a performance.now() time since which nothing the step runs
   * wrote to the tree (its session's last tool call ended then). A snapshot in Orca's kept index begun
   * at or after it holds all the step did and will do, running or ended, when Orca wrote nothing to the
   * tree since it began (touchTree): steps that end at once share one snapshot, not two in a row.
   */
  quietSince?: number;
}

/**
 * How recent a snapshot of the user's tree may be to serve as the base of a step in the shared tree:
 * the measurement of the step that just ended is the tree its dependents start from. An edit someone
 * else made in that moment counts as the next step's, as one made a moment later while it runs would.
 * A step's worktree takes only a snapshot running as it asks (recentMs 0): it must hold the user's edits.
 */
export const RECENT_BASE_MS = 500;

/**
 * A commit holding the working tree of the repository around `dir` as it is now: tracked changes,
 * deletions and untracked files that .gitignore does not ignore, less the `exclude` paths. Built in an
 * index of Orca's (kept, temporary, or a worktree's own), so the user's index, tree and refs stay as
 * they are; its parent is HEAD when there is one.
 */
export async function snapshotCommit(dir: string, options: SnapshotOptions): Promise<string> {
  const { index, own, signal } = options;
  if (own) return snapshotIn(dir, undefined, options);
  if (!index) return withTemporaryIndex((temp) => seedFromHead(dir, temp, signal).then(() => snapshotIn(dir, temp, options)));
  const key = `${dir}\0${index}\0${options.exclude.join('\0')}`;
  const recent =
    options.recentMs !== undefined ? recentSnapshot(key, dir, options.recentMs) : options.quietSince !== undefined ? snapshotSince(key, dir, options.quietSince) : undefined;
  // Snapshots of the user's tree asked for while one runs share the next one (steps starting and
  // ending at once, a merge): it runs to the end for them all, each caller stopping its wait on abort.
  const shared = recent ?? sharedNext(key, () => remembered(key, dir, () => keptIndexSnapshot(dir, index, options.exclude)));
  return signal ? untilAborted(shared, signal) : shared;
}

/**
 * Orca is about to write, or wrote, to the user's tree another way than through a step's own turn
 * (a step's changes landing, a step's hooks): no snapshot begun before serves as a base any more.
 */
export function touchTree(dir: string): void {
  generations.set(dir, (generations.get(dir) ?? 0) + 1);
}

/**
 * The snapshot of the tree under `key` a base may take: one queued to begin after the current one
 * (a measurement asked while one ran: it sees what the step before did), else the last one when it runs
 * now or ended at most `withinMs` ago, Orca having written nothing since it began.
 */
function recentSnapshot(key: string, dir: string, withinMs: number): Promise<string> | undefined {
  const queued = sharedTurns.get(key)?.next;
  if (queued) return queued;
  const last = latest.get(key);
  if (!last || last.generation !== (generations.get(dir) ?? 0)) return undefined;
  return last.endedAt === null || performance.now() - last.endedAt <= withinMs ? last.run : undefined;
}

/**
 * A snapshot of the tree under `key` that began at or after `since`, Orca having written nothing since
 * it began: the newest one that ended when it qualifies (no wait), else the latest, running or ended.
 * A step that wrote nothing since its start is then measured at once by the snapshot its base was (or a
 * later one that ended), not by one another step began a moment ago and that still runs.
 */
function snapshotSince(key: string, dir: string, since: number): Promise<string> | undefined {
  const generation = generations.get(dir) ?? 0;
  for (const candidate of [ended.get(key), latest.get(key)]) {
    if (candidate && candidate.startedAt >= since && candidate.generation === generation) return candidate.run;
  }
  return undefined;
}

/** Runs a snapshot of the tree under `key`, kept as the latest one (a failed one is forgotten). */
function remembered(key: string, dir: string, snapshot: () => Promise<string>): Promise<string> {
  // Taken before the run is asked for: git reads the tree at this moment or later.
  const startedAt = performance.now();
  const entry: LatestSnapshot = { run: snapshot(), generation: generations.get(dir) ?? 0, startedAt, endedAt: null };
  latest.set(key, entry);
  entry.run.then(
    () => {
      entry.endedAt = performance.now();
      const before = ended.get(key);
      if (!before || before.startedAt < entry.startedAt) ended.set(key, entry);
    },
    () => {
      if (latest.get(key) === entry) latest.delete(key);
    },
  );
  return entry.run;
}

/** A snapshot in Orca's kept index of the tree (seeded on first use), one at a time per index in this process. */
function keptIndexSnapshot(dir: string, index: string, exclude: readonly string[]): Promise<string> {
  const options = { exclude, index };
  return oneAtATime(index, async () => {
    if (!(await exists(index))) {
      await seedIndex(dir, index, undefined);
      excludedFrom.delete(index); // seeded anew from the user's index: drop the excluded paths again
    }
    try {
      return await snapshotIn(dir, index, options);
    } catch (error) {
      if (!isLocked(error)) throw error;
      // Another process snapshots this tree right now (or one died holding the lock): work on a copy.
      await removeStaleLock(index);
      return withTemporaryIndex(async (temp) => {
        await copyFile(index, temp).catch(() => seedFromHead(dir, temp, undefined));
        return snapshotIn(dir, temp, { exclude });
      });
    }
  });
}

/** The shared run goes on for the others; this caller stops waiting when its signal aborts. */
function untilAborted<T>(run: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * `add -A`, drop the excluded paths, write the tree, commit it on HEAD. A kept index drops them once
 * in this process (they may come with the user's index it was seeded from); `add` never adds them again.
 */
async function snapshotIn(dir: string, indexFile: string | undefined, { exclude, signal, index, parent }: SnapshotOptions): Promise<string> {
  const env = indexFile ? { GIT_INDEX_FILE: indexFile } : undefined;
  const run = (args: string[], okCodes?: number[]) => git(args, { cwd: dir, ...(env ? { env } : {}), ...(signal ? { signal } : {}), ...(okCodes ? { okCodes } : {}) });
  // `top`: the paths are repository-relative wherever `dir` is; `literal`: a `*` in a name is a `*`.
  const pathspec = (path: string, magic = '') => `:(top,literal${magic})${path}`;
  // A path under a link git carries (a linked `.opencode/`) is never in a tree: git stores the link, and
  // refuses to be asked about anything beyond it.
  const reachable = unlinkedPaths(await toplevel(dir, signal), exclude);
  // HEAD is read beside the add (it takes no lock); an excluded path that git ignores makes add say so and
  // exit 1 once it added everything else: that is no failure here (asking first was one more git process).
  const [head] = await Promise.all([
    parent ?? run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], [0, 1]).then((r) => r.stdout.trim()),
    run(['-c', 'core.untrackedCache=true', 'add', '-A', '--', ':/', ...reachable.map((path) => pathspec(path, ',exclude'))], [0, 1]).then((added) => onlyIgnoredNamed(added, dir)),
  ]);
  const top = await toplevel(dir, signal);
  const file = indexFile ?? (await ownIndexFile(top));
  const oidBytes = head.length / 2;
  const readable = oidBytes === 20 || oidBytes === 32;
  // Also removes a state folder or include path the user committed (HEAD, or the user's index a kept
  // one was seeded from), or someone added in a slot. A kept index has them removed once in this process
  // (`add` never adds them); another is read for them first: a slot's rarely has any.
  const kept = index !== undefined && indexFile === index;
  let bytes = readable ? await readIndexFile(file) : undefined;
  if (reachable.length > 0 && (kept ? !excludedFrom.has(index) : !bytes || holdsAny(bytes, reachable, oidBytes) !== false)) {
    await run(['rm', '--cached', '-r', '-q', '-f', '--ignore-unmatch', '--', ...reachable.map((path) => pathspec(path))]);
    if (kept) excludedFrom.add(index);
    bytes = readable ? await readIndexFile(file) : undefined;
  }
  // Nothing changed since the index's tree was last written (its cache tree is valid, and git wrote that
  // tree in this process a moment ago): that tree, and the commit made of it on this parent, will do.
  // Known per working tree: another clone holds the same ids, not the same objects.
  const cached = bytes ? rootTreeOf(bytes, oidBytes) : undefined;
  const tree = (cached !== undefined ? recall(knownTrees, `${top}\0${cached}`) : undefined) ?? (await writeTree(run, top));
  const key = `${top}\0${tree}\0${head}`;
  let commit = recall(knownCommits, key);
  if (!commit) {
    commit = (await run(['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', 'Orca: snapshot of the working tree'])).stdout.trim();
    remember(knownCommits, key, commit);
  }
  remember(treesOfSnapshots, commit, tree);
  return commit;
}

/**
 * The tree of a snapshot this process made, when it still knows it: a commit's id names its tree, in
 * any repository. Two snapshots of one tree differ in nothing (diffCommits asks git nothing then).
 */
export function snapshotTree(commit: string): string | undefined {
  return treesOfSnapshots.get(commit)?.value;
}

async function writeTree(run: (args: string[]) => Promise<{ stdout: string }>, top: string): Promise<string> {
  const tree = (await run(['write-tree'])).stdout.trim();
  remember(knownTrees, `${top}\0${tree}`, tree);
  return tree;
}

/** The index file of the working tree whose top folder is `top`: `.git/index`, or a worktree's own. */
async function ownIndexFile(top: string): Promise<string> {
  const dotGit = join(top, '.git');
  const linked = await readFile(dotGit, 'utf8').catch(() => null);
  const gitdir = linked?.match(/^gitdir: (.+)$/m)?.[1]?.trim();
  return join(gitdir ? resolve(top, gitdir) : dotGit, 'index');
}

/** How many trees and commits are remembered (the oldest is forgotten first), and for how long. */
const KNOWN_LIMIT = 256;
const KNOWN_MS = 10 * 60_000;

function remember(known: Map<string, Known>, key: string, value: string): void {
  known.delete(key);
  known.set(key, { value, at: Date.now() });
  if (known.size > KNOWN_LIMIT) known.delete(known.keys().next().value!);
}

function recall(known: Map<string, Known>, key: string): string | undefined {
  const entry = known.get(key);
  return entry && Date.now() - entry.at <= KNOWN_MS ? entry.value : undefined;
}

/** git's first line when `add` was named paths it ignores (LC_ALL=C: git.ts), before the list of them. */
const IGNORED_NAMED = 'The following paths are ignored by one of your .gitignore files:';

/** `add` exited 1: fine when all it said is that excluded paths are ignored; anything else is its failure. */
function onlyIgnoredNamed(result: { code: number; stderr: string }, dir: string): void {
  if (result.code === 0) return;
  const lines = result.stderr.split('\n');
  if (lines[0] === IGNORED_NAMED && !lines.some((line) => /^(fatal|error):/.test(line))) return;
  throw new GitError(`git add -A failed (exit ${result.code}) in ${dir}: ${result.stderr.trim()}`, result.code, result.stderr);
}

/** The top folder of the working tree `dir` is in (asked of git once per folder). */
async function toplevel(dir: string, signal: AbortSignal | undefined): Promise<string> {
  const known = toplevels.get(dir);
  if (known) return known;
  const top = (await git(['rev-parse', '--show-toplevel'], { cwd: dir, ...(signal ? { signal } : {}) })).stdout.trim();
  toplevels.set(dir, top);
  return top;
}

/** The paths (from the top) none of whose parent folders is a link: git answers for those only. A few lstat calls, made at once. */
function unlinkedPaths(top: string, paths: readonly string[]): string[] {
  const isLink = (path: string) => {
    try {
      return lstatSync(join(top, path)).isSymbolicLink();
    } catch {
      return false;
    }
  };
  const linked = (path: string) =>
    path
      .split('/')
      .slice(0, -1)
      .some((_, i, parts) => isLink(parts.slice(0, i + 1).join('/')));
  return paths.filter((path) => !linked(path));
}

/**
 * A kept index starts as a copy of the user's (so git knows every tracked file's size and time
 * already, and a sparse checkout's skipped files stay as they are), or from HEAD when there is none.
 */
async function seedIndex(dir: string, index: string, signal: AbortSignal | undefined): Promise<void> {
  await mkdir(dirname(index), { recursive: true });
  const own = (await git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: dir, ...(signal ? { signal } : {}) })).stdout.trim();
  const partial = `${index}.${process.pid}.seed`;
  try {
    await copyFile(own, partial);
  } catch {
    await seedFromHead(dir, partial, signal);
  }
  // A rename: a crash while seeding leaves no half index behind.
  await rename(partial, index);
}

/** An index holding HEAD's tree (empty for a repository with no commit yet). */
async function seedFromHead(dir: string, indexFile: string, signal: AbortSignal | undefined): Promise<void> {
  const at = { cwd: dir, env: { GIT_INDEX_FILE: indexFile }, ...(signal ? { signal } : {}) };
  const head = (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ...at, okCodes: [0, 1] })).stdout.trim();
  await git(head ? ['read-tree', head] : ['read-tree', '--empty'], at);
}

async function withTemporaryIndex<T>(run: (index: string) => Promise<T>): Promise<T> {
  const temp = await mkdtemp(join(tmpdir(), 'orca-index-'));
  try {
    return await run(join(temp, 'index'));
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** git's `index.lock` beside a kept index, left by a process that died while snapshotting. */
const STALE_LOCK_MS = 60_000;
async function removeStaleLock(index: string): Promise<void> {
  const lock = `${index}.lock`;
  const found = await stat(lock).catch(() => null);
  if (found && Date.now() - found.mtimeMs > STALE_LOCK_MS) await unlink(lock).catch(() => {});
}

/** git met a lock beside an index: `<index>.lock` (Orca's kept indexes are named by a hash, not `index`). */
const isLocked = (error: unknown) => error instanceof GitError && /\.lock'?: File exists/.test(error.stderr);
const exists = (path: string) => stat(path).then(() => true, () => false);

/** One snapshot at a time per kept index in this process; another process meets git's lock. */
const oneAtATime = oneAtATimeIn(new Map());
const sharedTurns = new Map<string, { running: Promise<string>; next: Promise<string> | null }>();
const sharedNext = sharedNextIn<string>(sharedTurns);
/** The latest snapshot of each kept-index tree, and how often Orca wrote to each tree (touchTree). */
interface LatestSnapshot {
  run: Promise<string>;
  /** The tree's generation when it began. */
  generation: number;
  /** performance.now() when it was asked for (git read the tree then or later). */
  startedAt: number;
  /** performance.now() when it ended; null while it runs. */
  endedAt: number | null;
}
const latest = new Map<string, LatestSnapshot>();
/** The newest snapshot of each kept-index tree that ended (it may be older than the latest, still running). */
const ended = new Map<string, LatestSnapshot>();
const generations = new Map<string, number>();
/** Kept indexes the excluded paths were dropped from in this process. */
const excludedFrom = new Set<string>();
/**
 * Trees git wrote (write-tree also freshens one it had) and snapshot commits made, by tree and parent,
 * each in the working tree it was asked in: a snapshot of files unchanged since the last asks git for
 * neither again. For ten minutes: far younger than the loose objects git prunes (two weeks), which no
 * ref holds.
 */
interface Known {
  value: string;
  /** Date.now() when git made it (meeting it again does not renew it: git does not either). */
  at: number;
}
const knownTrees = new Map<string, Known>();
const knownCommits = new Map<string, Known>();
/** The tree of each snapshot commit made or met (snapshotTree), however old: an id does not change what it names. */
const treesOfSnapshots = new Map<string, Known>();
/** The top folder of each tree snapshotted (it does not move while the process runs). */
const toplevels = new Map<string, string>();
