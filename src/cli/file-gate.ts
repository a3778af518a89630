import { DEFAULT_MAX_ATTEMPTS } from '../machines/plan.machine.js';
import { DEFAULT_PLAN_POLICY } from '../machines/types.js';
import { BUDGET_OPTIONS, type Gate } from '../hitl/gates.js';
import { waitingWords, type CommandGate } from '../hitl/commands.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { WAITING_WORDS } from './format.js';
import { RefusedError } from './errors.js';

/**
 * The gate of a plan FILE that a decision for `kinds` answers, as hitl/gates.ts's openGates reads
 * it from a live snapshot: `waiting_for` says which (the first gate asked: the dispatch cap before
 * a failed step), the steps say which step failed, and the snapshot's `max_attempts` says whether
 * Retry is still offered (the machines' canRetryStep rule for a human: the CLI is one, so an open
 * breaker does not take Retry away; it is only shown). `stepId` picks among failed steps.
 */
export function gateOfFile(plan: PlanFile, kinds: readonly CommandGate[], stepId?: string): Gate {
  const waitingSteps = plan.steps.filter((s) => s.status === 'awaiting_decision');
  // A step named: the decision is that step's, whatever else the plan waits for.
  const wanted = stepId !== undefined ? kinds.filter((k) => k === 'deviation') : kinds;
  const kind = openKind(plan, wanted, waitingSteps.length > 0);
  if (!kind) {
    const now = plan.waiting_for ? `waits for ${WAITING_WORDS[plan.waiting_for]}` : 'waits for nothing';
    throw new RefusedError(`Plan ${plan.plan_id} is not waiting for ${waitingWords(wanted)}: it is ${plan.state} and ${now}.`);
  }
  if (kind === 'approval') {
    const { goal, steps, assumptions, risks, verification, relevant_files } = plan;
    return { kind, planId: plan.plan_id, proposal: { goal, steps, assumptions, risks, verification, relevant_files } };
  }
  if (kind === 'budget') {
    const context = snapshotContext(plan);
    return {
      kind,
      planId: plan.plan_id,
      dispatches: numberOr(context.dispatches, 0),
      cap: numberOr(context.dispatch_cap, 0),
      increment: numberOr((context.policy as { max_dispatches?: unknown } | undefined)?.max_dispatches, DEFAULT_PLAN_POLICY.max_dispatches),
      completed: plan.steps.filter((s) => s.status === 'completed').length,
      total: plan.steps.length,
      options: [...BUDGET_OPTIONS],
    };
  }
  const step = stepId === undefined ? waitingSteps[0] : waitingSteps.find((s) => s.id === stepId);
  if (!step) {
    const which = waitingSteps.map((s) => s.id).join(', ') || 'none';
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
    ...(step.breaker ? { breaker: step.breaker } : {}),
  };
}

/** The kind among `kinds` open in the plan; a plan paused at its dispatch cap may have failed steps waiting too. */
function openKind(plan: PlanFile, kinds: readonly CommandGate[], stepsWaiting: boolean): CommandGate | undefined {
  const waiting = kinds.find((k) => k === plan.waiting_for);
  if (waiting) return waiting;
  if (kinds.includes('deviation') && plan.waiting_for === 'budget' && stepsWaiting) return 'deviation';
  return undefined;
}

export function maxAttempts(plan: PlanFile): number {
  return numberOr(snapshotContext(plan).max_attempts, DEFAULT_MAX_ATTEMPTS);
}

const snapshotContext = (plan: PlanFile) => plan.snapshot.context as Record<string, unknown>;
const numberOr = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);
