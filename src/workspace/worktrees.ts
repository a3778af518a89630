import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, lstat, mkdir, readdir, readFile, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { StepWorkspace } from '../machines/types.js';
import { OrcaError } from '../errors.js';
import { git } from './git.js';
import { oneAtATimeIn } from './one-at-a-time.js';
import { runSetup } from './setup.js';
import { excludedPaths, snapshotCommit, userIndexPath } from './snapshot.js';
import type { GitRepository } from './support.js';
import { writeFileAtomic } from './write-atomic.js';
import { hiddenOpencodeConfig, placeIncluded, placeOpencodeConfig, type HiddenConfig } from './slot-placement.js';

/**
 * A step's worktree is a **slot**: a git worktree of the repository, `<worktrees>/slots/<n>`, kept
 * from one step to the next and reset to each step's start, so OpenCode's instance for that folder
 * (which takes seconds to start) stays warm and only the files that differ are written. A slot is
 * held by one step at a time through its claim, `<n>.claim.json` beside it, made with a hard link so
 * two processes can never both take it; the claim names the plan, step and attempt, and once the
 * slot is ready the commit it was reset to. A restart finds a step's slot by its claim; a claim goes
 * once the step's changes landed, or when its plan leaves `in_progress`.
 *
 * A slot given back holds nothing of its step for long: it is marked (`<n>.last-step.json`) as it is
 * given back, and reset to the user's last commit once free (resetFreeSlot, under a claim of its own),
 * off the step's way. Every slot is locked in git with a reason that says what it is and what removes
 * it, so `git worktree list -v` explains it and `git worktree prune` leaves it.
 */

/** What `git worktree list -v` says of each slot (its lock's reason): whose it is and what removes it. */
export const SLOT_LOCK_REASON = "Orca's warm slot for plan steps (opencode-orca-statecharts); remove with: orca prune --slots";

/**
 * git's records of a repository's worktrees (`.git/worktrees/<name>`) are made and pruned without
 * a lock: two `worktree add` at once can pick the same name, and a prune can meet an add half done.
 * One at a time per repository in this process; the choice of a slot too.
 */
const oneAtATime = oneAtATimeIn(new Map());

/** Ten minutes: an `npm ci` on a cold cache. */
const DEFAULT_SETUP_TIMEOUT_MS = 600_000;

export interface OpenWorktreeOptions {
  planId: string;
  stepId: string;
  attempt: number;
  /** Project-relative paths git does not carry (`.env`, `node_modules`): a file is copied, a folder linked. */
  include: readonly string[];
  /** A shell command run in the slot's project folder once, when the slot is made (`npm ci`). */
  setup?: string;
  setupTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Slots in all, held or free, above which a step waits for one to be given back rather than make
   * another (each is a worktree and an OpenCode instance: seconds of CPU and ~100 MiB). Absent: no cap.
   */
  maxSlots?: number;
  /** How long a step waits for a slot while all are held (by steps waiting at a gate, say) before it makes one more. */
  slotWaitMs?: number;
  /** Where a step that waited, or made a slot beyond the cap, is said. */
  log?: (level: 'info' | 'warn', message: string) => void;
  /** Told `true` when the step starts to wait for a slot (all held), `false` once it holds one after waiting. */
  onWait?: (waiting: boolean) => void;
  /** The commit to reset the slot to (the checks on a plan's base); absent: the user's tree as it is now. */
  start?: string;
}

/** A minute: steps that hold every slot are waiting at a gate, not about to give one back. */
const DEFAULT_SLOT_WAIT_MS = 60_000;
/** How often a waiting step looks again for a slot given back by another process (this one wakes it at once). */
const SLOT_POLL_MS = 1_000;

/** Who holds a slot, written in its claim. */
export interface SlotClaim {
  /** '' while Orca itself works on the slot (`step_id` says at what: SlotWork). */
  plan_id: string;
  step_id: string;
  attempt: number;
  /** The commit the slot was reset to for this attempt; null while it is being reset. */
  base: string | null;
  /** Orca's own work (plan_id ''): the process doing it, so that a claim its process left when it died can be told (isStaleClaim). */
  pid?: number;
  host?: string;
  /** Tells this process from an earlier one that had the same pid (a container's OpenCode often does). */
  run?: string;
}

