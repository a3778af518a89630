import { queuedEvents } from '../decisions/running-server.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import { listPlanIds, planFilePath, readPlan, readPlanJournal, type PlanRead } from './plan-source.js';
import { planListView, type PlanListView, type UnreadablePlan } from './plan-list-view.js';
import { planView, type PlanView } from './plan-view.js';

/** What GET /api/plans and GET /api/plans/:id answer, read from disk at each request. */

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
  if (!result.ok) {
    if ('missing' in result) return { status: 404, error: `Plan ${planId} does not exist in ${plansDir}.` };
    return { status: 422, error: `Plan ${planId} cannot be shown: ${result.reason}` };
  }
  return { status: 200, body: planView(result.plan, readPlanJournal(plansDir, planId), queuedEvents(plansDir, planId)) };
}
