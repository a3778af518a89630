import { queuedEvents } from '../decisions/running-server.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import { listPlanIds, planFilePath, readPlan, readPlanJournal, type PlanRead } from './plan-source.js';
import { planListView, type PlanListView, type UnreadablePlan } from './plan-list-view.js';
import { planView, type PlanView } from './plan-view.js';
import { diffView, type DiffView } from './diff-view.js';
import { RefusedError } from '../request-errors.js';

/** What GET /api/plans, GET /api/plans/:id and GET /api/plans/:id/diff answer, read from disk at each request. */

export function listData(project: string, plansDir: string): PlanListView {
  const plans: PlanRead[] = [];
  const unreadable: UnreadablePlan[] = [];
  for (const id of listPlanIds(plansDir)) {
    const result = readPlan(plansDir, id);
    if (result.ok) plans.push(result.plan);
    else if (!('missing' in result)) unreadable.push({ plan_id: id, reason: result.reason }); // missing: removed since listed
  }
  return planListView(project, plans, unreadable, (id) => leaseHeld(planFilePath(plansDir, id)));
}

export type PlanData = { status: 200; body: PlanView } | { status: 404 | 422; error: string };

export function planData(plansDir: string, planId: string): PlanData {
  const result = readPlan(plansDir, planId);
  if (!result.ok) return unreadable(plansDir, planId, result);
  return { status: 200, body: planView(result.plan, readPlanJournal(plansDir, planId), queuedEvents(plansDir, planId)) };
}

export type DiffData = { status: 200; body: DiffView } | { status: 400 | 404 | 422; error: string };

/** What the plan (`step` null) or one step landed; `step` as the query gave it. */
export function diffData(plansDir: string, planId: string, step: string | null): DiffData {
  if (step !== null && (step.length === 0 || step.length > 100)) return { status: 400, error: 'Expected ?step= to be a step id of 1 to 100 characters (or no ?step= for the whole plan).' };
  const result = readPlan(plansDir, planId);
  if (!result.ok) return unreadable(plansDir, planId, result);
  try {
    return { status: 200, body: diffView(result.plan, step) };
  } catch (error) {
    // The one refusal of landedSections: a step the plan does not have (its message names the plan's steps).
    if (error instanceof RefusedError) return { status: 404, error: error.message };
    throw error;
  }
}

function unreadable(plansDir: string, planId: string, result: { ok: false; reason: string } | { ok: false; missing: true }): { status: 404 | 422; error: string } {
  if ('missing' in result) return { status: 404, error: `Plan ${planId} does not exist in ${plansDir}.` };
  return { status: 422, error: `Plan ${planId} cannot be shown: ${result.reason}` };
}