/** What Orca does with a slot under a claim of its own (`step_id` of a claim with no plan). */
export type SlotWork = 'prepare' | 'reset' | 'remove';

/** A slot on disk, with its claim when a step holds it. */
export interface OrcaWorktree {
  /** The slot's number. */
  slot: number;
  path: string;
  /** Its folder matching the project directory: where the step's sessions run. */
  dir: string;
  claim: SlotClaim | null;
  /** Bytes of its files, symlinks not followed (a linked `node_modules` costs nothing). */
  bytes: number;
  /** The reason git keeps it locked for (SLOT_LOCK_REASON; '' locked without one); null when not locked (made by a version before locks). */
  locked: string | null;
  /** A free slot given back and not reset yet: the step whose files it still holds. */
  lastStep: { plan_id: string; step_id: string } | null;
}

export const slotsFolder = (repo: GitRepository) => join(repo.worktrees, 'slots');
export const slotRoot = (repo: GitRepository, slot: number) => join(slotsFolder(repo), String(slot));
const claimFile = (root: string) => `${root}.claim.json`;
/** Beside a slot given back until it is reset: the step whose files it holds. */
const lastStepFile = (root: string) => `${root}.last-step.json`;

const RUN = randomBytes(6).toString('hex');
const HOST = hostname();
const orcaClaim = (work: SlotWork): SlotClaim => ({ plan_id: '', step_id: work, attempt: 0, base: null, pid: process.pid, host: HOST, run: RUN });

/**
 * A claim Orca made for its own work on a slot (SlotWork), left by a process of this machine that is
 * gone (killed while it reset the slot, say): nothing will ever end it. A step's claim never is: its
 * plan resumes in the same slot, with the step's work in it. Without a process named (a claim of an
 * older version, or one damaged outside Orca), nothing tells: not stale.
 */
