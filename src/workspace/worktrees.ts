import { existsSync } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, realpath, rm, stat, symlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { StepWorkspace } from '../machines/types.js';
import { OrcaError } from '../errors.js';
import { git } from './git.js';
import { runSetup } from './setup.js';
import { excludedPaths, projectPath, snapshotCommit } from './snapshot.js';
import type { GitRepository } from './support.js';
import { writeFileAtomic } from './write-atomic.js';

/**
 * git's records of a repository's worktrees (`.git/worktrees/<name>`, named after the folder's last
 * part, `s1.1` for every plan's first step) are made and pruned without a lock: two `worktree add`
 * at once can pick the same name, and a prune can meet an add half done. One at a time per
 * repository in this process.
 */
const worktreeLocks = new Map<string, Promise<unknown>>();
function oneAtATime<T>(repo: GitRepository, run: () => Promise<T>): Promise<T> {
  const previous = worktreeLocks.get(repo.commonDir) ?? Promise.resolve();
  const next = previous.then(run, run);
  const settled = next.catch(() => {});
  worktreeLocks.set(repo.commonDir, settled);
  void settled.then(() => {
    if (worktreeLocks.get(repo.commonDir) === settled) worktreeLocks.delete(repo.commonDir);
  });
  return next;
}

/** Ten minutes: an `npm ci` on a cold cache. */
const DEFAULT_SETUP_TIMEOUT_MS = 600_000;

export interface OpenWorktreeOptions {
  planId: string;
  stepId: string;
  attempt: number;
  /** Project-relative paths git does not carry (`.env`, `node_modules`): a file is copied, a folder linked. */
  include: readonly string[];
  /** A shell command run in the worktree's project folder once it is made (`npm ci`). */
  setup?: string;
  setupTimeoutMs?: number;
  signal?: AbortSignal;
}

/** A step worktree Orca made, found in `git worktree list`. */
export interface OrcaWorktree {
  planId: string;
  stepId: string;
  attempt: number;
  path: string;
  /** Its folder matching the project directory: where the step's sessions ran. */
  dir: string;
  /** Bytes of its files, symlinks not followed (a linked `node_modules` costs nothing). */
  bytes: number;
}

/** `<worktrees>/<planId>/<stepId>.<attempt>`: one folder per attempt, so a rerun never meets an old tree. */
export function worktreeRoot(repo: GitRepository, planId: string, stepId: string, attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 0) throw new OrcaError(`Expected a step attempt as a whole number, got ${attempt}.`);
  return join(repo.worktrees, segment(planId, 'plan id'), `${segment(stepId, 'step id')}.${attempt}`);
}

/** Written once the worktree is complete (made, include list placed, setup run): the commit it started from. */
const baseFile = (root: string) => `${root}.base`;
/** Written by mergeStep before it removes a merged worktree: what landed, so a second call finds it. */
export const mergedFile = (root: string) => `${root}.merged.json`;

/**
 * The step's worktree, made from the user's tree as it is now; the same one again when it is
 * already complete (an open cut short by a crash is made anew: the step never started in it).
 * Each folder of the include list is a symlink to the user's own: whatever the step writes
 * through it (an `npm install`) changes the user's copy.
 */
export async function openWorktree(repo: GitRepository, options: OpenWorktreeOptions): Promise<StepWorkspace> {
  const { planId, stepId, attempt, include, setup, setupTimeoutMs = DEFAULT_SETUP_TIMEOUT_MS, signal } = options;
  const root = worktreeRoot(repo, planId, stepId, attempt);
  const workspace = (base: string): StepWorkspace => ({ kind: 'worktree', root, dir: join(root, repo.prefix), base });

  const recorded = await readFile(baseFile(root), 'utf8').catch(() => '');
  if (recorded && existsSync(join(root, '.git'))) return workspace(recorded.trim());
  if (existsSync(root)) await removeWorktree(repo, root, signal);
  await rm(baseFile(root), { force: true });

  const exclude = excludedPaths(repo.prefix, include);
  const start = await snapshotCommit(repo.toplevel, { exclude, ...(signal ? { signal } : {}) });
  await mkdir(dirname(root), { recursive: true });
  // -f: the path may still be registered from a worktree deleted by hand.
  await oneAtATime(repo, () => git(['worktree', 'add', '-f', '--detach', '--quiet', root, start], { cwd: repo.toplevel, ...(signal ? { signal } : {}) }));
  await placeIncluded(repo, root, include);
  let base = start;
  if (setup) {
    await runSetup({
      command: setup,
      cwd: join(root, repo.prefix),
      timeoutMs: setupTimeoutMs,
      env: { ORCA_PLAN_ID: planId, ORCA_STEP_ID: stepId, ORCA_ATTEMPT: String(attempt) },
      ...(signal ? { signal } : {}),
    });
    // What the setup wrote (a lockfile `npm install` rewrote, a build) is not the step's change: it never lands.
    base = await snapshotCommit(root, { exclude, ...(signal ? { signal } : {}) });
    // The worktree's own HEAD and index (never the user's): `git status` there shows the step's changes
    // only, and the base stays reachable, so `git gc` keeps it.
    await git(['reset', '-q', base], { cwd: root, ...(signal ? { signal } : {}) });
  }
  await writeFileAtomic(baseFile(root), base);
  return workspace(base);
}

