import { assign, enqueueActions, sendTo, setup, stopChild } from 'xstate';
import { crossedLimits, dispatchesLeft, raisedCaps, withTurnUsage } from './budget.js';
import { notProvided } from './not-provided.js';
import { doneUsage, failedUsage, messageOf, valueOf } from './outcome-params.js';
import { decision, forwardAs, forwardRetry, forwardRunOnTop } from './plan-decisions.js';
import { answersMessage, changesRequestedMessage, replanMessage, verificationReplanMessage } from './plan-text.js';
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
import type { Turn } from './turn.js';
import { ZERO_USAGE, type TurnRole, type Usage } from './usage.js';
import {
  DEFAULT_PLAN_POLICY,
  type DecisionRecord,
  type DecisionSource,
  type FailureKind,
  type HitlQuestion,
  type MergeConflict,
  type PlannerOutput,
  type PlanPolicy,
  type PlanProposal,
  type PlanVerification,
  type StepDiff,
  type StepRecord,
} from './types.js';

/**
 * The plan lifecycle (docs/design.md, "Plan lifecycle"; the state names are public): drafting →
 * pending_approval → approved → in_progress → completed | failed, pending_approval →
 * changes_requested → drafting, pending_approval → rejected. Each step of an approved plan is a
 * spawned `step` machine (named, so it restores).
 */

export const PLAN_MACHINE_VERSION = 3;
export const DEFAULT_MAX_ATTEMPTS = 10;
/**
 * Four ready steps at once: a plan's DAG is rarely wider, four concurrent turns are what OpenCode's
 * single server thread and a provider's rate limits take without slowing each turn much (bench P1),
 * and `conflicts` keeps two file-changing steps apart unless both declared disjoint files.
 */
export const DEFAULT_CONCURRENCY = 4;

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
  | StepParentEvent;

export const stepActorId = (stepId: string) => `step:${stepId}`;

/** Whether this step's completion leaves every step of the plan completed, and none still measured. */
const completesPlan = (context: PlanContext, stepId: string) =>
  allStepsCompleted(updateStep(context.steps, stepId, { status: 'completed' })) && (context.measuring ?? []).every((id) => id === stepId);

