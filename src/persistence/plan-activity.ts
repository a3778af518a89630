import type { PlanSummary } from './plan-index.js';

/**
 * What a listed plan is doing now, from its machine and its lease, never from its state path:
 * - `waiting`: at a gate, for a human (`waiting_for` says which);
 * - `running`: its state has work in flight (the machine's `busy` tag) and a process holds its lease;
 * - `paused`: work in flight, but no process holds it (Esc, a stopped or killed server): nothing
 *   runs until it is resumed, and then it goes on from its saved state;
 * - `idle`: nothing in flight and no gate: finished, or waiting for the user's next message.
 */
export type PlanActivity = 'waiting' | 'running' | 'paused' | 'idle';

export function activityOf(plan: Pick<PlanSummary, 'busy' | 'waiting_for'>, leaseHeld: boolean): PlanActivity {
  if (plan.waiting_for !== null) return 'waiting';
  if (!plan.busy) return 'idle';
  return leaseHeld ? 'running' : 'paused';
}

/** One short cell for a table: "running", "paused", "waiting (approval)" or "-". */
export function activityCell(plan: Pick<PlanSummary, 'busy' | 'waiting_for'>, leaseHeld: boolean): string {
  const activity = activityOf(plan, leaseHeld);
  if (activity === 'waiting') return `waiting (${plan.waiting_for})`;
  return activity === 'idle' ? '-' : activity;
}

/** What a paused plan needs, in the words of OpenCode (`orca`) and of a shell (`cli`). */
export function pausedHint(planId: string, where: 'orca' | 'cli'): string {
  return where === 'orca'
    ? `Paused: nothing runs it until it is resumed. Call orca_ask_planner with plan_id ${planId} to resume it from its saved state.`
    : `paused: nothing runs it until it is resumed. Ask Orca in OpenCode to continue plan ${planId}; it goes on from its saved state.`;
}