/** A path of the include list missing in the user's project is skipped: there is nothing to bring. */
async function placeIncluded(repo: GitRepository, root: string, include: readonly string[]): Promise<void> {
  const inside = `${await realpath(root)}${sep}`;
  for (const path of include.map(projectPath)) {
    const source = join(repo.toplevel, repo.prefix, path);
    const target = join(root, repo.prefix, path);
    const found = await stat(source).catch(() => null);
    if (!found) continue;
    await mkdir(dirname(target), { recursive: true });
    // Under a folder already linked (`node_modules` then `node_modules/.cache`): it is the user's, leave it.
    if (!`${await realpath(dirname(target))}${sep}`.startsWith(inside)) continue;
    await rm(target, { recursive: true, force: true });
    if (found.isDirectory()) await symlink(source, target, 'dir');
    else await copyFile(source, target);
  }
}

/**
 * Removes a worktree and git's record of it; a worktree already gone or half deleted is fine.
 * Neither git nor fs.rm follows a symlink, so a linked `node_modules` stays.
 */
export async function removeWorktree(repo: GitRepository, root: string, signal?: AbortSignal): Promise<void> {
  const at = { cwd: repo.toplevel, ...(signal ? { signal } : {}) };
  await oneAtATime(repo, async () => {
    try {
      // Twice: also when locked (a `worktree add` cut short leaves it locked).
      await git(['worktree', 'remove', '--force', '--force', root], at);
    } catch {
      await rm(root, { recursive: true, force: true });
      await git(['worktree', 'prune'], at);
    }
  });
  await rm(baseFile(root), { force: true });
}

/** Every worktree of a plan and the merge records beside them. */
export async function removePlanWorktrees(repo: GitRepository, planId: string, signal?: AbortSignal): Promise<void> {
  const folder = join(repo.worktrees, segment(planId, 'plan id'));
  for (const worktree of await listWorktrees(repo, signal)) {
    if (worktree.planId === planId) await removeWorktree(repo, worktree.path, signal);
  }
  await rm(folder, { recursive: true, force: true });
}

/** Orca's worktrees of this repository, as git lists them. */
export async function listWorktrees(repo: GitRepository, signal?: AbortSignal): Promise<OrcaWorktree[]> {
  const listed = await git(['worktree', 'list', '--porcelain', '-z'], { cwd: repo.toplevel, ...(signal ? { signal } : {}) });
  const found: OrcaWorktree[] = [];
  for (const field of listed.stdout.split('\0')) {
    if (!field.startsWith('worktree ')) continue;
    const path = field.slice('worktree '.length);
    if (!path.startsWith(repo.worktrees + sep)) continue;
    const [planId, name, ...rest] = relative(repo.worktrees, path).split(sep);
    const named = /^(.+)\.(\d+)$/.exec(name ?? '');
    if (!planId || !named || rest.length > 0) continue;
    found.push({ planId, stepId: named[1]!, attempt: Number(named[2]), path, dir: join(path, repo.prefix), bytes: await diskBytes(path) });
  }
  return found;
}

/** Sizes of the files under `dir`, symlinks counted as links; 0 for a folder already gone. */
export async function diskBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let bytes = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += await diskBytes(path);
    else bytes += (await lstat(path).catch(() => null))?.size ?? 0;
  }
  return bytes;
}

/** Ids become folder names: one plain name each. */
function segment(id: string, what: string): string {
  if (!id || id === '.' || id === '..' || /[/\\\0]/.test(id)) throw new OrcaError(`Expected a ${what} usable as a folder name, got ${JSON.stringify(id)}.`);
  return id;
}
