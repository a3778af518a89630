import { assign, enqueueActions, sendTo, setup, stopChild } from 'xstate';
import { crossedLimits, dispatchesLeft, raisedCaps, sumUsage, withTurnUsage } from './budget.js';
import { notProvided } from './not-provided.js';
import { stepMachine, type StepParentEvent } from './step.machine.js';
import { allStepsCompleted, readySteps, threadContext, WRITING_AGENTS } from './threading.js';
import { usageOfError, type Turn } from './turn.js';
import { addRoleUsage, ZERO_USAGE, type TurnRole, type Usage } from './usage.js';
import {
  DEFAULT_PLAN_POLICY,
  type DecisionRecord,
  type DecisionSource,
  type FailureKind,
  type HitlQuestion,
  type PlannerOutput,
  type PlanPolicy,
  type PlanProposal,
  type StepPolicy,
  type StepRecord,
} from './types.js';

/**
 * The plan lifecycle of seed 000: drafting → pending_approval → approved → in_progress →
 * completed | failed, pending_approval → changes_requested → drafting, pending_approval →
 * rejected. Each step of an approved plan is a spawned `step` machine (named, so it restores).
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
  /** The agenda item firing that started this plan (seed 002); absent for plans a person started. */
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
  | ({ type: 'budget.continue'; text?: string } & DecisionSource)
  | ({ type: 'budget.stop'; text?: string } & DecisionSource)
  /** A turn's usage: from a step (with its id and whose turn it was), or a read-only ask made from the plan's sessions. */
  | { type: 'usage.recorded'; stepId?: string; role?: TurnRole; usage: Usage }
  | StepParentEvent;

export interface OpenPlannerSessionInput {
  planId: string;
  callerSessionId: string | null;
}

export interface ConsultPlannerInput {
  planId: string;
  sessionId: string;
  message: string;
}

export const stepActorId = (stepId: string) => `step:${stepId}`;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The planner's answers to its own questions, as the next message it reads. */
export function answersMessage(questions: HitlQuestion[], answers: string[][]): string {
  const lines = questions.map((q, i) => `Q: ${q.question}\nA: ${(answers[i] ?? []).join(', ') || '(no answer)'}`);
  return `The user answered your questions:\n\n${lines.join('\n\n')}`;
}