const planSetup = setup({
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
    completesPlan: ({ context }, p: { stepId: string }) => completesPlan(context, p.stepId),
    /** A step landed before its measurement and others remain: its dependents may start. The last one's landing waits for its diff. */
    landingLeavesWork: ({ context }, p: { stepId: string }) => !completesPlan(context, p.stepId),
    /** The last step landed and there is something to verify: a configured command, or the plan's own list with the verifying turn on. */
    completesPlanToVerify: ({ context }, p: { stepId: string }) =>
      completesPlan(context, p.stepId) &&
      ((context.policy.verify_commands?.length ?? 0) > 0 || (context.policy.verify_turn === true && (context.proposal?.verification.length ?? 0) > 0)),
    verificationPassed: (_, verification: PlanVerification) => verification.passed,
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
const plannerDone = [
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
const plannerFailed = {
  target: '#plan.drafting.planner_failed',
  actions: [
    { type: 'recordUsage' as const, params: failedUsage },
    { type: 'recordPlannerError' as const, params: messageOf },
  ],
};

export const planMachine = planSetup.createMachine({
  id: 'plan',
  context: ({ input }) => ({
    plan_id: input.planId,
    request: input.message,
    goal: null,
    proposal: null,
    revisions: [],
    steps: [],
    concurrency: input.concurrency ?? DEFAULT_CONCURRENCY,
    max_attempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    policy: { ...DEFAULT_PLAN_POLICY, ...input.policy },
    dispatches: 0,
    dispatch_cap: input.policy?.max_dispatches ?? DEFAULT_PLAN_POLICY.max_dispatches,
    usage: ZERO_USAGE,
    cost_cap: input.policy?.max_cost ?? null,
    token_cap: input.policy?.max_tokens ?? null,
    planner_session_id: null,
    caller_session_id: input.callerSessionId ?? null,
    pending_message: input.message,
    answer: null,
    questions: null,
    decisions: [],
    planner_error: null,
    outcome: null,
    ...(input.agendaItem ? { agenda_item: input.agendaItem } : {}),
  }),
  initial: 'drafting',
  on: {
    'usage.recorded': { actions: { type: 'recordUsage', params: ({ event }) => event } },
  },
  states: {
    /**
     * Tag `workspaces.prepare` (here, at the approval gate and while changes are requested): no step
     * runs yet, its worktrees can be made. Tag `workspaces.warm` (at the approval gate only): a person
     * reads the plan, so the time their OpenCode instances take to start is time nobody waits on.
     */
    drafting: {
      tags: ['workspaces.prepare'],
      initial: 'routing',
      states: {
        routing: {
          always: [{ guard: 'hasPlannerSession', target: 'consulting' }, { target: 'opening_session' }],
        },
        opening_session: {
          tags: ['busy'],
          invoke: {
            id: 'openPlannerSession',
            src: 'openPlannerSession',
            input: ({ context }) => ({ planId: context.plan_id, callerSessionId: context.caller_session_id }),
            onDone: {
              target: 'consulting',
              actions: { type: 'recordPlannerSession', params: ({ event }) => event.output },
            },
            onError: plannerFailed,
          },
        },
        consulting: {
          tags: ['busy'],
          invoke: {
            id: 'consultPlanner',
            src: 'consultPlanner',
            input: ({ context }) => ({
              planId: context.plan_id,
              sessionId: context.planner_session_id!,
              message: context.pending_message ?? context.request,
            }),
            onDone: plannerDone,
            onError: plannerFailed,
          },
        },
        answered: {
          tags: ['outcome.answer'],
          on: { 'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } } },
        },
        awaiting_answers: {
          tags: ['gate.question'],
          on: {
            'question.answer': {
              target: 'routing',
              actions: [
                {
                  type: 'recordDecision',
                  params: ({ event }) => decision('question', event.answers.map((a) => a.join(', ')).join(' | '), event),
                },
                { type: 'answerQuestions', params: ({ event }) => event },
              ],
            },
            'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } },
          },
        },
        planner_failed: {
          tags: ['outcome.failure'],
          on: { 'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } } },
        },
      },
    },
    pending_approval: {
      tags: ['gate.approval', 'workspaces.prepare', 'workspaces.warm'],
      on: {
        'approval.approve': {
          target: 'approved',
          actions: { type: 'recordDecision', params: ({ event }) => decision('approval', 'Approve', event) },
        },
        'approval.request_changes': {
          guard: { type: 'hasGuidance', params: ({ event }) => event },
          target: 'changes_requested',
          actions: [
            { type: 'recordDecision', params: ({ event }) => decision('approval', 'Request Changes', event) },
            { type: 'takeMessage', params: ({ event }) => ({ message: changesRequestedMessage(event.text) }) },
          ],
        },
        'approval.reject': {
          target: 'rejected',
          actions: [
            { type: 'recordDecision', params: ({ event }) => decision('approval', 'Reject', event) },
            { type: 'setOutcome', params: { outcome: 'rejected' } },
          ],
        },
      },
    },
    changes_requested: {
      tags: ['busy', 'workspaces.prepare'],
      invoke: {
        id: 'revisePlan',
        src: 'consultPlanner',
        input: ({ context }) => ({
          planId: context.plan_id,
          sessionId: context.planner_session_id!,
          message: context.pending_message ?? '',
        }),
        onDone: plannerDone,
        onError: plannerFailed,
      },
    },
    approved: {
      always: [
        // A revised plan made only of steps completed before the replan has nothing left to run.
        { guard: 'allStepsCompleted', target: 'completed', actions: { type: 'setOutcome', params: { outcome: 'completed' } } },
        { target: 'in_progress' },
      ],
    },
    /**
     * Tag `busy`: something runs (a planner turn, steps); a plan left here by a stopped process was interrupted.
     * Tag `plan.steps`: the plan's steps are alive here (and may hold a workspace); nowhere else.
     */
    in_progress: {
      tags: ['busy', 'plan.steps'],
      initial: 'running',
      states: {
        running: {
          // The plan runs with nothing to ask of anyone: where orca_ask_planner may return early (ask_planner_returns).
          tags: ['plan.running'],
          entry: 'startReadySteps',
          always: { guard: 'budgetSpent', target: 'budget_exhausted' },
        },
        /**
         * The dispatch cap (`breakers.max_dispatches`, 100) and the money and token budgets, so a
         * looping plan cannot spend unseen (docs/design.md, "Breakers and limits"): no new dispatch
         * until a human says Continue (which raises the crossed limits) or Stop.
         */
        /**
         * Every step landed: the plan's verification is carried out in the user's project (the
         * configured commands, and a turn for the plan's own list), so two steps that each pass
         * alone cannot leave a tree that fails unseen. A failure waits for a person.
         */
        verifying: {
          invoke: {
            id: 'verifyPlan',
            src: 'verifyPlan',
            input: ({ context }) => ({
              idempotencyKey: `${context.plan_id}:verify:${(context.verification_runs ?? 0) + 1}`,
              planId: context.plan_id,
              goal: context.goal ?? context.request,
              verification: context.proposal?.verification ?? [],
              commands: context.policy.verify_commands ?? [],
              turn: context.policy.verify_turn === true,
              steps: context.steps.map((s) => ({ id: s.id, agent: s.agent, summary: s.output?.summary ?? '' })),
              parentSessionId: context.caller_session_id,
            }),
            onDone: [
              {
                guard: { type: 'verificationPassed', params: valueOf },
                target: '#plan.completed',
                actions: [{ type: 'recordUsage', params: doneUsage }, { type: 'recordVerification', params: valueOf }, { type: 'setOutcome', params: { outcome: 'completed' } }],
              },
              { target: 'verification_failed', actions: [{ type: 'recordUsage', params: doneUsage }, { type: 'recordVerification', params: valueOf }] },
            ],
            onError: { target: 'verification_failed', actions: [{ type: 'recordUsage', params: failedUsage }, { type: 'recordVerificationError', params: messageOf }] },
          },
        },
        /** The landed tree failed its verification: Replan (the planner is told what failed), Accept as is, or Stop. */
        verification_failed: {
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
        },
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
    },
    completed: { type: 'final', tags: ['outcome.completed'] },
    failed: { type: 'final', tags: ['outcome.stopped'] },
    rejected: { type: 'final', tags: ['outcome.rejected'] },
  },
});

export type PlanMachine = typeof planMachine;
