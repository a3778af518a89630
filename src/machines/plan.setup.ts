import { assign, enqueueActions, sendTo, setup, stopChild } from 'xstate';
import { crossedLimits, dispatchesLeft, raisedCaps, withTurnUsage } from './budget.js';
import { notProvided } from './not-provided.js';
import { doneUsage, failedUsage, messageOf, valueOf } from './outcome-params.js';
import { answersMessage, replanMessage, verificationReplanMessage } from './plan-text.js';
import type { ConsultPlannerInput, OpenPlannerSessionInput, VerifyPlanInput } from './ports.js';
import { mayRetry } from './retry.js';
import { stepMachine, type StepEvent, type StepParentEvent } from './step.machine.js';
import {
  isActive,
  stepRecords,
  updateStep,
  withCompleted,
  withFailure,
  withMergeConflict,
  withRetrying,
  withRunOnTop,
  withRunning,
  withStepGuidance,
  withStopped,
} from './step-records.js';
import { allStepsCompleted, readySteps, startableSteps, stepInput } from './threading.js';
import { hasVerification, verificationHeld } from './verification.js';
import type { Turn } from './turn.js';
import type { TurnRole, Usage } from './usage.js';
import type {
  DecisionRecord,
  DecisionSource,
  FailingCheck,
  FailureKind,
  HitlQuestion,
  MergeConflict,
  PlannerOutput,
  PlanPolicy,
  PlanProposal,
  PlanVerification,
  StepDiff,
  StepRecord,
} from './types.js';

/**
 * The plan chart's setup: its input, context, events, actors (ports), guards and actions, and the
 * transitions its states share (plan.machine.ts, plan.drafting.states.ts, plan.running.states.ts,
 * plan.verification.states.ts).
 */
export interface PlanInput {
  planId: string;
  message: string;
  callerSessionId?: string | null;
  concurrency?: number;
  maxAttempts?: number;
  policy?: Partial<PlanPolicy>;
  /** The agenda item (and which of its firings) that started this plan; absent for plans a person started. */
  agendaItem?: AgendaItemRef;
}

/** Which agenda item (and which of its firings) started a plan: how a restarted agenda finds it. */
export interface AgendaItemRef {
  agenda_id: string;
  firing: number;
}

export interface PlanContext {
  plan_id: string;
  /** The user's first request; the goal once the planner has proposed a plan. */
  request: string;
  goal: string | null;
  proposal: PlanProposal | null;
  /** Earlier versions of the proposal, oldest first: the last is the one the human saw before this. */
  revisions: PlanProposal[];
  steps: StepRecord[];
  concurrency: number;
  max_attempts: number;
  policy: PlanPolicy;
  /** Specialist, reviewer and fixer turns started so far (plan-wide, across replans). */
  dispatches: number;
  /** The plan pauses for the human once `dispatches` reaches this; Continue raises it by policy.max_dispatches. */
  dispatch_cap: number;
  /** What every turn of the plan cost (planner, steps, read-only asks); absent in plans from before it was recorded. */
  usage?: Usage;
  /** The plan pauses once usage.cost reaches this (null: no limit); Continue raises it by policy.max_cost. */
  cost_cap?: number | null;
  /** The plan pauses once all tokens (totalTokens) reach this (null: no limit); Continue raises it by policy.max_tokens. */
  token_cap?: number | null;
  planner_session_id: string | null;
  caller_session_id: string | null;
  /** The next message the planner will be sent. */
  pending_message: string | null;
  answer: string | null;
  questions: HitlQuestion[] | null;
  decisions: DecisionRecord[];
  /** Why the last planner turn failed (protocol error, transport error); cleared on success. */
  planner_error: string | null;
  outcome: 'completed' | 'stopped' | 'rejected' | null;
  /** Optional, so snapshots written before it existed restore unchanged. */
  agenda_item?: AgendaItemRef;
  /** The last verification of the plan in the user's project, once every step landed; absent before one ran. */
  verification?: PlanVerification | null;
  /** How many verifications ran (the next one's idempotency key); absent before one ran. */
  verification_runs?: number;
  /** The project's configured checks that failed before the plan began (told once the planner's drafting ran them); absent: none known. */
  failing_before?: FailingCheck[];
  /**
   * Steps that landed in the shared tree and are being measured (step.landed, then step.completed with
   * the diff): their actors stay until then, and the plan does not end before. Absent: none.
   */
  measuring?: string[];
}

