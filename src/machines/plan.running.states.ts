import { decision, forwardAs, forwardRetry, forwardRunOnTop } from './plan-decisions.js';
import { planSetup } from './plan.setup.js';
import { verificationFailed, verifying } from './plan.verification.states.js';

/**
 * The plan chart's running states (docs/design.md, "Steps"): the ready steps spawned as step
 * charts, the budget gate, the steps' own gates (deviation, resume, merge) decided here and forwarded
 * to the step, each step's landing and completion, and the verification once every step landed.
 * The states read the same in plan.machine.ts; the chart is unchanged.
 */

/**
 * Tag `busy`: something runs (a planner turn, steps); a plan left here by a stopped process was interrupted.
 * Tag `plan.steps`: the plan's steps are alive here (and may hold a workspace); nowhere else.
 */
export const inProgress = planSetup.createStateConfig({
  tags: ['busy', 'plan.steps'],
  initial: 'running',
  states: {
    running: {
      // The plan runs with nothing to ask of anyone: where orca_ask_planner may return early (ask_planner_returns).
      tags: ['plan.running'],
      entry: 'startReadySteps',
      always: { guard: 'budgetSpent', target: 'budget_exhausted' },
    },
    /** Every step landed: the plan's verification, and its gate when it fails (plan.verification.states.ts). */
    verifying,
    verification_failed: verificationFailed,
    /**
     * The dispatch cap (`breakers.max_dispatches`, 100) and the money and token budgets, so a
     * looping plan cannot spend unseen (docs/design.md, "Breakers and limits"): no new dispatch
     * until a human says Continue (which raises the crossed limits) or Stop.
     */
    budget_exhausted: {
      tags: ['gate.budget'],
      on: {
        'budget.continue': {
          target: 'running',
          actions: [
            { type: 'recordDecision', params: ({ event }) => decision('budget', 'Continue', event) },
            'raiseBudget',
          ],
        },
        'budget.stop': {
          target: '#plan.failed',
          actions: [
            { type: 'recordDecision', params: ({ event }) => decision('budget', 'Stop', event) },
            'stopSteps',
            { type: 'setOutcome', params: { outcome: 'stopped' } },
          ],
        },
      },
    },
  },
  on: {
    'step.dispatched': { actions: { type: 'markDispatched', params: ({ event }) => event } },
    'step.turn': { actions: { type: 'markTurn', params: ({ event }) => event } },
    'step.failed': { actions: { type: 'markFailed', params: ({ event }) => event } },
    'step.interrupted': { actions: { type: 'markInterrupted', params: ({ event }) => event } },
    'resume.rerun': {
      guard: { type: 'stepAwaitingResume', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('resume', 'Re-run', event) },
        { type: 'markResuming', params: ({ event }) => event },
        { type: 'forwardToStep', params: forwardAs('step.rerun') },
      ],
    },
    'resume.mark_done': {
      guard: { type: 'canMarkDone', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('resume', 'Mark done', event) },
        { type: 'forwardToStep', params: forwardAs('step.mark_done') },
      ],
    },
    'resume.stop': {
      guard: { type: 'stepAwaitingResume', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('resume', 'Stop', event) },
        { type: 'forwardToStep', params: forwardAs('step.stop') },
      ],
    },
    'step.merge_conflict': { actions: { type: 'markMergeConflict', params: ({ event }) => event } },
    'merge.rerun': {
      guard: { type: 'canRunOnTop', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('merge', 'Run again on top', event) },
        { type: 'markRunOnTop', params: ({ event }) => event },
        { type: 'forwardToStep', params: forwardRunOnTop },
      ],
    },
    'merge.resolved': {
      guard: { type: 'canMarkResolved', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('merge', 'Resolved by hand', event) },
        { type: 'forwardToStep', params: forwardAs('step.merge_resolved') },
      ],
    },
    'merge.stop': {
      guard: { type: 'stepAwaitingMerge', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('merge', 'Stop', event) },
        { type: 'forwardToStep', params: forwardAs('step.stop') },
      ],
    },
    'step.landed': {
      guard: { type: 'landingLeavesWork', params: ({ event }) => event },
      actions: [{ type: 'markLanded', params: ({ event }) => event }, 'startReadySteps'],
    },
    'step.completed': [
      {
        // The last step landed: the plan's verification runs in the user's tree before it says completed.
        guard: { type: 'completesPlanToVerify', params: ({ event }) => event },
        target: '.verifying',
        actions: [{ type: 'markCompleted', params: ({ event }) => event }, { type: 'stopStep', params: ({ event }) => event }],
      },
      {
        guard: { type: 'completesPlan', params: ({ event }) => event },
        target: '#plan.completed',
        actions: [{ type: 'markCompleted', params: ({ event }) => event }, { type: 'setOutcome', params: { outcome: 'completed' } }],
      },
      {
        actions: [
          { type: 'markCompleted', params: ({ event }) => event },
          // Its output is in context.steps: a finished step's actor would only grow every save.
          { type: 'stopStep', params: ({ event }) => event },
          'startReadySteps',
        ],
      },
    ],
    'deviation.retry': {
      guard: { type: 'canRetryStep', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('deviation', 'Retry', event) },
        { type: 'addGuidance', params: ({ event }) => event },
        { type: 'markRetrying', params: ({ event }) => event },
        { type: 'forwardToStep', params: forwardRetry },
      ],
    },
    'deviation.replan': {
      guard: { type: 'canDecideStep', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('deviation', 'Replan', event) },
        { type: 'addGuidance', params: ({ event }) => event },
        { type: 'forwardToStep', params: forwardAs('step.replan') },
      ],
    },
    'deviation.stop': {
      guard: { type: 'canDecideStep', params: ({ event }) => event },
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('deviation', 'Stop', event) },
        { type: 'forwardToStep', params: forwardAs('step.stop') },
      ],
    },
    'step.replan_chosen': {
      target: '#plan.drafting',
      actions: [{ type: 'prepareReplan', params: ({ event }) => event }, 'stopSteps'],
    },
    'step.stop_chosen': {
      target: '#plan.failed',
      actions: ['stopSteps', { type: 'setOutcome', params: { outcome: 'stopped' } }],
    },
  },
});
