import { DEFAULT_MAX_ATTEMPTS } from '../machines/plan.machine.js';
import type { Gate } from '../hitl/gates.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { WAITING_WORDS } from './format.js';
import { RefusedError } from './errors.js';

/**
 * The gate a plan FILE is waiting at, as hitl/gates.ts's openGates reads it from a live snapshot:
 * `waiting_for` says which, the steps say which step failed, and the snapshot's `max_attempts`
 * says whether Retry is still offered (the same rule as the machines' canRetryStep guard).
 */
export function gateOfFile(plan: PlanFile, kind: 'approval' | 'deviation', stepId?: string): Gate {
  if (plan.waiting_for !== kind) {
    const now = plan.waiting_for ? `waits for ${WAITING_WORDS[plan.waiting_for]}` : 'waits for nothing';
    throw new RefusedError(`Plan ${plan.plan_id} is not waiting for ${WAITING_WORDS[kind]}: it is ${plan.state} and ${now}.`);
  }
  if (kind === 'approval') {
    const { goal, steps, assumptions, risks, verification, relevant_files } = plan;
    return { kind, planId: plan.plan_id, proposal: { goal, steps, assumptions, risks, verification, relevant_files } };
  }
  const waiting = plan.steps.filter((s) => s.status === 'awaiting_decision');
  const step = stepId === undefined ? waiting[0] : waiting.find((s) => s.id === stepId);
  if (!step) {
    const which = waiting.map((s) => s.id).join(', ') || 'none';
    throw new RefusedError(`Step ${stepId ?? '?'} of plan ${plan.plan_id} is not waiting for a decision (steps waiting: ${which}).`);
  }
  const failures = step.failures.length;
  return {
    kind,
    planId: plan.plan_id,
    stepId: step.id,
    agent: step.agent,
    error: step.failures.at(-1)?.error ?? 'unknown error',
    failures,
    options: failures < maxAttempts(plan) ? ['Retry', 'Replan', 'Stop'] : ['Replan', 'Stop'],
  };
}

export function maxAttempts(plan: PlanFile): number {
  const value = (plan.snapshot.context as { max_attempts?: unknown }).max_attempts;
  return typeof value === 'number' ? value : DEFAULT_MAX_ATTEMPTS;
}
