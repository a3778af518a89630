import { readdir } from 'node:fs/promises';
import type { WorkspacePorts } from '../machines/ports.js';
import { OrcaError } from '../errors.js';
import { measure } from './diff.js';
import { mergeStep } from './merge.js';
import { excludedPaths, snapshotCommit } from './snapshot.js';
import type { GitRepository, WorkspaceSupport } from './support.js';
import { listWorktrees, openWorktree, removePlanWorktrees, type OrcaWorktree } from './worktrees.js';

export interface WorkspacesOptions {
  /** The project directory. */
  directory: string;
  support: WorkspaceSupport;
  /** Where a step's patch goes: beside its plan file. */
  patchPathOf(planId: string, stepId: string): string;
  /** Project-relative paths git does not carry into a worktree: a file is copied, a folder linked. */
  include: readonly string[];
  /** A shell command run in each new worktree's project folder (`npm ci`). */
  setup?: string;
  setupTimeoutMs: number;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

export interface Workspaces extends WorkspacePorts {
  /** Removes every worktree of the plan and the records beside them. */
  removePlan(planId: string): Promise<void>;
  /** Orca's worktrees still on disk, with their size. */
  leftovers(): Promise<OrcaWorktree[]>;
  /** Plans with a folder of worktrees or merge records (a folder outlives its worktrees when the server stopped before removing it). */
  plansWithFolders(): Promise<string[]>;
}

/** The workspace ports over git; worktrees only where `support` allows them. */
export function createWorkspaces({ directory, support, patchPathOf, include, setup, setupTimeoutMs, log }: WorkspacesOptions): Workspaces {
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

  return {
    async openWorkspace({ planId, stepId, attempt, kind }, signal) {
      if (kind === 'worktree') return openWorktree(worktrees(), { planId, stepId, attempt, include, ...(setup ? { setup } : {}), setupTimeoutMs, signal });
      const repo = need("measure the step's changes");
      return { kind: 'shared', dir: directory, base: await snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, include), signal }) };
    },

    measureStep(input, signal) {
      return measure(need("measure the step's changes"), { ...input, include, patchPath: patchPathOf(input.planId, input.stepId), signal });
    },

    mergeStep(input, signal) {
      const run = () => mergeStep(worktrees(), { ...input, include, patchPath: patchPathOf(input.planId, input.stepId), signal, log });
      const next = merging.then(run, run);
      merging = next.catch(() => {});
      return next;
    },

    async removePlan(planId) {
      if (support.ok) await removePlanWorktrees(support, planId);
    },

    async leftovers() {
      return support.ok ? listWorktrees(support) : [];
    },

    async plansWithFolders() {
      if (!support.ok) return [];
      const names = await readdir(support.worktrees).catch(() => [] as string[]);
      return names.filter((name) => /^plan_[0-9A-Z]{26}$/.test(name));
    },
  };
}
