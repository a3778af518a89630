import { statePath } from '../../src/persistence/plan-envelope.js';
import { answer, by, done, fail, question, stepKey, twoStepPlan } from './fixtures.js';
import { usage } from '../support/turns.js';
import { totalTokens } from '../../src/machines/usage.js';
import { hasVerification } from '../../src/machines/verification.js';

/**
 * A budget of 3 dispatches (two steps and one retry or reviewer turn reach the cap) and of 1,000
 * tokens: two of the steps' 600-token turns cross it (planner turns, 110 tokens each, count too).
 */
export const input = {
  planId: 'plan_X',
  message: 'Add a greeting',
  callerSessionId: 'root',
  maxAttempts: 2,
  policy: { max_dispatches: 3, max_tokens: 1000, review_agents: [] },
};
/** A step's turn that costs 600 tokens. */
export const bigTurn = usage({ input: 500, output: 100, cost: 0.01 });
/** A revision that keeps only the first step: after a replan that completed it, nothing is left to run. */
const onlyFirstStep = twoStepPlan.type === 'plan' ? { ...twoStepPlan, steps: [twoStepPlan.steps[0]!] } : twoStepPlan;
/** A plan that names nothing to verify: its last step completes it at once. */
const unverified = twoStepPlan.type === 'plan' ? { ...twoStepPlan, verification: [] } : twoStepPlan;
/** A revision that keeps only the first step and names nothing to verify. */
const onlyFirstStepUnverified = twoStepPlan.type === 'plan' ? { ...twoStepPlan, steps: [twoStepPlan.steps[0]!], verification: [] } : twoStepPlan;

export const output = { summary: 'done', artifacts: ['hello.ts'], key_findings: [] };
/** What git measured a step changed in the shared tree. */
const diff = { files: [{ path: 'hello.ts', status: 'added', added: 1, removed: 0 }], undeclared: [], patch_path: null, base: 'b0', result: 'r1', where: 'shared' };

/**
 * A verification's result in the user's project: one command check that passed or failed; `before`,
 * how it did on the plan's base (failed the same way: an old failure).
 */
export const verified = (passed: boolean, before?: { passed: boolean; output: string }) => ({
  passed,
  where: '/project',
  checks: [{ kind: 'command' as const, name: 'npm test', passed, output: passed ? 'passed (exit 0)' : 'failed (exit 1): 1 failing', ...(before ? { before } : {}) }],
  changed: [],
  at: '2026-01-01T00:00:00.000Z',
});
/** Failed on the plan's base too, with the same words: not the plan's. */
export const oldFailure = verified(false, { passed: false, output: 'failed (exit 1): 1 failing' });

/** The events a real run can deliver in each state: invoke outcomes, human decisions, step reports. */
export function planEvents(s: any): any[] {
  const path = statePath(s.value);
  switch (path) {
    case 'drafting.opening_session':
      return [done('openPlannerSession', { sessionId: 'ses_planner' }), fail('openPlannerSession')];
    case 'drafting.consulting':
      return [twoStepPlan, unverified, question, answer, ...(s.context.steps.length ? [onlyFirstStep, onlyFirstStepUnverified] : [])]
        .map((o): any => done('consultPlanner', o))
        .concat(fail('consultPlanner'), { type: 'checks.failing_before', checks: [{ command: 'npm test', lines: ['not ok 3 - kelvin'] }] });
    case 'changes_requested':
      return [twoStepPlan, question, answer].map((o): any => done('revisePlan', o)).concat(fail('revisePlan'));
    case 'drafting.answered':
    case 'drafting.planner_failed':
      return [{ type: 'plan.message', message: 'more', callerSessionId: 'root2' }];
    case 'drafting.awaiting_answers':
      return [{ type: 'question.answer', answers: [['Formal']], ...by }, { type: 'plan.message', message: 'casual' }];
    case 'pending_approval':
      return [
        { type: 'approval.approve', ...by },
        { type: 'approval.request_changes', text: 'smaller steps', ...by },
        { type: 'approval.reject', ...by },
      ];
    case 'in_progress.budget_exhausted':
      return [{ type: 'budget.continue', ...by }, { type: 'budget.stop', ...by }, ...stepEvents(s)];
    case 'in_progress.running':
      return stepEvents(s);
    case 'in_progress.verifying':
      return [done('verifyPlan', verified(true)), done('verifyPlan', verified(false)), done('verifyPlan', oldFailure), fail('verifyPlan')];
    case 'in_progress.verification_failed':
      return [
        { type: 'verification.replan', text: 'fix the failing test', ...by },
        { type: 'verification.accept', ...by },
        { type: 'verification.stop', ...by, channel: 'auto' },
      ];
    default:
      return [];
  }
}