export function isStaleClaim(claim: SlotClaim | null): boolean {
  if (!claim || claim.plan_id !== '' || claim.pid === undefined || claim.host !== HOST) return false;
  if (claim.pid === process.pid) return claim.run !== RUN;
  try {
    process.kill(claim.pid, 0);
    return false;
  } catch (error) {
    // EPERM: a process of another user has that pid; alive.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Where a step attempt's landing is recorded (it outlives the slot's use): `<worktrees>/<planId>/<stepId>.<attempt>.merged.json`. */
export function mergedFile(repo: GitRepository, planId: string, stepId: string, attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 0) throw new OrcaError(`Expected a step attempt as a whole number, got ${attempt}.`);
  return join(repo.worktrees, segment(planId, 'plan id'), `${segment(stepId, 'step id')}.${attempt}.merged.json`);
}

/**
 * A slot for the step attempt, reset to the user's tree as it is now (plus the include list, and the
 * project folder made when git carries nothing of it); the same slot as it is when this attempt
 * already holds it ready (a restart: the step's work in it is kept). A slot the step held for an
 * earlier attempt is reset for this one. Otherwise a free slot is taken, or a new one made.
 */
export async function openWorktree(repo: GitRepository, options: OpenWorktreeOptions): Promise<StepWorkspace> {
  const { planId, stepId, attempt, include, signal } = options;
  const claim = await claimSlot(repo, options);
  const root = slotRoot(repo, claim.slot);
  const workspace = (base: string): StepWorkspace => ({ kind: 'worktree', root, dir: join(root, repo.prefix), base });
  if (claim.held?.attempt === attempt && claim.held.base && existsSync(join(root, '.git'))) return workspace(claim.held.base);

  await writeClaim(root, { plan_id: planId, step_id: stepId, attempt, base: null });
  const exclude = excludedPaths(repo.prefix, include);
  const made = existsSync(join(root, '.git'));
  // A made slot loses what the last step added while the user's tree is read (see resetSlot).
  const cleaned = made ? cleanSlot(repo, root, signal) : Promise.resolve();
  // What git hides of the project's OpenCode config, placed after the reset: read from the user's tree meanwhile.
  const hidden = made ? hiddenOpencodeConfig(repo, signal) : undefined;
  for (const running of [cleaned, hidden]) running?.catch(() => {}); // awaited below, once the snapshot is taken
  // The user's tree as the step finds it: a snapshot running as it asks (steps starting at once), with nothing landed since, will do.
  const start = options.start ?? (await snapshotCommit(repo.toplevel, { exclude, index: userIndexPath(repo), recentMs: 0, ...(signal ? { signal } : {}) }));
  await cleaned;
  const base = made ? await resetSlot(repo, root, start, include, signal, hidden) : await makeSlot(repo, root, start, options);
  await writeClaim(root, { plan_id: planId, step_id: stepId, attempt, base });
  return workspace(base);
}

/**
 * The slot this step holds (with its claim), else a free one claimed for it, else a new one; at
 * `maxSlots` slots, all held, it waits for one given back, first come first served in this process,
 * and after `slotWaitMs` makes one more.
 */
async function claimSlot(repo: GitRepository, options: OpenWorktreeOptions): Promise<{ slot: number; held?: SlotClaim }> {
  const { planId, stepId, maxSlots, signal, log, onWait } = options;
  const since = performance.now();
  const waitUntil = since + (options.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS);
  let waiter: SlotWaiter | undefined;
  try {
    for (;;) {
      const overCap = maxSlots !== undefined && performance.now() < waitUntil ? maxSlots : Infinity;
      const claimed = await oneAtATime(repo.commonDir, async () => {
        for (;;) {
          const slots = await readSlots(repo);
          const held = slots.find((s) => s.claim?.plan_id === planId && s.claim.step_id === stepId);
          if (held) return { slot: held.slot, held: held.claim! };
          const free = slots.filter((s) => !s.claim && s.made).map((s) => s.slot);
          // A slot this process is resetting is free in a moment: waited for, rather than a slot made anew (seconds, and an OpenCode instance).
          const resetting = free.length === 0 ? slots.map((s) => resetsInFlight.get(slotRoot(repo, s.slot))).find(Boolean) : undefined;
          if (resetting) return { resetting };
          const used = new Set(slots.map((s) => s.slot));
          const next = slots.length < overCap ? [...free, firstUnused(used)] : free;
          if (next.length === 0) return null;
          for (const slot of next) {
            // A hard link fails when the claim exists: only one process ever takes a slot.
            if (await createClaim(slotRoot(repo, slot), { plan_id: planId, step_id: stepId, attempt: 0, base: null })) return { slot };
          }
        }
      });
      if (claimed && 'resetting' in claimed) {
        await claimed.resetting;
        continue;
      }
      if (claimed) {
        if (waiter) onWait?.(false);
        if (waiter && overCap === Infinity) log?.('warn', `Step ${stepId} waited ${((performance.now() - since) / 1000).toFixed(1)} s for one of the ${maxSlots} worktree slots, all held by steps waiting at a gate, and made one more.`);
        return claimed;
      }
      if (!waiter) {
        log?.('info', `Step ${stepId} waits for a worktree slot: all ${maxSlots} are held.`);
        onWait?.(true);
        waiter = joinSlotQueue(repo.commonDir);
      }
      const left = Math.max(0, waitUntil - performance.now());
      // The first in line also looks every second (for a slot another process gave back); the others wait to be woken, or for their own minute.
      await slotGivenBack(waiter, isFirstInLine(repo.commonDir, waiter) ? Math.min(SLOT_POLL_MS, left) : left, signal);
    }
  } finally {
    if (waiter) leaveSlotQueue(repo.commonDir, waiter);
  }
}

/** A step of this process waiting for a slot: `wake` ends its current wait. */
interface SlotWaiter {
  wake: () => void;
}

/**
 * Steps of this process waiting for a slot, per repository (its common git folder), in the order they
 * asked. A slot given back wakes the first in line only: all of them looking at once cost each a read
 * of every claim for one slot (eight plans of twelve steps on four slots: about a second of OpenCode's
 * thread, measured by bench/probes/opencode-profile.ts with S8=1).
 */
const slotQueues = new Map<string, SlotWaiter[]>();

function joinSlotQueue(key: string): SlotWaiter {
  const waiter: SlotWaiter = { wake: () => {} };
  slotQueues.set(key, [...(slotQueues.get(key) ?? []), waiter]);
  return waiter;
}

/** The waiter got a slot (or gave up): the next in line looks now, as another slot may be free, and is first from now on. */
function leaveSlotQueue(key: string, waiter: SlotWaiter): void {
  const rest = (slotQueues.get(key) ?? []).filter((w) => w !== waiter);
  if (rest.length === 0) slotQueues.delete(key);
  else slotQueues.set(key, rest);
  rest[0]?.wake();
}

const isFirstInLine = (key: string, waiter: SlotWaiter) => slotQueues.get(key)?.[0] === waiter;

/** Resolves when the waiter is woken (a slot given back in this process), after `ms` (another process may have given one back, or its wait is over), or rejects on abort. */
function slotGivenBack(waiter: SlotWaiter, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      waiter.wake = () => {};
      signal?.removeEventListener('abort', onAbort);
    };
    const done = () => {
      stop();
      resolve();
    };
    const onAbort = () => {
      stop();
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    waiter.wake = done;
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `count` slots of the repository were given back (or made): as many steps first in line look. */
const wakeSlotWaiters = (repo: GitRepository, count = 1) => (slotQueues.get(repo.commonDir) ?? []).slice(0, count).forEach((w) => w.wake());

const firstUnused = (used: ReadonlySet<number>) => {
  let n = 1;
  while (used.has(n)) n++;
  return n;
};

interface SlotOnDisk {
  slot: number;
  /** A worktree is there (its `.git` file). */
  made: boolean;
  claim: SlotClaim | null;
}

async function readSlots(repo: GitRepository): Promise<SlotOnDisk[]> {
  const names = await readdir(slotsFolder(repo)).catch(() => [] as string[]);
  const numbers = new Set<number>();
  for (const name of names) {
    const found = /^([1-9][0-9]*)(\.claim\.json)?$/.exec(name);
    if (found) numbers.add(Number(found[1]));
  }
  return Promise.all(
    [...numbers].sort((a, b) => a - b).map(async (slot) => {
      const root = slotRoot(repo, slot);
      return { slot, made: existsSync(join(root, '.git')), claim: await readClaim(root) };
    }),
  );
}

async function readClaim(root: string): Promise<SlotClaim | null> {
  const text = await readFile(claimFile(root), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const claim = JSON.parse(text) as SlotClaim;
    if (typeof claim.plan_id === 'string' && typeof claim.step_id === 'string') return claim;
  } catch {
    // Written by rename or link, never in place: an unreadable claim was damaged outside Orca.
  }
  // Kept as held by nobody in particular: never taken, never reset, until the plans end (removePlanSlots).
  return { plan_id: '', step_id: '', attempt: 0, base: null };
}

async function createClaim(root: string, claim: SlotClaim): Promise<boolean> {
  await mkdir(dirname(root), { recursive: true });
  const temp = `${claimFile(root)}.${process.pid}.${Date.now()}`;
  await writeFile(temp, JSON.stringify(claim));
  try {
    await link(temp, claimFile(root));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
}

const writeClaim = (root: string, claim: SlotClaim) => writeFileAtomic(claimFile(root), JSON.stringify(claim));

/** A new slot at `start`: a detached worktree, the include list placed, the setup command run. */
async function makeSlot(repo: GitRepository, root: string, start: string, options: OpenWorktreeOptions): Promise<string> {
  const { planId, stepId, attempt, include, setup, setupTimeoutMs = DEFAULT_SETUP_TIMEOUT_MS, signal } = options;
  const at = { cwd: repo.toplevel, ...(signal ? { signal } : {}) };
  await oneAtATime(repo.commonDir, async () => {
    // A folder left by a make cut short, or a slot deleted by hand that git still lists.
    if (existsSync(root)) await removeSlotTree(repo, root, signal);
    // -f twice: the path may still be registered (and locked) from a slot deleted by hand. Locked as it is made: never a moment git would prune it.
    await git(['worktree', 'add', '-f', '-f', '--detach', '--quiet', '--lock', '--reason', SLOT_LOCK_REASON, root, start], at);
    await unlink(lastStepFile(root)).catch(() => {}); // of a slot that was here before
  });
  await placeIncluded(repo, root, include);
  await placeOpencodeConfig(repo, root, signal);
  await mkdir(join(root, repo.prefix), { recursive: true });
  if (!setup) return start;
  await runSetup({
    command: setup,
    cwd: join(root, repo.prefix),
    timeoutMs: setupTimeoutMs,
    env: { ORCA_PLAN_ID: planId, ORCA_STEP_ID: stepId, ORCA_ATTEMPT: String(attempt) },
    ...(signal ? { signal } : {}),
  });
  // What the setup wrote (a lockfile `npm install` rewrote, a build) is not the step's change: it never lands.
  const base = await snapshotCommit(root, { exclude: excludedPaths(repo.prefix, include), own: true, ...(signal ? { signal } : {}) });
  // The slot's own HEAD and index (never the user's): `git status` there shows the step's changes only.
  await git(['reset', '-q', base], { cwd: root, ...(signal ? { signal } : {}) });
  return base;
}

/**
 * A slot's files that git does not track at its base and does not ignore (what its last step added)
 * removed, before the slot is reset (resetSlot): this needs no knowledge of the next start, so it runs
 * while the user's tree is read. What the reset then finds untracked is what its start has: a file
 * git writes back. What .gitignore hides (a `node_modules` the setup installed, build output) stays.
 * Run from the project folder: git (2.35 on) never removes the directory it runs in, so the folder
 * stays, also when git carries nothing of it (an empty new package, which `clean` would remove and the
 * reset make again): OpenCode's instance for it, maybe in a warm-up turn right now, would meet it gone
 * ("Unexpected server error").
 */
async function cleanSlot(repo: GitRepository, root: string, signal: AbortSignal | undefined): Promise<void> {
  const folder = join(root, repo.prefix);
  await mkdir(folder, { recursive: true });
  // `:/`: the whole slot, not only the folder git runs in.
  await git(['-c', 'core.untrackedCache=true', 'clean', '-ffdq', '--', ':/'], { cwd: folder, ...(signal ? { signal } : {}) });
}

/**
 * A cleaned slot (cleanSlot) brought to `start` for its next step: git rewrites only the files that
 * differ and removes the tracked ones `start` has not; the include list is placed again from the
 * user's copies, and the OpenCode config git hides (`hidden`, when it was read meanwhile).
 */
async function resetSlot(repo: GitRepository, root: string, start: string, include: readonly string[], signal: AbortSignal | undefined, hidden?: Promise<HiddenConfig>): Promise<string> {
  const folder = join(root, repo.prefix);
  await mkdir(folder, { recursive: true });
  await git(['reset', '-q', '--hard', start], { cwd: folder, ...(signal ? { signal } : {}) });
  await placeIncluded(repo, root, include);
  await placeOpencodeConfig(repo, root, signal, hidden ? await hidden : undefined);
  return start;
}

export interface PrepareOptions {
  include: readonly string[];
  setup?: string;
  setupTimeoutMs?: number;
  signal?: AbortSignal;
  /** Slots in all (held or free) it never goes beyond: with that many, the free ones are all it gives. */
  maxSlots?: number;
}

/**
 * Makes free slots until `count` are there, at the user's tree as it is now, so the steps that come
 * find them made (each still resets its slot to its own start); returns the roots of `count` free
 * slots (fewer when steps took some meanwhile). A slot being made is claimed by nobody's step
 * (`step_id` "prepare") until it is ready.
 */
export async function prepareSlots(repo: GitRepository, count: number, { include, setup, setupTimeoutMs, signal, maxSlots = Infinity }: PrepareOptions): Promise<string[]> {
  for (;;) {
    const root = await oneAtATime(repo.commonDir, async () => {
      const slots = await readSlots(repo);
      // One this process is resetting counts as free: it is, in a moment.
      const free = slots.filter((s) => s.made && (!s.claim || resetsInFlight.has(slotRoot(repo, s.slot))));
      if (free.length >= count || slots.length >= maxSlots) return free.slice(0, count).map((s) => slotRoot(repo, s.slot));
      const used = new Set(slots.map((s) => s.slot));
      for (let slot = firstUnused(used); ; slot = firstUnused(used.add(slot))) {
        if (await createClaim(slotRoot(repo, slot), orcaClaim('prepare'))) return slotRoot(repo, slot);
      }
    });
    if (Array.isArray(root)) return root;
    try {
      const start = await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), index: userIndexPath(repo), recentMs: 0, ...(signal ? { signal } : {}) });
      await makeSlot(repo, root, start, { planId: '', stepId: 'prepare', attempt: 0, include, ...(setup ? { setup } : {}), ...(setupTimeoutMs ? { setupTimeoutMs } : {}), ...(signal ? { signal } : {}) });
    } finally {
      await unlink(claimFile(root)).catch(() => {});
      wakeSlotWaiters(repo);
    }
  }
}

