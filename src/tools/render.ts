import type { DriveResult } from '../engine/drive.js';
import type { PlanSnapshot } from '../engine/plan-host.js';
import type { Gate } from '../machines/gates.js';
import { activityOf, pausedHint } from '../persistence/plan-activity.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import { planUsage } from '../machines/budget.js';
import { usageText } from '../usage/format.js';

/** What orca_ask_planner returns (seed 000): answer | completed | stopped | rejected | failure, or waiting. */
export function renderDrive(result: DriveResult): Record<string, unknown> {
  const c = result.snapshot.context;
  if (result.kind === 'waiting') return renderWaiting(result.snapshot, result.gates, result.reason);
  switch (result.tag) {
    case 'outcome.answer':
      return { status: 'answer', plan_id: c.plan_id, content: c.answer };
    case 'outcome.failure':
      return { status: 'failure', plan_id: c.plan_id, error: c.planner_error, resume: 'Send a new message with this plan_id to try again.' };
    case 'outcome.completed':
      return { status: 'completed', plan_id: c.plan_id, goal: c.goal, steps: stepResults(result.snapshot), ...spent(result.snapshot) };
    case 'outcome.stopped':
      return { status: 'stopped', plan_id: c.plan_id, goal: c.goal, steps: stepResults(result.snapshot), decision: c.decisions.at(-1), ...spent(result.snapshot) };
    case 'outcome.rejected':
      return { status: 'rejected', plan_id: c.plan_id, goal: c.goal, decision: c.decisions.at(-1) };
  }
}

function renderWaiting(snapshot: PlanSnapshot, gates: Gate[], reason: string): Record<string, unknown> {
  const gate = gates[0]!;
  return {
    status: 'waiting',
    plan_id: snapshot.context.plan_id,
    waiting_for: gate.kind,
    reason,
    resume: 'Call orca_ask_planner with this plan_id to be asked again, or answer with a slash command.',
    gate,
  };
}

/** What the whole plan cost (planner, steps, asks), as numbers and in words. */
function spent(snapshot: PlanSnapshot) {
  const usage = planUsage(snapshot.context);
  return { usage, spent: usageText(usage) };
}

function stepResults(snapshot: PlanSnapshot) {
  return snapshot.context.steps.map((s) => ({
    id: s.id,
    agent: s.agent,
    status: s.status,
    attempts: s.attempts,
    ...(s.output ?? {}),
    // A step that did not complete says why: its last error, and the breaker's reason if it opened.
    ...(s.status !== 'completed' && s.failures.length > 0 ? { last_error: s.failures.at(-1)!.error } : {}),
    ...(s.breaker ? { breaker: s.breaker } : {}),
    ...(s.warnings?.length ? { warnings: s.warnings } : {}),
    ...(s.usage ? { usage: s.usage } : {}),
  }));
}

/**
 * What orca_list_plans returns: one page of the plans (newest first) and how to get the next.
 * `held` says whether a process holds a plan's lease, which tells a running plan from a paused one.
 */
export function renderPlanList(
  newestFirst: PlanSummary[],
  { offset, limit }: { offset: number; limit: number },
  held: (planId: string) => boolean,
): Record<string, unknown> {
  const total = newestFirst.length;
  const page = newestFirst.slice(offset, offset + limit);
  const rest = total - offset - page.length;
  return {
    total,
    showing: page.length > 0 ? `${offset + 1}-${offset + page.length} of ${total}, newest first` : `none of ${total}`,
    ...(rest > 0 ? { more: `${rest} older plan(s): call orca_list_plans with offset ${offset + page.length} to see them.` } : {}),
    ...(page.length === 0 && total > 0 ? { note: `offset ${offset} is past the oldest plan: use an offset below ${total}.` } : {}),
    plans: page.map((p) => {
      const activity = activityOf(p, held(p.plan_id));
      return {
        plan_id: p.plan_id,
        goal: p.goal,
        status: p.status,
        activity,
        ...(p.waiting_for ? { waiting_for: p.waiting_for } : {}),
        ...(activity === 'paused' ? { resume: pausedHint(p.plan_id, 'orca') } : {}),
        step_progress: `${p.step_progress.completed}/${p.step_progress.total}`,
        updated_at: p.updated_at,
      };
    }),
  };
}