export function replanMessage(step: StepRecord, guidance?: string): string {
  const last = step.failures.at(-1);
  return [
    `Step "${step.id}" (${step.agent}) failed and the user chose Replan.`,
    `Error of attempt ${last?.attempt ?? step.attempts}: ${last?.error ?? 'unknown'}`,
    guidance ? `User guidance: ${guidance}` : '',
    'Completed steps keep their outputs when you reuse their ids. Return a revised plan.',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * New step records for a proposal; a completed step whose id survives a replan keeps its output.
 * A step id that survives keeps what its turns cost so far.
 */
function stepRecords(proposal: PlanProposal, previous: StepRecord[]): StepRecord[] {
  return proposal.steps.map((spec) => {
    const kept = previous.find((p) => p.id === spec.id && p.status === 'completed');
    if (kept) return { ...kept, ...spec, status: 'completed', depends_on: spec.depends_on ?? [] };
    const { usage, usage_by_role } = previous.find((p) => p.id === spec.id) ?? {};
    return { ...spec, depends_on: spec.depends_on ?? [], status: 'pending', attempts: 0, failures: [], ...(usage ? { usage } : {}), ...(usage_by_role ? { usage_by_role } : {}) };
  });
}

/** How one step runs under the plan's policy. */
export const stepPolicy = (policy: PlanPolicy, step: StepRecord): StepPolicy => ({
  ask_before_rerun: WRITING_AGENTS.includes(step.agent) && step.idempotent !== true,
  review: policy.review_agents.includes(step.agent),
  review_rounds: policy.review_rounds,
  same_error_limit: policy.same_error_limit,
  idle_ms: policy.idle_ms,
  pre_hooks: policy.pre_hooks,
  post_hooks: policy.post_hooks,
});

/** Steps to start now: ready ones, no more than the budget lets start (none once money or tokens are spent). */
const startable = (c: PlanContext) => readySteps(c.steps, c.concurrency).slice(0, dispatchesLeft(c));

const updateStep = (steps: StepRecord[], id: string, patch: Partial<StepRecord>) =>
  steps.map((s) => (s.id === id ? { ...s, ...patch } : s));

type Decision = DecisionSource & { type: string; text?: string; stepId?: string };
const decision = (gate: DecisionRecord['gate'], option: string, e: Decision): DecisionRecord => ({
  gate,
  option,
  channel: e.channel,
  at: e.at,
  ...(e.stepId ? { step_id: e.stepId } : {}),
  ...(e.text ? { text: e.text } : {}),
});

type GateStepEvent = Extract<PlanEvent, { type: `deviation.${string}` | `resume.${string}` }>;
type StepDecision = { type: 'step.retry' | 'step.replan' | 'step.stop' | 'step.rerun' | 'step.mark_done'; guidance?: string; summary?: string } & DecisionSource;

/** The step machine's event for a human's decision at a step's gate, with its text as guidance (or, for Mark done, the summary). */
const forwardAs =
  (type: StepDecision['type']) =>
  ({ event }: { event: GateStepEvent }) => ({
    stepId: event.stepId,
    event: {
      type,
      channel: event.channel,
      at: event.at,
      ...(event.text ? (type === 'step.mark_done' ? { summary: event.text } : { guidance: event.text }) : {}),
    } as StepDecision,
  });

type PlannerDone = { event: { output: Turn<PlannerOutput> } };
const plannerOutput = ({ event }: PlannerDone) => event.output.value;
const plannerUsage = { type: 'recordUsage' as const, params: ({ event }: PlannerDone) => ({ usage: event.output.usage }) };

/** Where a planner turn leads; shared by drafting and changes_requested. Its usage counts in every case. */
const plannerDone = [
  {
    guard: { type: 'plannerProposedPlan' as const, params: plannerOutput },
    target: '#plan.pending_approval',
    actions: [plannerUsage, { type: 'acceptProposal' as const, params: plannerOutput }],
  },
  {
    guard: { type: 'plannerAskedQuestion' as const, params: plannerOutput },
    target: '#plan.drafting.awaiting_answers',
    actions: [plannerUsage, { type: 'recordQuestions' as const, params: plannerOutput }],
  },
  {
    target: '#plan.drafting.answered',
    actions: [plannerUsage, { type: 'recordAnswer' as const, params: plannerOutput }],
  },
];
const plannerFailed = {
  target: '#plan.drafting.planner_failed',
  actions: [
    // A turn that failed after its corrections still cost what its prompts did.
    { type: 'recordUsage' as const, params: ({ event }: { event: { error: unknown } }) => ({ usage: usageOfError(event.error) ?? ZERO_USAGE }) },
    { type: 'recordPlannerError' as const, params: ({ event }: { event: { error: unknown } }) => ({ error: errorText(event.error) }) },
  ],
};

export const planMachine = setup({
  types: {
    context: {} as PlanContext,
    input: {} as PlanInput,
    events: {} as PlanEvent,
  },
  actors: {
    step: stepMachine,
    openPlannerSession: notProvided<{ sessionId: string }, OpenPlannerSessionInput>('openPlannerSession'),
    consultPlanner: notProvided<Turn<PlannerOutput>, ConsultPlannerInput>('consultPlanner'),
  },
  guards: {
    hasPlannerSession: ({ context }) => context.planner_session_id !== null,
    plannerProposedPlan: (_, output: PlannerOutput) => output.type === 'plan',
    plannerAskedQuestion: (_, output: PlannerOutput) => output.type === 'question',
    /** Replan and Stop of a failed step; the auto policy decides nothing at an open breaker (a human does). */
    canDecideStep: ({ context }, params: { stepId: string; channel: string }) =>
      context.steps.some((s) => s.id === params.stepId && s.status === 'awaiting_decision' && (params.channel !== 'auto' || !s.breaker)),
    /**
     * Retry is offered below the attempt limit. The auto policy may not retry past an open breaker
     * or a spent budget (dispatches, money, tokens): those wait for a human.
     */
    canRetryStep: ({ context }, params: { stepId: string; channel: string }) =>
      context.steps.some(
        (s) =>
          s.id === params.stepId &&
          s.status === 'awaiting_decision' &&
          s.failures.length < context.max_attempts &&
          (params.channel !== 'auto' || (!s.breaker && dispatchesLeft(context) > 0)),
      ),
    /** Re-run and Stop at the resume gate (the auto policy may choose them); Mark done needs the human's words. */
    stepAwaitingResume: ({ context }, params: { stepId: string }) =>
      context.steps.some((s) => s.id === params.stepId && s.status === 'awaiting_resume'),
    canMarkDone: ({ context }, params: { stepId: string; channel: string; text?: string }) =>
      params.channel !== 'auto' &&
      (params.text ?? '').trim().length > 0 &&
      context.steps.some((s) => s.id === params.stepId && s.status === 'awaiting_resume'),
    /**
     * A limit of the budget is reached (dispatches, money or tokens) and the plan wants another
     * dispatch: a step is ready to start or waits for a decision.
     */
    budgetSpent: ({ context }) =>
      crossedLimits(context).length > 0 &&
      (readySteps(context.steps, context.concurrency).length > 0 || context.steps.some((s) => s.status === 'awaiting_decision')),
    allStepsCompleted: ({ context }) => allStepsCompleted(context.steps),
    completesPlan: ({ context }, params: { stepId: string }) =>
      allStepsCompleted(updateStep(context.steps, params.stepId, { status: 'completed' })),
  },
  actions: {
    takeMessage: assign(({ context }, params: { message: string; callerSessionId?: string | null }) => ({
      pending_message: params.message,
      caller_session_id: params.callerSessionId ?? context.caller_session_id,
    })),
    recordPlannerSession: assign({ planner_session_id: (_, params: { sessionId: string }) => params.sessionId }),
    acceptProposal: assign(({ context }, output: PlannerOutput) => {
      if (output.type !== 'plan') return {};
      const { type: _type, ...proposal } = output;
      return {
        proposal,
        revisions: context.proposal ? [...(context.revisions ?? []), context.proposal] : (context.revisions ?? []),
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
    recordPlannerError: assign({ planner_error: (_, params: { error: string }) => params.error }),
    /** A turn's usage, summed into the plan and, for a step's turn, into that step and its role's share. */
    recordUsage: assign(({ context }, params: { stepId?: string; role?: TurnRole; usage: Usage }) => {
      if (params.usage.turns === 0) return {};
      const summed = withTurnUsage(context, params);
      const { stepId, role } = params;
      if (stepId === undefined || role === undefined) return summed;
      return { ...summed, steps: summed.steps.map((s) => (s.id === stepId ? { ...s, usage_by_role: addRoleUsage(s.usage_by_role, role, params.usage, sumUsage) } : s)) };
    }),
    recordDecision: assign({
      decisions: ({ context }, params: DecisionRecord) => [...context.decisions, params],
    }),
    answerQuestions: assign({
      pending_message: ({ context }, params: { answers: string[][] }) =>
        answersMessage(context.questions ?? [], params.answers),
      questions: null,
    }),
    startReadySteps: enqueueActions(({ context, enqueue }) => {
      const ready = startable(context);
      for (const step of ready) {
        const thread = threadContext(
          {
            plan_id: context.plan_id,
            goal: context.goal ?? context.request,
            relevant_files: context.proposal?.relevant_files ?? [],
            steps: context.steps,
          },
          step.id,
        );
        enqueue.spawnChild('step', {
          id: stepActorId(step.id),
          input: {
            planId: context.plan_id,
            thread,
            maxAttempts: context.max_attempts,
            parentSessionId: context.caller_session_id,
            policy: stepPolicy(context.policy, step),
          },
        });
      }
      if (ready.length > 0) {
        const ids = new Set(ready.map((s) => s.id));
        enqueue.assign({
          steps: context.steps.map((s) => (ids.has(s.id) ? { ...s, status: 'running' as const } : s)),
          dispatches: context.dispatches + ready.length,
        });
      }
    }),
    markDispatched: assign({
      steps: ({ context }, p: { stepId: string; attempt: number; sessionId: string }) =>
        updateStep(context.steps, p.stepId, { status: 'running', attempts: p.attempt, session_id: p.sessionId }),
    }),
    markFailed: assign({
      steps: ({ context }, p: { stepId: string; attempt: number; error: string; kind?: FailureKind; signature: string; breaker?: string }) =>
        updateStep(context.steps, p.stepId, {
          status: 'awaiting_decision',
          attempts: p.attempt,
          failures: [
            ...(context.steps.find((s) => s.id === p.stepId)?.failures ?? []),
            { attempt: p.attempt, error: p.error, ...(p.kind ? { kind: p.kind } : {}), signature: p.signature },
          ],
          ...(p.breaker ? { breaker: p.breaker } : {}),
        }),
    }),
    /** A reviewer or fixer turn started: it counts against the dispatch budget. */
    markTurn: assign({
      steps: ({ context }, p: { stepId: string; round: number }) => updateStep(context.steps, p.stepId, { review_round: p.round }),
      dispatches: ({ context }) => context.dispatches + 1,
    }),
    /** Continue: each crossed limit raised by its configured amount (budget.ts). */
    raiseBudget: assign(({ context }) => raisedCaps(context)),
    addGuidance: assign({
      steps: ({ context }, p: { stepId: string; text?: string }) =>
        context.steps.map((s) =>
          s.id === p.stepId && p.text
            ? { ...s, failures: s.failures.map((f, i) => (i === s.failures.length - 1 ? { ...f, guidance: p.text } : f)) }
            : s,
        ),
    }),
    /** The step leaves the deviation gate now, so no second decision is taken for it. */
    markRetrying: assign({
      // Keys are removed, not set to undefined: a snapshot must read the same after a JSON round trip.
      steps: ({ context }, p: { stepId: string }) =>
        context.steps.map((step) => {
          if (step.id !== p.stepId) return step;
          const { breaker: _breaker, review_round: _round, ...rest } = step;
          return { ...rest, status: 'running' as const };
        }),
      dispatches: ({ context }) => context.dispatches + 1,
    }),
    markInterrupted: assign({
      steps: ({ context }, p: { stepId: string; attempt: number }) => updateStep(context.steps, p.stepId, { status: 'awaiting_resume', attempts: p.attempt }),
    }),
    /** Re-run chosen: the step's turn runs again now, so no second decision is taken for it. */
    markResuming: assign({
      steps: ({ context }, p: { stepId: string }) => updateStep(context.steps, p.stepId, { status: 'running' }),
    }),
    markCompleted: assign({
      steps: ({ context }, p: { stepId: string; output: StepRecord['output']; warnings?: string[] }) =>
        updateStep(context.steps, p.stepId, {
          status: 'completed',
          output: p.output,
          ...(p.warnings?.length ? { warnings: p.warnings } : {}),
        }),
    }),
    forwardToStep: sendTo(
      (_, p: { stepId: string; event: StepDecision }) => stepActorId(p.stepId),
      (_, p: { stepId: string; event: StepDecision }) => p.event as never,
    ),
    stopStep: stopChild((_, p: { stepId: string }) => stepActorId(p.stepId)),
    stopSteps: enqueueActions(({ context, enqueue }) => {
      for (const s of context.steps) {
        if (s.status === 'running' || s.status === 'awaiting_decision') enqueue.stopChild(stepActorId(s.id));
      }
      enqueue.assign({
        steps: context.steps.map((s) =>
          s.status === 'running' || s.status === 'awaiting_decision' ? { ...s, status: 'stopped' as const } : s,
        ),
      });
    }),
    prepareReplan: assign({
      pending_message: ({ context }, p: { stepId: string; guidance?: string }) =>
        replanMessage(context.steps.find((s) => s.id === p.stepId)!, p.guidance),
    }),
    setOutcome: assign({ outcome: (_, p: { outcome: 'completed' | 'stopped' | 'rejected' }) => p.outcome }),
  },
}).createMachine({
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
    drafting: {
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
      tags: ['gate.approval'],
      on: {
        'approval.approve': {
          target: 'approved',
          actions: { type: 'recordDecision', params: ({ event }) => decision('approval', 'Approve', event) },
        },
        'approval.request_changes': {
          target: 'changes_requested',
          actions: [
            { type: 'recordDecision', params: ({ event }) => decision('approval', 'Request Changes', event) },
            { type: 'takeMessage', params: ({ event }) => ({ message: `The user requested changes to the plan:\n${event.text}` }) },
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
      tags: ['busy'],
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
    /** Tag `busy`: something runs (a planner turn, steps); a plan left here by a stopped process was interrupted. */
    in_progress: {
      tags: ['busy'],
      initial: 'running',
      states: {
        running: {
          entry: 'startReadySteps',
          always: { guard: 'budgetSpent', target: 'budget_exhausted' },
        },
        /**
         * Seed 003's "100 iterations → stop, show progress", and the money and token budgets: no new
         * dispatch until a human says Continue (which raises the crossed limits) or Stop.
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
        'step.completed': [
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
            { type: 'forwardToStep', params: forwardAs('step.retry') },
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