/**
 * The step's slot goes back to the pool, marked as holding the step's files until it is reset
 * (resetFreeSlot, once it stays free; or by the next step that takes it).
 */
export async function releaseSlot(repo: GitRepository, root: string, planId: string, stepId: string): Promise<void> {
  const claim = await readClaim(root);
  if (claim?.plan_id === planId && claim.step_id === stepId) await giveBack(root, claim);
  wakeSlotWaiters(repo);
}

/** The mark first: a free slot without one holds nothing of a step. */
async function giveBack(root: string, claim: SlotClaim): Promise<void> {
  await writeFile(lastStepFile(root), JSON.stringify({ plan_id: claim.plan_id, step_id: claim.step_id }));
  await unlink(claimFile(root)).catch(() => {});
}

/** Every slot a plan's steps hold goes back to the pool, and the plan's landing records go. */
export async function releasePlanSlots(repo: GitRepository, planId: string): Promise<string[]> {
  const released: string[] = [];
  for (const slot of await readSlots(repo)) {
    if (slot.claim?.plan_id !== planId) continue;
    const root = slotRoot(repo, slot.slot);
    await giveBack(root, slot.claim);
    released.push(root);
  }
  if (released.length > 0) wakeSlotWaiters(repo, released.length);
  // Also what versions before slots kept there: a worktree per step attempt (git forgets it by a prune).
  const folder = join(repo.worktrees, segment(planId, 'plan id'));
  if (existsSync(folder)) {
    await rm(folder, { recursive: true, force: true });
    await oneAtATime(repo.commonDir, () => git(['worktree', 'prune'], { cwd: repo.toplevel }));
  }
  return released;
}

