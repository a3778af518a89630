import { doneUsage, failedUsage, messageOf, valueOf } from './outcome-params.js';
import { decision } from './plan-decisions.js';
import { planSetup } from './plan.setup.js';
import { planBase, verificationItems } from './verification.js';

/**
 * The plan chart's verification (docs/design.md, "Isolation and merge"): once every step landed,
 * the plan's checks run in the user's project, and a failure waits at the verification gate.
 * The states read the same in plan.machine.ts; the chart is unchanged.
 */

/**
 * Every step landed: the plan's verification is carried out in the user's project (the
 * configured commands, and a turn for the plan's own list), so two steps that each pass
 * alone cannot leave a tree that fails unseen. A failure waits for a person.
 */
export const verifying = planSetup.createStateConfig({
  invoke: {
    id: 'verifyPlan',
    src: 'verifyPlan',
    input: ({ context }) => ({
      idempotencyKey: `${context.plan_id}:verify:${(context.verification_runs ?? 0) + 1}`,
      planId: context.plan_id,
      goal: context.goal ?? context.request,
      verification: verificationItems(context),
      commands: context.policy.verify_commands ?? [],
      turn: context.policy.verify_turn === true,
      steps: context.steps.map((s) => ({ id: s.id, agent: s.agent, summary: s.output?.summary ?? '', ...(s.output?.key_findings.length ? { key_findings: s.output.key_findings.slice(0, 3) } : {}) })),
      parentSessionId: context.caller_session_id,
      base: planBase(context.steps),
      ...(context.failing_before?.length ? { failing_before: context.failing_before } : {}),
    }),
    onDone: [
      {
        guard: { type: 'verificationHeld', params: valueOf },
        target: '#plan.completed',
        actions: [{ type: 'recordUsage', params: doneUsage }, { type: 'recordVerification', params: valueOf }, { type: 'setOutcome', params: { outcome: 'completed' } }],
      },
      { target: 'verification_failed', actions: [{ type: 'recordUsage', params: doneUsage }, { type: 'recordVerification', params: valueOf }] },
    ],
    onError: { target: 'verification_failed', actions: [{ type: 'recordUsage', params: failedUsage }, { type: 'recordVerificationError', params: messageOf }] },
  },
});

/** The landed tree failed its verification: Replan (the planner is told what failed), Accept as is, or Stop. */
export const verificationFailed = planSetup.createStateConfig({
  tags: ['gate.verification'],
  on: {
    'verification.replan': {
      target: '#plan.drafting',
      actions: [{ type: 'recordDecision', params: ({ event }) => decision('verification', 'Replan', event) }, { type: 'prepareVerificationReplan', params: ({ event }) => event }],
    },
    'verification.accept': {
      target: '#plan.completed',
      actions: [{ type: 'recordDecision', params: ({ event }) => decision('verification', 'Accept as is', event) }, { type: 'setOutcome', params: { outcome: 'completed' } }],
    },
    'verification.stop': {
      target: '#plan.failed',
      actions: [{ type: 'recordDecision', params: ({ event }) => decision('verification', 'Stop', event) }, { type: 'setOutcome', params: { outcome: 'stopped' } }],
    },
  },
});