export type PlanEvent =
  | { type: 'plan.message'; message: string; callerSessionId?: string | null }
  | ({ type: 'question.answer'; answers: string[][] } & DecisionSource)
  | ({ type: 'approval.approve'; text?: string } & DecisionSource)
  | ({ type: 'approval.request_changes'; text: string } & DecisionSource)
  | ({ type: 'approval.reject'; text?: string } & DecisionSource)
  | ({ type: 'deviation.retry'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'deviation.replan'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'deviation.stop'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'resume.rerun'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'resume.mark_done'; stepId: string; text: string } & DecisionSource)
  | ({ type: 'resume.stop'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'merge.rerun'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'merge.resolved'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'merge.stop'; stepId: string; text?: string } & DecisionSource)
  | ({ type: 'budget.continue'; text?: string } & DecisionSource)
  | ({ type: 'budget.stop'; text?: string } & DecisionSource)
  | ({ type: 'verification.replan'; text?: string } & DecisionSource)
  | ({ type: 'verification.accept'; text?: string } & DecisionSource)
  | ({ type: 'verification.stop'; text?: string } & DecisionSource)
  /** A turn's usage: from a step (with its id and whose turn it was), or a read-only ask made from the plan's sessions. */
  | { type: 'usage.recorded'; stepId?: string; role?: TurnRole; usage: Usage }
  /** The project's configured checks that already fail, run while the planner drafted: each later turn is told. */
  | { type: 'checks.failing_before'; checks: FailingCheck[] }
  | StepParentEvent;

export const stepActorId = (stepId: string) => `step:${stepId}`;

/** Whether this step's completion leaves every step of the plan completed, and none still measured. */
const completesPlan = (context: PlanContext, stepId: string) =>
  allStepsCompleted(updateStep(context.steps, stepId, { status: 'completed' })) && (context.measuring ?? []).every((id) => id === stepId);