/**
 * Free slots beyond `keep` are removed, the highest first (with their worktree and git's record of
 * it); returns their project folders, whose OpenCode instances can go too. Slots steps hold do not
 * count: while many plans run, a slot given back stays for the next step (removing it because many
 * are held made that step start a new worktree and instance, slot after slot).
 */
export async function trimSlots(repo: GitRepository, keep: number, prefix = repo.prefix): Promise<string[]> {
  const slots = await readSlots(repo);
  const free = slots.filter((s) => !s.claim).reverse();
  const extra = Math.max(0, free.length - keep);
  const removed: string[] = [];
  for (const slot of free.slice(0, extra)) {
    const root = slotRoot(repo, slot.slot);
    // Claimed while removing (another process): it stays.
    if (!(await createClaim(root, orcaClaim('remove')))) continue;
    await removeClaimedSlot(repo, root);
    removed.push(join(root, prefix));
  }
  return removed;
}

/** A slot this process claimed, removed: its worktree, git's record, its mark and then its claim. */
async function removeClaimedSlot(repo: GitRepository, root: string): Promise<void> {
  try {
    await oneAtATime(repo.commonDir, () => removeSlotTree(repo, root));
    await unlink(lastStepFile(root)).catch(() => {});
  } finally {
    await unlink(claimFile(root)).catch(() => {});
  }
}

