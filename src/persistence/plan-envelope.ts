import type { SnapshotFrom } from 'xstate';
import { PLAN_MACHINE_VERSION, type PlanMachine } from '../machines/plan.machine.js';
import type { PlanStatus } from '../machines/types.js';
import { planUsage } from '../machines/budget.js';
import { ZERO_USAGE } from '../machines/usage.js';
import { SCHEMA_VERSION, type PlanFile, type PlanFields } from './plan-file.js';

/** "drafting.awaiting_answers" from { drafting: 'awaiting_answers' }. */
export function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, inner] = Object.entries(value as Record<string, unknown>)[0] ?? ['unknown', undefined];
  return inner === undefined ? key : `${key}.${statePath(inner)}`;
}

export const planStatus = (value: unknown) => statePath(value).split('.')[0] as PlanStatus;

/** A plan's plain fields for a snapshot: for people, tools and observers (PlanFields). */
export function toPlanFields(
  snapshot: SnapshotFrom<PlanMachine>,
  times: { created_at: string; updated_at: string },
  waitingFor: PlanFile['waiting_for'] = null,
): PlanFields {
  const c = snapshot.context;
  return {
    schema_version: SCHEMA_VERSION,
    machine_version: PLAN_MACHINE_VERSION,
    plan_id: c.plan_id,
    goal: c.goal ?? c.request,
    status: planStatus(snapshot.value),
    state: statePath(snapshot.value),
    ...times,
    steps: c.steps.map((s) => ({ ...s, depends_on: s.depends_on ?? [], usage: s.usage ?? ZERO_USAGE })),
    assumptions: c.proposal?.assumptions ?? [],
    risks: c.proposal?.risks ?? [],
    verification: c.proposal?.verification ?? [],
    relevant_files: c.proposal?.relevant_files ?? [],
    decisions: c.decisions,
    waiting_for: waitingFor,
    revisions: c.revisions ?? [],
    ...(c.agenda_item ? { agenda_item: c.agenda_item } : {}),
    ...(c.verification ? { verification_result: c.verification } : {}),
    usage: planUsage(c),
    budget: { dispatches: c.dispatches, dispatch_cap: c.dispatch_cap, max_cost: c.cost_cap ?? null, max_tokens: c.token_cap ?? null },
  };
}

/** The plan file: its plain fields plus the persisted snapshot. */
export function toPlanFile(view: PlanFields, persisted: unknown): PlanFile {
  return { ...view, snapshot: persisted as PlanFile['snapshot'] };
}
