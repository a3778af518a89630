import type { ApprovalOption } from '../machines/gates.js';
import { planMachine } from '../machines/plan.machine.js';
import type { DecisionRecord, PlanStatus } from '../machines/types.js';

/**
 * Which plans `orca prune` (and the `prune` option at start) removes: the selection, pure. What a
 * plan is comes only from what its file records: its status (a final state of the plan chart is
 * finished) and its decisions (no Approve: a draft). How old it is comes from `updated_at`, the
 * time of its last recorded change. Whether a process holds its lease and whether decisions wait
 * in its inbox are read from disk by the caller (prune.ts).
 */

/** Drafts never approved and unchanged this many days are pruned when nothing else is said. */
export const DEFAULT_DRAFT_DAYS = 30;

export interface RetentionRules {
  /** Drafts (never approved) unchanged for more than this many days go; null keeps them all. */
  draftsAfterDays: number | null;
  /** Finished plans (completed, failed, rejected) unchanged for more than this many days go; null (the default) keeps them. */
  finishedAfterDays: number | null;
}

/**
 * - `draft`: never approved (no Approve among its decisions), and not finished;
 * - `finished`: in a final state of the plan chart (completed, failed, rejected);
 * - `other`: approved and not finished: running, paused, waiting at a gate, or being replanned.
 */
export type PlanKind = 'draft' | 'finished' | 'other';

/** What the selection reads of one plan on disk. */
export interface StoredPlan {
  plan_id: string;
  status: PlanStatus;
  decisions: readonly Pick<DecisionRecord, 'gate' | 'option'>[];
  updated_at: string;
  /** Its file, journal, inbox and temp files. */
  bytes: number;
  /** A live process holds its lease: it runs there. */
  leaseHeld: boolean;
  /** Decisions posted to its inbox that no process has applied yet. */
  queuedDecisions: number;
}

/**
 * Why a plan stays:
 * - `approved`: approved and not finished (never pruned: it may be running, paused or waiting at a gate);
 * - `not_asked`: no rule for its kind was given (finished plans are kept unless asked);
 * - `recent`: changed within its rule's days;
 * - `leased`: old enough, but a process holds its lease;
 * - `queued`: old enough, but a decision waits in its inbox;
 * - `undated`: its `updated_at` is not a time.
 */
export type KeepReason = 'approved' | 'not_asked' | 'recent' | 'leased' | 'queued' | 'undated';

export type Verdict = { plan: StoredPlan; kind: PlanKind; ageMs: number } & ({ remove: true } | { remove: false; keep: KeepReason });

const DAY_MS = 86_400_000;
const APPROVE: ApprovalOption = 'Approve';

/** The plan chart's final states, read from the chart: a plan whose status is one of them is finished. */
const FINAL_STATUSES: ReadonlySet<string> = new Set(
  Object.entries(planMachine.root.states)
    .filter(([, node]) => node.type === 'final')
    .map(([key]) => key),
);

/** Whether a plan with this status has ended: its chart is in a final state. */
export const isFinalStatus = (status: string) => FINAL_STATUSES.has(status);

/** The plan chart's states where its steps are alive (tag `plan.steps`), read from the chart. */
const STEP_STATUSES: ReadonlySet<string> = new Set(
  Object.entries(planMachine.root.states)
    .filter(([, node]) => node.tags.includes('plan.steps'))
    .map(([key]) => key),
);

/** Whether a plan with this status may have steps holding a workspace. */
export const hasLiveSteps = (status: string) => STEP_STATUSES.has(status);

/** What a plan file says the plan is: finished (a final state), a draft (never approved), or other. */
export function kindOf(plan: Pick<StoredPlan, 'status' | 'decisions'>): PlanKind {
  if (FINAL_STATUSES.has(plan.status)) return 'finished';
  return plan.decisions.some((d) => d.gate === 'approval' && d.option === APPROVE) ? 'other' : 'draft';
}

/** Each plan and whether the rules remove it at `now`, in the order given. */
export function selectForPruning(plans: readonly StoredPlan[], rules: RetentionRules, now: Date): Verdict[] {
  return plans.map((plan) => {
    const kind = kindOf(plan);
    const ageMs = now.getTime() - Date.parse(plan.updated_at);
    const keep = (reason: KeepReason): Verdict => ({ plan, kind, ageMs, remove: false, keep: reason });
    if (kind === 'other') return keep('approved');
    const days = kind === 'draft' ? rules.draftsAfterDays : rules.finishedAfterDays;
    if (days === null) return keep('not_asked');
    if (Number.isNaN(ageMs)) return keep('undated');
    if (ageMs <= days * DAY_MS) return keep('recent');
    if (plan.leaseHeld) return keep('leased');
    if (plan.queuedDecisions > 0) return keep('queued');
    return { plan, kind, ageMs, remove: true };
  });
}

/** "45d", "5h", "<1h": how long ago a plan last changed. */
export function ageText(ageMs: number): string {
  if (Number.isNaN(ageMs)) return '?';
  if (ageMs >= DAY_MS) return `${Math.floor(ageMs / DAY_MS)}d`;
  if (ageMs >= 3_600_000) return `${Math.floor(ageMs / 3_600_000)}h`;
  return '<1h';
}

/** "812 B", "4.1 kB", "12 MB" (powers of 1000, as du -h --si and file managers show). */
export function bytesText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