/**
 * Removes a worktree and git's record of it; a worktree already gone or half deleted is fine.
 * Neither git nor fs.rm follows a symlink, so a linked `node_modules` stays.
 */
async function removeSlotTree(repo: GitRepository, root: string, signal?: AbortSignal): Promise<void> {
  const at = { cwd: repo.toplevel, ...(signal ? { signal } : {}) };
  try {
    // Twice: also when locked (every slot is, and a `worktree add` cut short leaves one locked).
    await git(['worktree', 'remove', '--force', '--force', root], at);
  } catch {
    await rm(root, { recursive: true, force: true });
    // A prune leaves a locked record alone.
    await git(['worktree', 'unlock', root], { ...at, okCodes: [0, 128] });
    await git(['worktree', 'prune'], at);
  }
}

/**
 * Resets of free slots running in this process, by slot root: a step that finds no other slot free
 * waits for one (claimSlot), and a count of free slots includes them (prepareSlots). Never rejects.
 */
const resetsInFlight = new Map<string, Promise<unknown>>();

/**
 * A free slot reset to the user's last commit (HEAD; an empty tree before the first commit): it then
 * holds nothing of any step, and `git status` there is clean. What the last step added is removed as
 * for a step (cleanSlot), then git rewrites the files that differ; what .gitignore hides (a setup's
 * `node_modules`, the include list, the placed OpenCode config) stays, as it does between steps. Done
 * under a claim of its own (`reset`), so no step takes the slot meanwhile; a step that found it first
 * keeps it (false: the step resets it for itself). A slot made by a version before locks is locked.
 * The next step's reset rewrites what your tree has beyond HEAD: only those files.
 */
