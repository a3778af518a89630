import { normalize } from 'node:path';
import { isPlanId } from '../persistence/plan-id.js';

/** The step attempt a worktree was made for. */
export interface StepWorktree {
  planId: string;
  stepId: string;
  attempt: number;
}

/** `<stepId>.<attempt>`: the last folder of a step's worktree (a step id never holds a dot). */
const STEP_ATTEMPT = /^([A-Za-z0-9_-]+)\.([1-9][0-9]*)$/;
/** The folder a worktree outside the repository is kept under, named after the repository (12 hex). */
const REPOSITORY_KEY = /^[0-9a-f]{12}$/;
/** A worktree slot's folder: its number. */
const SLOT = /^[1-9][0-9]*$/;

/**
 * Whether `directory` is in one of Orca's step worktrees: a slot,
 * `$XDG_DATA_HOME/opencode-orca/worktrees/<12 hex>/slots/<n>` (its root or any folder below it),
 * or a step's own worktree as versions before slots made them (stepWorktreeOf). A test of the path
 * alone, nothing read from the disk.
 */
export function isOrcaWorktree(directory: string): boolean {
  const parts = normalize(directory).split(/[\\/]+/);
  for (let at = 0; at + 4 < parts.length; at += 1) {
    if (parts[at] === 'opencode-orca' && parts[at + 1] === 'worktrees' && REPOSITORY_KEY.test(parts[at + 2] ?? '') && parts[at + 3] === 'slots' && SLOT.test(parts[at + 4] ?? '')) return true;
  }
  return stepWorktreeOf(directory) !== null;
}

/**
 * (Before slots.) The step attempt whose worktree holds `directory` (its root or any folder below it), or null:
 * a test of the path alone, nothing read from the disk. A step's worktree is
 * `<git common dir>/orca-worktrees/<planId>/<stepId>.<attempt>`, or, where that could not be
 * made, `$XDG_DATA_HOME/opencode-orca/worktrees/<12 hex>/<planId>/<stepId>.<attempt>`.
 */
export function stepWorktreeOf(directory: string): StepWorktree | null {
  const parts = normalize(directory).split(/[\\/]+/);
  for (let at = 0; at < parts.length; at += 1) {
    if (parts[at] === 'orca-worktrees') {
      const found = stepAt(parts[at + 1], parts[at + 2]);
      if (found) return found;
    }
    if (parts[at] === 'opencode-orca' && parts[at + 1] === 'worktrees' && REPOSITORY_KEY.test(parts[at + 2] ?? '')) {
      const found = stepAt(parts[at + 3], parts[at + 4]);
      if (found) return found;
    }
  }
  return null;
}

function stepAt(planId: string | undefined, folder: string | undefined): StepWorktree | null {
  if (!isPlanId(planId)) return null;
  const match = STEP_ATTEMPT.exec(folder ?? '');
  if (!match) return null;
  const attempt = Number(match[2]);
  return Number.isSafeInteger(attempt) ? { planId, stepId: match[1]!, attempt } : null;
}
