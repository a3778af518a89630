import { join } from 'node:path';
import type { WorkspacePorts } from '../machines/ports.js';
import { OrcaError } from '../errors.js';
import { capture, measure, projectRelative } from './diff.js';
import { git } from './git.js';
import { mergeStep } from './merge.js';
import { excludedPaths, RECENT_BASE_MS, snapshotCommit, touchTree, userIndexPath } from './snapshot.js';
import type { GitRepository, WorkspaceSupport } from './support.js';
import { SlotResets } from './slot-resets.js';
import { SlotWaits } from './slot-waits.js';
import { listWorktrees, openWorktree, plansWithRecords, prepareSlots, releasePlanSlots, releaseSlot, trimSlots, type OrcaWorktree } from './worktrees.js';
import type { SlotAt } from './base-checks.js';

export interface WorkspacesOptions {
  /** The project directory. */
  directory: string;
  support: WorkspaceSupport;
  /** Where a step attempt's patch goes: beside its plan file, one per attempt. */
  patchPathOf(planId: string, stepId: string, attempt: number): string;
  /** Project-relative paths git does not carry into a worktree: a file is copied, a folder linked. */
  include: readonly string[];
  /** A shell command run in each new slot's project folder (`npm ci`). */
  setup?: string;
  setupTimeoutMs: number;
  /** Free slots kept warm for the next steps (the plans' concurrency). */
  keepSlots: number;
  /**
   * Slots in all, held or free, beyond which a step waits for one given back (plans at once share
   * them; see openWorktree's maxSlots). Default: keepSlots.
   */
  maxSlots?: number;
  /** How long a step waits for a slot while all are held before it makes one more (a minute unless set). */
  slotWaitMs?: number;
  /** How long a slot given back stays as its step left it before it is reset (SLOT_RESET_DELAY_MS unless set). */
  slotResetDelayMs?: number;
  /**
   * Since when (performance.now()) no tool call of the session ran (opencode/tool-activity.ts), or
   * undefined while one runs: a step in the shared tree is captured by a snapshot begun after that.
   * Absent: every capture takes a snapshot begun after it asked.
   */
  quietSince?: (sessionId: string) => number | undefined;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

export interface Workspaces extends WorkspacePorts {
  /** Gives back every slot the plan's steps hold and removes its landing records; returns the slots' folders. */
  removePlan(planId: string): Promise<string[]>;
  /** Removes free slots beyond the pool's size; returns the project folders of those removed. */
  trim(): Promise<string[]>;
  /** At start: takes back what a process that died left on the slots; free slots that hold a step's files are reset soon after. */
  recover(): Promise<void>;
  /** The server ends: free slots not reset yet are reset; resolves once they are, or after `timeoutMs` (a few seconds unless set). */
  settle(timeoutMs?: number): Promise<void>;
  /** Makes free slots until `count` (at most the pool's size) are there; returns the project folders of that many free slots. */
  prepare(count: number): Promise<string[]>;
  /** Orca's slots on disk, with who holds each and its size. */
  leftovers(): Promise<OrcaWorktree[]>;
  /** Plans that still hold a slot or have landing records (the folder outlives them when the server stopped first). */
  plansWithFolders(): Promise<string[]>;
  /** What the user's tree holds now, as a commit (Orca's kept index; the user's index untouched). */
  treeState(signal: AbortSignal): Promise<string>;
  /** The project-relative paths that differ between such a state and the user's tree now. */
  changedSince(state: string, signal: AbortSignal): Promise<string[]>;
  /** Orca ran something that may write to the user's tree (a step's hooks): no earlier snapshot serves as a base. */
  touch(): void;
  /** A slot reset to `commit`, for work that is no step's (the configured checks on a plan's base), given back by `release`. */
  openSlotAt(commit: string, planId: string, signal: AbortSignal): Promise<SlotAt>;
}

/** The workspace ports over git; worktrees only where `support` allows them. */
export function createWorkspaces({ directory, support, patchPathOf, include, setup, setupTimeoutMs, keepSlots, maxSlots = keepSlots, slotWaitMs, slotResetDelayMs, quietSince, log }: WorkspacesOptions): Workspaces {
  const repository: GitRepository | undefined = support.ok ? support : support.repository;
  const need = (what: string): GitRepository => {
    if (!repository) throw new OrcaError(`Cannot ${what}: ${support.ok ? 'no git repository' : support.reason}`);
    return repository;
  };
  const worktrees = (): GitRepository => {
    if (!support.ok) throw new OrcaError(`Cannot give the step its own worktree: ${support.reason}`);
    return support;
  };
  // One merge at a time: each reads the user's tree, then writes it.
  let merging: Promise<unknown> = Promise.resolve();
  // Steps waiting for a slot, told to their charts (followSlot).
  const slotWaits = new SlotWaits();
  // Slots being made ahead: a step waits for them rather than making one more of its own.
  let preparing: Promise<unknown> = Promise.resolve();
  // Slots given back, reset once free (they hold nothing of a step for long), never while a step's slot opens or its changes land.
  let busy = 0;
  const resets = support.ok ? new SlotResets(support, { ...(slotResetDelayMs !== undefined ? { delayMs: slotResetDelayMs } : {}), quiet: () => busy === 0, log }) : null;
  const whileBusy = <T>(run: Promise<T>): Promise<T> => {
    busy += 1;
    return run.finally(() => (busy -= 1));
  };

  return {
    async openWorkspace({ planId, stepId, attempt, kind }, signal) {
      // A step that landed in the shared tree before its diff (the step chart's measuring_landed) had its
      // tree captured before its dependents started: their base below is that snapshot, taken just now.
      await preparing.catch(() => {});
      if (kind === 'worktree') {
        const key = slotKey(planId, stepId);
        const onWait = (waiting: boolean) => slotWaits.set(key, waiting);
        return whileBusy(openWorktree(worktrees(), { planId, stepId, attempt, include, ...(setup ? { setup } : {}), setupTimeoutMs, signal, maxSlots, ...(slotWaitMs !== undefined ? { slotWaitMs } : {}), log, onWait })).finally(() => slotWaits.clear(key));
      }
      const repo = need("measure the step's changes");
      // The tree as the step finds it: a snapshot of it just taken (the measurement of the step before) will do.
      const base = await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), index: userIndexPath(repo), recentMs: RECENT_BASE_MS, signal });
      return { kind: 'shared', dir: directory, base };
    },

    followSlot({ planId, stepId }, listener) {
      return slotWaits.follow(slotKey(planId, stepId), listener);
    },

    async captureStep({ workspace, sessionId }, signal) {
      const since = sessionId ? quietSince?.(sessionId) : undefined;
      return { result: await capture(need("measure the step's changes"), { workspace, include, signal, ...(since !== undefined ? { quietSince: since } : {}) }) };
    },

    measureStep(input, signal) {
      // In the shared tree, as captureStep: a snapshot begun after the session's last tool call will do (steps ending at once share one).
      const since = input.sessionId ? quietSince?.(input.sessionId) : undefined;
      return measure(need("measure the step's changes"), { ...input, include, patchPath: patchPathOf(input.planId, input.stepId, input.attempt), signal, ...(since !== undefined ? { quietSince: since } : {}) });
    },

    mergeStep(input, signal) {
      const repo = worktrees();
      // The user's tree changes: a snapshot begun before or while it lands is no next step's base.
      const run = () => {
        touchTree(repo.toplevel);
        return mergeStep(repo, { ...input, include, patchPath: patchPathOf(input.planId, input.stepId, input.attempt), signal, log }).finally(() => touchTree(repo.toplevel));
      };
      const next = whileBusy(merging.then(run, run));
      merging = next.catch(() => {});
      // Landed: mergeStep gave the slot back.
      return next.then((outcome) => {
        if (outcome.type === 'merged' && input.workspace.root) resets?.givenBack([input.workspace.root]);
        return outcome;
      });
    },

    async removePlan(planId) {
      if (!support.ok) return [];
      const released = await releasePlanSlots(support, planId);
      resets?.givenBack(released);
      return released;
    },

    async trim() {
      return support.ok ? trimSlots(support, keepSlots) : [];
    },

    async recover() {
      await resets?.recover();
    },

    async settle(timeoutMs) {
      await resets?.settle(timeoutMs);
    },

    prepare(count) {
      if (!support.ok) return Promise.resolve([]);
      const repo = support;
      const run = () => prepareSlots(repo, Math.min(count, keepSlots), { include, ...(setup ? { setup } : {}), setupTimeoutMs, maxSlots });
      const next = preparing.then(run, run);
      preparing = next.catch(() => {});
      return next.then((roots) => roots.map((root) => join(root, repo.prefix)));
    },

    async leftovers() {
      return support.ok ? listWorktrees(support) : [];
    },

    async plansWithFolders() {
      return support.ok ? plansWithRecords(support) : [];
    },

    treeState(signal) {
      const repo = need("look at the project's files");
      return snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), index: userIndexPath(repo), signal });
    },

    touch() {
      if (repository) touchTree(repository.toplevel);
    },

    async openSlotAt(commit, planId, signal) {
      const repo = worktrees();
      // A claim no step's can be: its own attempt each time, so a slot left by a run cut short is reset again.
      const workspace = await openWorktree(repo, { planId, stepId: BASE_CHECKS, attempt: Date.now(), include, ...(setup ? { setup } : {}), setupTimeoutMs, signal, maxSlots, ...(slotWaitMs !== undefined ? { slotWaitMs } : {}), log, start: commit });
      const root = workspace.root!;
      return {
        dir: workspace.dir,
        release: async () => {
          await releaseSlot(repo, root, planId, BASE_CHECKS);
          resets?.givenBack([root]);
        },
      };
    },

    async changedSince(state, signal) {
      const repo = need("look at the project's files");
      const now = await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), index: userIndexPath(repo), signal });
      const listed = await git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', state, now], { cwd: repo.toplevel, signal });
      return listed.stdout
        .split('\0')
        .filter(Boolean)
        .map((path) => projectRelative(path, repo.prefix));
    },
  };
}

/** Who holds a slot while the configured checks run on a plan's base: no step (step ids are the planner's words, never this). */
const BASE_CHECKS = '~base-checks';

/** A slot is held per plan and step (every attempt of the step keeps it): the key of a step's wait. */
const slotKey = (planId: string, stepId: string) => `${planId}:${stepId}`;