export function resetFreeSlot(repo: GitRepository, root: string): Promise<boolean> {
  const running = resetsInFlight.get(root);
  if (running) return running.then(() => false);
  const reset = (async () => {
    // One at a time with the choice of a slot: a step never sees it free and then loses it to the reset.
    const claimed = await oneAtATime(repo.commonDir, async () => existsSync(join(root, '.git')) && (await createClaim(root, orcaClaim('reset'))));
    if (!claimed) return false;
    try {
      await resetClaimedSlot(repo, root);
      return true;
    } finally {
      await unlink(claimFile(root)).catch(() => {});
      wakeSlotWaiters(repo);
    }
  })();
  const settled = reset.catch(() => false);
  resetsInFlight.set(root, settled);
  void settled.then(() => resetsInFlight.delete(root));
  return reset;
}

async function resetClaimedSlot(repo: GitRepository, root: string): Promise<void> {
  const [neutral] = await Promise.all([neutralCommit(repo), cleanSlot(repo, root, undefined)]);
  // From the project folder, as resetSlot: the folder stays, also when HEAD holds nothing of it.
  await git(['reset', '-q', '--hard', neutral], { cwd: join(root, repo.prefix) });
  await lockSlot(repo, root);
  await unlink(lastStepFile(root)).catch(() => {});
}

/** The user's HEAD, or before the first commit a commit of the empty tree. */
async function neutralCommit(repo: GitRepository): Promise<string> {
  const at = { cwd: repo.toplevel };
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { ...at, okCodes: [0, 1] });
  if (head.code === 0) return head.stdout.trim();
  const empty = (await git(['mktree'], { ...at, input: '' })).stdout.trim();
  return (await git(['commit-tree', empty, '-m', 'Orca: nothing (the repository has no commit yet)'], at)).stdout.trim();
}

/** Locks a slot made before slots were locked (SLOT_LOCK_REASON); one already locked is left as it is. */
export async function lockSlot(repo: GitRepository, root: string): Promise<void> {
  if ((await lockOf(root)) !== null) return;
  // 128: locked meanwhile, or no longer a worktree.
  await git(['worktree', 'lock', '--reason', SLOT_LOCK_REASON, root], { cwd: repo.toplevel, okCodes: [0, 128] });
}

/** A worktree's lock reason from git's record of it (`<git dir>/worktrees/<name>/locked`), '' without one; null when not locked. */
async function lockOf(root: string): Promise<string | null> {
  const pointer = await readFile(join(root, '.git'), 'utf8').catch(() => null);
  const gitDir = pointer && /^gitdir: (.+)$/m.exec(pointer)?.[1]?.trim();
  if (!gitDir) return null;
  return readFile(join(gitDir, 'locked'), 'utf8').then(
    (reason) => reason.trim(),
    () => null,
  );
}

/**
 * What is left to do on this repository's slots after a process died, or a version before this one
 * ran: a slot Orca's own claim holds though its process is gone (isStaleClaim) is taken back (reset
 * when it was being reset; removed otherwise: a slot cut short while it was made or removed); a slot
 * made before locks is locked. Returns the free slots that still hold a step's files (marked as
 * given back), for the caller to reset (resetFreeSlot) when nothing waits on the machine.
 */
export async function recoverSlots(repo: GitRepository): Promise<string[]> {
  const toReset: string[] = [];
  for (const slot of await readSlots(repo)) {
    const root = slotRoot(repo, slot.slot);
    if (isStaleClaim(slot.claim)) {
      const work = slot.claim!.step_id;
      if (!(await takeClaim(root, slot.claim!, orcaClaim(work === 'reset' ? 'reset' : 'remove')))) continue;
      if (work === 'reset' && slot.made) {
        await unlink(claimFile(root)).catch(() => {});
        toReset.push(root);
      } else await removeClaimedSlot(repo, root);
      continue;
    }
    if (slot.claim || !slot.made) continue;
    await lockSlot(repo, root);
    if (existsSync(lastStepFile(root))) toReset.push(root);
  }
  return toReset;
}