/** What running steps report and what a human decides for a failed one. */
function stepEvents(s: any): any[] {
      return s.context.steps.flatMap((step: any) => {
        if (step.status === 'running') {
          return [
            { type: 'step.dispatched', stepId: step.id, attempt: step.failures.length + 1, sessionId: 'ses_x' },
            // Reviewer turns are bounded by review rounds in a real step; here by the cap.
            ...(s.context.dispatches <= s.context.dispatch_cap ? [{ type: 'step.turn', stepId: step.id, kind: 'review', round: 1 }] : []),
            // What a turn cost; reported until the token budget is crossed (the guards only tell crossed from not).
            ...(tokensLeft(s.context) ? [{ type: 'usage.recorded', stepId: step.id, usage: bigTurn }] : []),
            { type: 'step.failed', stepId: step.id, attempt: step.failures.length + 1, error: 'red', signature: 'red' },
            { type: 'step.failed', stepId: step.id, attempt: step.failures.length + 1, error: 'red', signature: 'red', breaker: 'same error' },
            { type: 'step.interrupted', stepId: step.id, attempt: step.failures.length + 1 },
            { type: 'step.merge_conflict', stepId: step.id, attempt: step.failures.length + 1, conflicts: [{ path: 'hello.ts', hunks: ['<<<<<<<'] }] },
            { type: 'step.completed', stepId: step.id, output },
            // In the shared tree with nothing waiting for its diff: landed, measured meanwhile.
            { type: 'step.landed', stepId: step.id, output },
          ];
        }
        // Landed and being measured: its diff follows.
        if (step.status === 'completed' && s.context.measuring?.includes(step.id)) return [{ type: 'step.completed', stepId: step.id, output, diff }];
        if (step.status === 'awaiting_merge') {
          return [
            { type: 'merge.rerun', stepId: step.id, text: 'on top', ...by },
            { type: 'merge.rerun', stepId: step.id, ...by, channel: 'auto' },
            { type: 'merge.resolved', stepId: step.id, ...by },
            { type: 'merge.resolved', stepId: step.id, ...by, channel: 'auto' },
            { type: 'merge.stop', stepId: step.id, ...by },
            // What the step reports once it leaves the gate.
            { type: 'step.completed', stepId: step.id, output },
            { type: 'step.stop_chosen', stepId: step.id },
          ];
        }
        if (step.status === 'awaiting_resume') {
          return [
            { type: 'resume.rerun', stepId: step.id, ...by },
            { type: 'resume.mark_done', stepId: step.id, text: 'it had finished', ...by },
            { type: 'resume.stop', stepId: step.id, ...by },
            // What the step reports once it leaves the gate (the idle test machine never does by itself).
            { type: 'step.completed', stepId: step.id, output },
            { type: 'step.stop_chosen', stepId: step.id },
          ];
        }
        if (step.status === 'awaiting_decision') {
          return [
            { type: 'deviation.retry', stepId: step.id, text: 'again', ...by },
            { type: 'deviation.retry', stepId: step.id, ...by, channel: 'auto' },
            { type: 'deviation.replan', stepId: step.id, ...by },
            { type: 'deviation.stop', stepId: step.id, ...by },
            { type: 'step.replan_chosen', stepId: step.id },
            { type: 'step.stop_chosen', stepId: step.id },
          ];
        }
        return [];
      });
}

/**
 * States are told apart by what the guards read, nothing finer: whether there is anything to verify
 * (hasVerification: the plan's list, a failed verification's list, or configured commands), not which
 * of them says so (that would walk each of the three again: 3,552 states against 1,976).
 */
export const serializePlan = (s: any) =>
  `${statePath(s.value)}|${s.context.planner_session_id ? 'S' : '-'}|${stepKey(s.context.steps)}|${(s.context.measuring ?? []).join(',')}|${budgetLeft(s.context)}|${tokensLeft(s.context) ? 'T' : '-'}|${hasVerification(s.context) ? 'v' : '-'}`;

/** Whether the token budget still has room (the guards read nothing finer). */
const tokensLeft = (c: { usage?: Parameters<typeof totalTokens>[0]; token_cap?: number | null }) =>
  typeof c.token_cap !== 'number' || totalTokens(c.usage!) < c.token_cap;

/** The guards only tell 0, 1, 2 or more dispatches left (two steps) apart, so states are compared on that. */
const budgetLeft = (c: { dispatches: number; dispatch_cap: number }) => Math.max(-1, Math.min(2, c.dispatch_cap - c.dispatches));