export const planSetup = setup({
  types: {
    context: {} as PlanContext,
    input: {} as PlanInput,
    events: {} as PlanEvent,
  },
  actors: {
    step: stepMachine,
    openPlannerSession: notProvided<{ sessionId: string }, OpenPlannerSessionInput>('openPlannerSession'),
    consultPlanner: notProvided<Turn<PlannerOutput>, ConsultPlannerInput>('consultPlanner'),
    verifyPlan: notProvided<Turn<PlanVerification>, VerifyPlanInput>('verifyPlan'),
  },
  guards: {
    hasPlannerSession: ({ context }) => context.planner_session_id !== null,
    plannerProposedPlan: (_, output: PlannerOutput) => output.type === 'plan',
    plannerAskedQuestion: (_, output: PlannerOutput) => output.type === 'question',
    /** Replan and Stop of a failed step; the auto policy decides nothing at an open breaker (a human does). */
    canDecideStep: ({ context }, p: { stepId: string; channel: string }) =>
      context.steps.some((s) => s.id === p.stepId && s.status === 'awaiting_decision' && (p.channel !== 'auto' || !s.breaker)),
    /** Retry of a failed step, by the retry rule (retry.ts); only the plan knows its budget. */
    canRetryStep: ({ context }, p: { stepId: string; channel: string }) =>
      context.steps.some(
        (s) =>
          s.id === p.stepId &&
          s.status === 'awaiting_decision' &&
          mayRetry({ failures: s.failures.length, maxAttempts: context.max_attempts, breakerOpen: Boolean(s.breaker), budgetLeft: dispatchesLeft(context) > 0 }, p.channel),
      ),
    /** Re-run and Stop at the resume gate (the auto policy may choose them); Mark done needs the human's words. */
    stepAwaitingResume: ({ context }, p: { stepId: string }) => context.steps.some((s) => s.id === p.stepId && s.status === 'awaiting_resume'),
    /** Stop at the merge gate (the auto policy may choose it). */
    stepAwaitingMerge: ({ context }, p: { stepId: string }) => context.steps.some((s) => s.id === p.stepId && s.status === 'awaiting_merge'),
    /** Run again on top: a new attempt, by the retry rule (the clash counts as a failed attempt). */
    canRunOnTop: ({ context }, p: { stepId: string; channel: string }) =>
      context.steps.some(
        (s) =>
          s.id === p.stepId &&
          s.status === 'awaiting_merge' &&
          mayRetry({ failures: s.failures.length + 1, maxAttempts: context.max_attempts, breakerOpen: false, budgetLeft: dispatchesLeft(context) > 0 }, p.channel),
      ),
    /** Resolved by hand: only a person can have resolved it. */
    canMarkResolved: ({ context }, p: { stepId: string; channel: string }) =>
      p.channel !== 'auto' && context.steps.some((s) => s.id === p.stepId && s.status === 'awaiting_merge'),
    /** Request Changes carries the human's guidance for the planner: without it there is nothing to revise. */
    hasGuidance: (_, p: { text: string }) => p.text.trim().length > 0,
    canMarkDone: ({ context }, p: { stepId: string; channel: string; text?: string }) =>
      p.channel !== 'auto' && (p.text ?? '').trim().length > 0 && context.steps.some((s) => s.id === p.stepId && s.status === 'awaiting_resume'),
    /**
     * A limit of the budget is reached (dispatches, money or tokens) and the plan wants another
     * dispatch: a step is ready to start or waits for a decision.
     */
    budgetSpent: ({ context }) =>
      crossedLimits(context).length > 0 &&
      (readySteps(context.steps, context.concurrency, context.policy.workspace).length > 0 || context.steps.some((s) => s.status === 'awaiting_decision')),
    allStepsCompleted: ({ context }) => allStepsCompleted(context.steps),
    /**
     * An approved plan made only of steps completed before (a revision after a failed step or a failed
     * verification) with something to verify: it is verified again, even when it adds no step.
     */
    allStepsCompletedToVerify: ({ context }) => allStepsCompleted(context.steps) && hasVerification(context),
    completesPlan: ({ context }, p: { stepId: string }) => completesPlan(context, p.stepId),
    /** A step landed before its measurement and others remain: its dependents may start. The last one's landing waits for its diff. */
    landingLeavesWork: ({ context }, p: { stepId: string }) => !completesPlan(context, p.stepId),
    /** The last step landed and there is something to verify: a configured command, or the plan's own list with the verifying turn on. */
    completesPlanToVerify: ({ context }, p: { stepId: string }) => completesPlan(context, p.stepId) && hasVerification(context),
    /** Every check passed, or failed before the plan too, the same way (verification.ts), unless the policy gates old failures. */
    verificationHeld: ({ context }, verification: PlanVerification) => verificationHeld(verification, context.policy),
  },
  actions: {
    takeMessage: assign(({ context }, p: { message: string; callerSessionId?: string | null }) => ({
      pending_message: p.message,
      caller_session_id: p.callerSessionId ?? context.caller_session_id,
    })),
    recordPlannerSession: assign({ planner_session_id: (_, p: { sessionId: string }) => p.sessionId }),
    acceptProposal: assign(({ context }, output: PlannerOutput) => {
      if (output.type !== 'plan') return {};
      const { type: _type, ...proposal } = output;
      const revisions = context.revisions ?? [];
      return {
        proposal,
        revisions: context.proposal ? [...revisions, context.proposal] : revisions,
        goal: proposal.goal,
        steps: stepRecords(proposal, context.steps),
        questions: null,
        planner_error: null,
        pending_message: null,
      };
    }),
    recordQuestions: assign({
      questions: (_, output: PlannerOutput) => (output.type === 'question' ? output.questions : null),
      planner_error: null,
      pending_message: null,
    }),
    recordAnswer: assign({
      answer: (_, output: PlannerOutput) => (output.type === 'answer' ? output.content : null),
      planner_error: null,
      pending_message: null,
    }),
    recordPlannerError: assign({ planner_error: (_, p: { error: string }) => p.error }),
    /** A turn's usage, summed into the plan and, for a step's turn, into that step and its role's share. */
    recordUsage: assign(({ context }, p: { stepId?: string; role?: TurnRole; usage: Usage }) => (p.usage.turns === 0 ? {} : withTurnUsage(context, p))),
    recordDecision: assign({ decisions: ({ context }, p: DecisionRecord) => [...context.decisions, p] }),
    answerQuestions: assign({
      pending_message: ({ context }, p: { answers: string[][] }) => answersMessage(context.questions ?? [], p.answers),
      questions: null,
    }),
    startReadySteps: enqueueActions(({ context, enqueue }) => {
      const ready = startableSteps(context);
      for (const step of ready) enqueue.spawnChild('step', { id: stepActorId(step.id), input: stepInput(context, step) });
      if (ready.length > 0) enqueue.assign({ steps: withRunning(context.steps, ready), dispatches: context.dispatches + ready.length });
    }),
    markDispatched: assign({
      steps: ({ context }, p: { stepId: string; attempt: number; sessionId: string }) =>
        updateStep(context.steps, p.stepId, { status: 'running', attempts: p.attempt, session_id: p.sessionId }),
    }),
    markFailed: assign({
      steps: ({ context }, p: { stepId: string; attempt: number; error: string; kind?: FailureKind; signature: string; breaker?: string }) =>
        withFailure(context.steps, p),
    }),
    /** A reviewer or fixer turn started: it counts against the dispatch budget. */
    markTurn: assign({
      steps: ({ context }, p: { stepId: string; round: number }) => updateStep(context.steps, p.stepId, { review_round: p.round }),
      dispatches: ({ context }) => context.dispatches + 1,
    }),
    /** Continue: each crossed limit raised by its configured amount (budget.ts). */
    raiseBudget: assign(({ context }) => raisedCaps(context)),
    addGuidance: assign({ steps: ({ context }, p: { stepId: string; text?: string }) => withStepGuidance(context.steps, p.stepId, p.text) }),
    /** The step leaves the deviation gate now, so no second decision is taken for it. */
    markRetrying: assign({
      steps: ({ context }, p: { stepId: string }) => withRetrying(context.steps, p.stepId),
      dispatches: ({ context }) => context.dispatches + 1,
    }),
    markInterrupted: assign({
      steps: ({ context }, p: { stepId: string; attempt: number }) => updateStep(context.steps, p.stepId, { status: 'awaiting_resume', attempts: p.attempt }),
    }),
    markMergeConflict: assign({
      steps: ({ context }, p: { stepId: string; attempt: number; conflicts: MergeConflict[]; error?: string; diff?: StepDiff }) =>
        withMergeConflict(context.steps, p),
    }),
    /** Run again on top chosen: a new attempt starts now (a dispatch), the clash kept as its failure. */
    markRunOnTop: assign({
      steps: ({ context }, p: { stepId: string; text?: string }) => withRunOnTop(context.steps, p.stepId, p.text),
      dispatches: ({ context }) => context.dispatches + 1,
    }),
    /** Re-run chosen: the step's turn runs again now, so no second decision is taken for it. */
    markResuming: assign({ steps: ({ context }, p: { stepId: string }) => updateStep(context.steps, p.stepId, { status: 'running' }) }),
    markCompleted: assign(({ context }, p: { stepId: string; output: StepRecord['output']; warnings?: string[]; diff?: StepDiff }) => ({
      steps: withCompleted(context.steps, p),
      ...(context.measuring?.includes(p.stepId) ? { measuring: context.measuring.filter((id) => id !== p.stepId) } : {}),
    })),
    /** Completed for its dependents, measured meanwhile: its actor stays until step.completed brings the diff. */
    markLanded: assign(({ context }, p: { stepId: string; output: StepRecord['output']; warnings?: string[] }) => ({
      steps: withCompleted(context.steps, p),
      // Told twice only by a step saved mid-measurement by an earlier version (it captures its tree again).
      measuring: context.measuring?.includes(p.stepId) ? context.measuring : [...(context.measuring ?? []), p.stepId],
    })),
    forwardToStep: sendTo(
      (_, p: { stepId: string; event: StepEvent }) => stepActorId(p.stepId),
      (_, p: { stepId: string; event: StepEvent }) => p.event as never,
    ),
    stopStep: stopChild((_, p: { stepId: string }) => stepActorId(p.stepId)),
    stopSteps: enqueueActions(({ context, enqueue }) => {
      for (const s of context.steps.filter(isActive)) enqueue.stopChild(stepActorId(s.id));
      // A landed step being measured stays completed, without its diff.
      for (const id of context.measuring ?? []) enqueue.stopChild(stepActorId(id));
      enqueue.assign({ steps: withStopped(context.steps), ...(context.measuring?.length ? { measuring: [] } : {}) });
    }),
    prepareReplan: assign({
      pending_message: ({ context }, p: { stepId: string; guidance?: string }) => replanMessage(context.steps.find((s) => s.id === p.stepId)!, p.guidance),
    }),
    setOutcome: assign({ outcome: (_, p: { outcome: 'completed' | 'stopped' | 'rejected' }) => p.outcome }),
    recordFailingBefore: assign({ failing_before: (_, p: { checks: FailingCheck[] }) => p.checks }),
    recordVerification: assign({
      verification: (_, verification: PlanVerification) => verification,
      verification_runs: ({ context }) => (context.verification_runs ?? 0) + 1,
    }),
    /** The verification could not be carried out (its port failed): recorded as a failed check, so a person decides. */
    recordVerificationError: assign({
      verification: (_, p: { error: string }) => ({
        passed: false,
        checks: [{ kind: 'turn' as const, name: 'the verification itself', passed: false, output: p.error }],
        changed: [],
      }),
      verification_runs: ({ context }) => (context.verification_runs ?? 0) + 1,
    }),
    prepareVerificationReplan: assign({
      pending_message: ({ context }, p: { text?: string }) => verificationReplanMessage(context.verification ?? null, p.text),
    }),
  },
});

/** Where a planner turn leads; shared by drafting and changes_requested. Its usage counts in every case. */
const plannerUsage = { type: 'recordUsage' as const, params: doneUsage };
export const plannerDone = [
  {
    guard: { type: 'plannerProposedPlan' as const, params: valueOf },
    target: '#plan.pending_approval',
    actions: [plannerUsage, { type: 'acceptProposal' as const, params: valueOf }],
  },
  {
    guard: { type: 'plannerAskedQuestion' as const, params: valueOf },
    target: '#plan.drafting.awaiting_answers',
    actions: [plannerUsage, { type: 'recordQuestions' as const, params: valueOf }],
  },
  {
    target: '#plan.drafting.answered',
    actions: [plannerUsage, { type: 'recordAnswer' as const, params: valueOf }],
  },
];
/** A planner turn that failed after its corrections still cost what its prompts did. */
export const plannerFailed = {
  target: '#plan.drafting.planner_failed',
  actions: [
    { type: 'recordUsage' as const, params: failedUsage },
    { type: 'recordPlannerError' as const, params: messageOf },
  ],
};