/** Free slots that still hold a step's files (given back, not reset yet). */
export async function slotsToReset(repo: GitRepository): Promise<string[]> {
  return (await readSlots(repo)).filter((s) => !s.claim && s.made && existsSync(lastStepFile(slotRoot(repo, s.slot)))).map((s) => slotRoot(repo, s.slot));
}

/**
 * Replaces a claim nobody will end (`seen`, read a moment ago: its process is gone, or its plan ended)
 * by `mine`. The claim is moved aside first (one process only can), and put back when it is not the
 * one seen (a live one made meanwhile).
 */
async function takeClaim(root: string, seen: SlotClaim, mine: SlotClaim): Promise<boolean> {
  const file = claimFile(root);
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch {
    return false; // taken back by another process, or given up meanwhile
  }
  const moved = await readFile(aside, 'utf8').then((text) => JSON.parse(text) as SlotClaim, () => null);
  const same = (['plan_id', 'step_id', 'attempt', 'pid', 'run'] as const).every((key) => moved?.[key] === seen[key]);
  if (!same) {
    await link(aside, file).catch(() => {});
    await unlink(aside).catch(() => {});
    return false;
  }
  await unlink(aside).catch(() => {});
  return createClaim(root, mine);
}

/**
 * Removes a slot `orca prune --slots` found free, held by a claim its process left (isStaleClaim), or
 * (`planEnded`, which the caller knows from the plan's file) held by a step of a plan that ended: its
 * worktree (locked or not), git's record and its folder, under a claim of its own. False when it is
 * no longer so (a step took it meanwhile: it stays).
 */
export async function removeSlot(repo: GitRepository, slot: Pick<OrcaWorktree, 'path' | 'claim'>, { planEnded = false }: { planEnded?: boolean } = {}): Promise<boolean> {
  const root = slot.path;
  const mine = orcaClaim('remove');
  const nobodys = slot.claim !== null && (isStaleClaim(slot.claim) || (planEnded && slot.claim.plan_id !== ''));
  const claimed = slot.claim === null ? await createClaim(root, mine) : nobodys && (await takeClaim(root, slot.claim!, mine));
  if (!claimed) return false;
  await removeClaimedSlot(repo, root);
  // The folders Orca made for them, once empty: nothing of Orca's is left for this repository.
  await rmdir(slotsFolder(repo)).catch(() => {});
  await rmdir(repo.worktrees).catch(() => {});
  return true;
}

/** Orca's slots of this repository, with who holds each and its size. */
export async function listWorktrees(repo: GitRepository): Promise<OrcaWorktree[]> {
  const slots = await readSlots(repo);
  return Promise.all(
    slots
      .filter((s) => s.made)
      .map(async ({ slot, claim }) => {
        const path = slotRoot(repo, slot);
        const [bytes, locked, lastStep] = await Promise.all([diskBytes(path), lockOf(path), claim ? null : readLastStep(path)]);
        return { slot, path, dir: join(path, repo.prefix), claim, bytes, locked, lastStep };
      }),
  );
}

async function readLastStep(root: string): Promise<OrcaWorktree['lastStep']> {
  const text = await readFile(lastStepFile(root), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const step = JSON.parse(text) as { plan_id?: unknown; step_id?: unknown };
    return { plan_id: String(step.plan_id ?? ''), step_id: String(step.step_id ?? '') };
  } catch {
    return { plan_id: '', step_id: '' }; // cut short as it was written: still a step's files
  }
}

/** Plans with a folder of landing records, or a slot claim: what the sweep at start looks at. */
export async function plansWithRecords(repo: GitRepository): Promise<string[]> {
  const names = await readdir(repo.worktrees).catch(() => [] as string[]);
  const claimed = (await readSlots(repo)).map((s) => s.claim?.plan_id ?? '');
  return [...new Set([...names, ...claimed])].filter((name) => /^plan_[0-9A-Z]{26}$/.test(name));
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
