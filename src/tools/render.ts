import type { DriveResult } from '../engine/drive.js';
import type { PlanSnapshot } from '../engine/plan-host.js';
import type { Gate } from '../hitl/gates.js';

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
      return { status: 'completed', plan_id: c.plan_id, goal: c.goal, steps: stepResults(result.snapshot) };
    case 'outcome.stopped':
      return { status: 'stopped', plan_id: c.plan_id, goal: c.goal, steps: stepResults(result.snapshot), decision: c.decisions.at(-1) };
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

function stepResults(snapshot: PlanSnapshot) {
  return snapshot.context.steps.map((s) => ({
    id: s.id,
    agent: s.agent,
    status: s.status,
    attempts: s.attempts,
    ...(s.output ?? {}),
  }));
}
