import { assign, enqueueActions, sendParent, setup } from 'xstate';
import { repeatedSignature, reviewSignature } from './error-signature.js';
import { notProvided } from './not-provided.js';
import { portFailure, answeredFailure, messageOf, usageOfDone, usageOfFailure, valueOf } from './outcome-params.js';
import {
  idempotencyKey,
  type MergeStepInput,
  type MeasureStepInput,
  type OpenSessionInput,
  type OpenWorkspaceInput,
  type RunFixInput,
  type RunReviewInput,
  type RunSpecialistInput,
  type StepHooksInput,
  type WatchIdleInput,
} from './ports.js';
import { mayRetry, type RetryState } from './retry.js';
import { failedAttempt, mergeFailure, stepOutputOf, withGuidance } from './step-records.js';
import { breakerText, diffUnavailableText, idleTimeoutText, postHooksFailedText, reviewFailureText } from './step-text.js';
import type { Turn } from './turn.js';
import type { TurnRole, Usage } from './usage.js';
import type {
  DecisionSource,
  FailedAttempt,
  FailureKind,
  InterruptedTurn,
  MergeConflict,
  MergeOutcome,
  ReviewError,
  ReviewResult,
  SpecialistId,
  SpecialistResult,
  StepDiff,
  StepOutput,
  StepPolicy,
  StepWorkspace,
  ThreadedContext,
} from './types.js';

/**
 * One step of an approved plan (docs/design.md, "Steps"): pre-step hooks, a child session for the
 * specialist, its run (watched for idleness), the reviewer gate with its fixer loop for
 * code-writing agents, post-step hooks, and on failure the deviation gate where the human chooses
 * Retry / Replan / Stop. `retriesRemain` refuses Retry after `maxAttempts` failures; the same error
 * signature `same_error_limit` times in a row opens the breaker, where only a human (never the auto
 * policy) may retry. A turn found interrupted after a restart (no result to reuse) waits at the
 * resume gate (Re-run / Mark done / Stop) when the step changes files. In a git repository a
 * file-changing step works in its own worktree (docs/design.md, "Isolation and merge"): git
 * measures what it really changed before each review, and once done its changes land in the
 * user's tree; a change that does not apply waits at the merge gate (Run again on top / Resolved
 * by hand / Stop).
 */

export const STEP_MACHINE_VERSION = 4;

export interface StepInput {
  planId: string;
  thread: ThreadedContext;
  maxAttempts: number;
  parentSessionId: string | null;
  policy: StepPolicy;
}

export interface ReviewState {
  /** The reviewer's session for this attempt. */
  session_id: string | null;
  /** The review round in progress (1-based). */
  round: number;
  /** The errors of the last FAIL, given to the fixer. */
  errors: ReviewError[];
  /** One signature per FAIL, for the breaker. */
  signatures: string[];
}

export interface StepContext {
  planId: string;
  stepId: string;
  agent: SpecialistId;
  thread: ThreadedContext;
  maxAttempts: number;
  parentSessionId: string | null;
  policy: StepPolicy;
  /** The attempt in flight (1-based). */
  attempt: number;
  failures: FailedAttempt[];
  sessionId: string | null;
  output: StepOutput | null;
  review: ReviewState;
  /** Set when the breaker opened: why automatic retrying stopped. */
  breaker: string | null;
  /** Post-step hook failures (never blocking). */
  warnings: string[];
  /** The turn a restart found interrupted, while the step waits at the resume gate. */
  interrupted: (InterruptedTurn & { turn: 'specialist' | 'fix' }) | null;
  /** A human chose Re-run for this attempt: its turn runs again without asking. */
  rerun_confirmed: boolean;
  /** Where the step works, once made (absent in steps from before isolation). */
  workspace?: StepWorkspace | null;
  /** What the step really changed, last measured (absent in steps from before isolation). */
  diff?: StepDiff | null;
  /** While at the merge gate: what did not apply, and why when git said more than the clashing files. */
  merge?: { conflicts: MergeConflict[]; error?: string } | null;
}

export type StepEvent =
  | ({ type: 'step.rerun' } & DecisionSource)
  /** `on_top_of`: the steps beside it whose changes are in the user's tree now; `landed`: those that changed the clashing files first (runOnTopOf). */
  | ({ type: 'step.rerun_on_top'; guidance?: string; on_top_of?: string[]; landed?: string[] } & DecisionSource)
  | ({ type: 'step.merge_resolved' } & DecisionSource)
  | ({ type: 'step.mark_done'; summary: string } & DecisionSource)
  /** `landed_now`: the steps beside it whose changes are in the user's tree now (landedBeside). */
  | ({ type: 'step.retry'; guidance?: string; landed_now?: string[] } & DecisionSource)
  | ({ type: 'step.replan'; guidance?: string } & DecisionSource)
  | ({ type: 'step.stop'; guidance?: string } & DecisionSource);

/** Events a step sends to its plan. */
export type StepParentEvent =
  | { type: 'step.dispatched'; stepId: string; attempt: number; sessionId: string }
  | { type: 'step.turn'; stepId: string; kind: 'review' | 'fix'; round: number }
  | { type: 'step.failed'; stepId: string; attempt: number; error: string; kind?: FailureKind; signature: string; breaker?: string }
  | { type: 'step.interrupted'; stepId: string; attempt: number }
  | { type: 'step.completed'; stepId: string; output: StepOutput; warnings?: string[]; diff?: StepDiff }
  | { type: 'step.merge_conflict'; stepId: string; attempt: number; conflicts: MergeConflict[]; error?: string; diff?: StepDiff }
  | { type: 'step.replan_chosen'; stepId: string; guidance?: string }
  | { type: 'step.stop_chosen'; stepId: string; guidance?: string }
  /** What one of the step's turns (specialist, reviewer, fixer, with their corrections) cost, and whose it was. */
  | { type: 'usage.recorded'; stepId: string; role: TurnRole; usage: Usage };

/** What Retry carries from the plan into the next attempt. */
type RetryParams = { guidance?: string | undefined; landed_now?: string[] | undefined };
/** What Run again on top carries from the plan into the new attempt. */
type OnTopParams = { guidance?: string | undefined; on_top_of?: string[] | undefined; landed?: string[] | undefined };

const newReview = (): ReviewState => ({ session_id: null, round: 1, errors: [], signatures: [] });

/** A restored turn runs again unasked when the step does not change files, was marked idempotent, or a human said Re-run. */
const mayRerun = (context: StepContext) => context.rerun_confirmed || !context.policy.ask_before_rerun;

/** The failure of the attempt in flight (`failures` holds it as the last entry). */
const lastFailure = (context: StepContext) => context.failures.at(-1);

const attemptKey = (c: StepContext) => idempotencyKey(c.planId, c.stepId, c.attempt);

/** What the retry rule (retry.ts) reads of a step; whether its breaker is open is the state it waits in. */
const retryState = (c: StepContext, breakerOpen: boolean): RetryState => ({ failures: c.failures.length, maxAttempts: c.maxAttempts, breakerOpen });

const stepSetup = setup({
  types: {
    context: {} as StepContext,
    input: {} as StepInput,
    events: {} as StepEvent,
  },
  actors: {
    runStepHooks: notProvided<{ failures: string[] }, StepHooksInput>('runStepHooks'),
    openSpecialistSession: notProvided<{ sessionId: string }, OpenSessionInput>('openSpecialistSession'),
    runSpecialist: notProvided<Turn<SpecialistResult | InterruptedTurn>, RunSpecialistInput>('runSpecialist'),
    runReview: notProvided<Turn<ReviewResult>, RunReviewInput>('runReview'),
    runFix: notProvided<Turn<SpecialistResult | InterruptedTurn>, RunFixInput>('runFix'),
    /** Resolves when the session has been idle for `idleMs` (after aborting it). Never an `after` timer: it restores. */
    watchIdle: notProvided<{ idleMs: number }, WatchIdleInput>('watchIdle'),
    openWorkspace: notProvided<StepWorkspace, OpenWorkspaceInput>('openWorkspace'),
    measureStep: notProvided<StepDiff, MeasureStepInput>('measureStep'),
    mergeStep: notProvided<MergeOutcome, MergeStepInput>('mergeStep'),
  },
  guards: {
    /** A file-changing step in a git repository works in a tree of its own (or has its start recorded) before anything runs. */
    needsWorkspace: ({ context }) => (context.policy.workspace === 'worktree' || context.policy.workspace === 'shared') && !context.workspace,
    /** git can tell what the step changed. */
    hasWorkspace: ({ context }) => Boolean(context.workspace),
    /** The step's changes are in its own worktree: they land in the user's tree once it is done. */
    isolated: ({ context }) => context.workspace?.kind === 'worktree',
    mergeConflicted: (_, outcome: MergeOutcome) => outcome.type === 'conflict',
    /** A fixed step goes back to the reviewer of its attempt. */
    hasReviewSession: ({ context }) => context.review.session_id !== null,
    hasPreHooks: ({ context }) => context.policy.pre_hooks.length > 0,
    hasPostHooks: ({ context }) => context.policy.post_hooks.length > 0,
    specialistSucceeded: (_, result: SpecialistResult | InterruptedTurn) => result.type === 'success',
    turnInterrupted: (_, result: SpecialistResult | InterruptedTurn) => result.type === 'interrupted',
    interruptedInFix: ({ context }) => context.interrupted?.turn === 'fix',
    needsReview: ({ context }) => context.policy.review,
    reviewPassed: (_, result: ReviewResult) => result.type === 'pass',
    /** The reviewer reported the same errors as in the previous rounds, `same_error_limit` times in a row. */
    reviewRepeats: ({ context }, result: ReviewResult) =>
      result.type === 'fail' &&
      repeatedSignature([...context.review.signatures, reviewSignature(result.errors)], context.policy.same_error_limit) !== null,
    reviewRoundsRemain: ({ context }) => context.review.round < context.policy.review_rounds,
    sameErrorRepeated: ({ context }) => repeatedSignature(context.failures.map((f) => f.signature), context.policy.same_error_limit) !== null,
    /** Retry at the deviation gate, where the breaker is closed. */
    retriesRemain: ({ context, event }) => mayRetry(retryState(context, false), event.channel),
    /** Run again on top at the merge gate: the clash is one more failed attempt, under the same limit as Retry. */
    onTopRemains: ({ context, event }) => mayRetry({ ...retryState(context, false), failures: context.failures.length + 1 }, event.channel),
    /** Retry at the open breaker: only a human may retry, the auto policy's Retry is refused. */
    humanRetry: ({ context }, params: { channel: string }) => mayRetry(retryState(context, true), params.channel),
  },
  actions: {
    recordSession: assign({ sessionId: (_, params: { sessionId: string }) => params.sessionId }),
    recordWorkspace: assign({ workspace: (_, workspace: StepWorkspace) => workspace }),
    recordDiff: assign({ diff: (_, diff: StepDiff) => diff }),
    /** A diff git could not make leaves the step's last one and a warning: the work is judged without it, never blocked. */
    recordDiffUnavailable: assign({ warnings: ({ context }, params: { error: string }) => [...context.warnings, diffUnavailableText(params.error)] }),
    recordMergeClash: assign({
      merge: (_, outcome: MergeOutcome) => (outcome.type === 'conflict' ? { conflicts: outcome.conflicts, ...(outcome.error ? { error: outcome.error } : {}) } : null),
      diff: ({ context }, outcome: MergeOutcome) => outcome.diff ?? context.diff ?? null,
    }),
    recordMergeError: assign({ merge: (_, params: { error: string }) => ({ conflicts: [], error: params.error }) }),
    clearMerge: assign({ merge: null }),
    recordOutput: assign({ output: (_, result: SpecialistResult | InterruptedTurn) => stepOutputOf(result) }),
    recordFailure: assign({
      failures: ({ context }, params: { error: string; kind: FailureKind }) => [...context.failures, failedAttempt(context.attempt, params)],
    }),
    openBreaker: assign({ breaker: ({ context }) => breakerText(context.policy.same_error_limit, context.stepId) }),
    recordReviewSession: assign({
      review: ({ context }, params: { sessionId: string }) => ({ ...context.review, session_id: params.sessionId }),
    }),
    recordReviewFail: assign({
      review: ({ context: { review } }, result: ReviewResult) =>
        result.type === 'fail' ? { ...review, errors: result.errors, signatures: [...review.signatures, reviewSignature(result.errors)] } : review,
    }),
    nextReviewRound: assign({ review: ({ context }) => ({ ...context.review, round: context.review.round + 1 }) }),
    recordInterruption: assign({
      interrupted: (_, params: { result: SpecialistResult | InterruptedTurn; turn: 'specialist' | 'fix' }) =>
        params.result.type === 'interrupted' ? { ...params.result, turn: params.turn } : null,
    }),
    confirmRerun: assign({ interrupted: null, rerun_confirmed: true }),
    /** Mark done: the human vouches for the interrupted turn's work; their words are its summary. */
    recordHumanOutput: assign({
      interrupted: null,
      // The interrupted turn may have changed files after the last measurement: the merge measures anew.
      diff: null,
      output: (_, params: { summary: string }) => ({ summary: params.summary, artifacts: [], key_findings: [] }),
    }),
    recordWarnings: assign({ warnings: ({ context }, params: { failures: string[] }) => [...context.warnings, ...params.failures] }),
    startNextAttempt: assign({
      attempt: ({ context }) => context.attempt + 1,
      sessionId: null,
      output: null,
      review: () => newReview(),
      breaker: null,
      rerun_confirmed: false,
      failures: ({ context }, params: RetryParams) => withGuidance(context.failures, params.guidance),
      // The same tree goes on: a step beside it that landed since is in the user's tree, not in this one.
      thread: ({ context }, params: RetryParams) =>
        params.landed_now && context.thread.beside
          ? {
              ...context.thread,
              beside: context.thread.beside.map((s) => (!s.landed && params.landed_now!.includes(s.id) ? { ...s, landed_since: true as const } : s)),
            }
          : context.thread,
    }),
    /**
     * Run again on top: a new attempt in a tree made from the user's as it is now, told why its last
     * changes did not land, what clashed with which steps' changes, and which steps beside it are in it.
     */
    startOnTop: assign({
      attempt: ({ context }) => context.attempt + 1,
      sessionId: null,
      output: null,
      review: () => newReview(),
      breaker: null,
      rerun_confirmed: false,
      workspace: null,
      diff: null,
      merge: null,
      failures: ({ context }, params: OnTopParams) => [
        ...context.failures,
        { ...mergeFailure(context.attempt, context.merge ?? { conflicts: [] }, params.landed ?? []), ...(params.guidance ? { guidance: params.guidance } : {}) },
      ],
      thread: ({ context }, params: OnTopParams) =>
        params.on_top_of && context.thread.beside
          ? { ...context.thread, beside: context.thread.beside.map(({ landed: _was, ...s }) => (params.on_top_of!.includes(s.id) ? { ...s, landed: true as const } : s)) }
          : context.thread,
    }),
    /** The plan sums usage (steps[].usage, usage) and checks its budget; a turn that cost nothing is not reported. */
    reportUsage: enqueueActions(({ context, enqueue }, params: { usage: Usage | null; role: TurnRole }) => {
      if (params.usage && params.usage.turns > 0) enqueue.sendParent({ type: 'usage.recorded', stepId: context.stepId, role: params.role, usage: params.usage });
    }),
    notifyDispatched: sendParent(({ context }) => ({ type: 'step.dispatched', stepId: context.stepId, attempt: context.attempt, sessionId: context.sessionId ?? '' })),
    notifyTurn: sendParent(({ context }, params: { kind: 'review' | 'fix' }) => ({ type: 'step.turn', stepId: context.stepId, kind: params.kind, round: context.review.round })),
    notifyFailed: sendParent(({ context }) => {
      const last = lastFailure(context);
      return {
        type: 'step.failed',
        stepId: context.stepId,
        attempt: context.attempt,
        error: last?.error ?? 'unknown error',
        ...(last?.kind ? { kind: last.kind } : {}),
        signature: last?.signature ?? '',
        ...(context.breaker ? { breaker: context.breaker } : {}),
      };
    }),
    notifyInterrupted: sendParent(({ context }) => ({ type: 'step.interrupted', stepId: context.stepId, attempt: context.attempt })),
    notifyCompleted: sendParent(({ context }) => ({
      type: 'step.completed',
      stepId: context.stepId,
      output: context.output!,
      ...(context.warnings.length ? { warnings: context.warnings } : {}),
      ...(context.diff ? { diff: context.diff } : {}),
    })),
    notifyMergeConflict: sendParent(({ context }) => ({
      type: 'step.merge_conflict',
      stepId: context.stepId,
      attempt: context.attempt,
      conflicts: context.merge?.conflicts ?? [],
      ...(context.merge?.error ? { error: context.merge.error } : {}),
      ...(context.diff ? { diff: context.diff } : {}),
    })),
    notifyReplan: sendParent(({ context }, params: { guidance?: string }) => ({
      type: 'step.replan_chosen',
      stepId: context.stepId,
      ...(params.guidance ? { guidance: params.guidance } : {}),
    })),
    notifyStop: sendParent(({ context }, params: { guidance?: string }) => ({
      type: 'step.stop_chosen',
      stepId: context.stepId,
      ...(params.guidance ? { guidance: params.guidance } : {}),
    })),
  },
});

/** Retry: the human's guidance, and which steps beside it have landed by now. */
const retryOf = ({ event }: { event: { guidance?: string; landed_now?: string[] } }) => ({ guidance: event.guidance, landed_now: event.landed_now });

/** Replan and Stop, the same at the deviation gate and at an open breaker. */
const guidanceOf = ({ event }: { event: { guidance?: string } }) => ({ guidance: event.guidance });
const leaveGate = {
  'step.replan': { target: 'replanned', actions: { type: 'notifyReplan' as const, params: guidanceOf } },
  'step.stop': { target: 'stopped', actions: { type: 'notifyStop' as const, params: guidanceOf } },
};

/** The idle watch beside a turn: when it fires, the attempt fails with TIMEOUT. */
const idleWatch = (id: string, sessionOf: (c: StepContext) => string | null, who: (c: StepContext) => string, kind: FailureKind) => ({
  id,
  src: 'watchIdle' as const,
  input: ({ context }: { context: StepContext }) => ({
    planId: context.planId,
    stepId: context.stepId,
    sessionId: sessionOf(context)!,
    idleMs: context.policy.idle_ms,
  }),
  onDone: {
    target: '#step.failed_attempt',
    actions: {
      type: 'recordFailure' as const,
      params: ({ context, event }: { context: StepContext; event: { output: { idleMs: number } } }) => ({
        error: idleTimeoutText(who(context), event.output.idleMs),
        kind,
      }),
    },
  },
});

/** Where the step's hooks run: its working tree, when it has one of its own. */
const workDir = (c: StepContext) => (c.workspace?.kind === 'worktree' ? { cwd: c.workspace.dir } : {});
/** The step's sessions are pinned to its worktree (OpenCode then runs them in that directory's instance). */
const sessionDir = (c: StepContext) => (c.workspace?.kind === 'worktree' ? { directory: c.workspace.dir } : {});

/** The reviewer's FAIL as the attempt's failure. */
const reviewFailed = ({ context, event }: { context: StepContext; event: { output: Turn<ReviewResult> } }) => ({
  error: reviewFailureText(event.output.value, context.review.round, context.policy.review_rounds),
  kind: 'review' as const,
});

export const stepMachine = stepSetup.createMachine({
  id: 'step',
  context: ({ input }) => ({
    planId: input.planId,
    stepId: input.thread.step.id,
    agent: input.thread.step.agent,
    thread: input.thread,
    maxAttempts: input.maxAttempts,
    parentSessionId: input.parentSessionId,
    policy: input.policy,
    attempt: input.thread.previous_attempts.length + 1,
    failures: input.thread.previous_attempts,
    sessionId: null,
    output: null,
    review: newReview(),
    breaker: null,
    warnings: [],
    interrupted: null,
    rerun_confirmed: false,
    workspace: null,
    diff: null,
    merge: null,
  }),
  initial: 'preparing',
  states: {
    preparing: {
      always: [
        { guard: 'needsWorkspace', target: 'opening_workspace' },
        { guard: 'hasPreHooks', target: 'pre_hook' },
        { target: 'opening_session' },
      ],
    },
    /** The step's worktree from the user's tree as it is now (or, in a shared tree, the tree's state before the step). */
    opening_workspace: {
      invoke: {
        id: 'openWorkspace',
        src: 'openWorkspace',
        input: ({ context }) => ({
          idempotencyKey: attemptKey(context),
          planId: context.planId,
          stepId: context.stepId,
          attempt: context.attempt,
          kind: context.policy.workspace === 'worktree' ? ('worktree' as const) : ('shared' as const),
        }),
        onDone: { target: 'preparing', actions: { type: 'recordWorkspace', params: ({ event }) => event.output } },
        onError: { target: 'failed_attempt', actions: { type: 'recordFailure', params: portFailure('workspace') } },
      },
    },
    pre_hook: {
      invoke: {
        id: 'preStepHooks',
        src: 'runStepHooks',
        input: ({ context }) => ({
          phase: 'pre_step' as const,
          commands: context.policy.pre_hooks,
          ...workDir(context),
          planId: context.planId,
          stepId: context.stepId,
          agent: context.agent,
          attempt: context.attempt,
        }),
        onDone: { target: 'opening_session' },
        onError: {
          target: 'failed_attempt',
          actions: { type: 'recordFailure', params: portFailure('pre_hook') },
        },
      },
    },
    opening_session: {
      invoke: {
        id: 'openSpecialistSession',
        src: 'openSpecialistSession',
        input: ({ context }) => ({
          idempotencyKey: attemptKey(context),
          planId: context.planId,
          stepId: context.stepId,
          agent: context.agent,
          attempt: context.attempt,
          parentSessionId: context.parentSessionId,
          ...sessionDir(context),
        }),
        onDone: {
          target: 'running',
          actions: [{ type: 'recordSession', params: ({ event }) => event.output }, 'notifyDispatched'],
        },
        onError: {
          target: 'failed_attempt',
          actions: { type: 'recordFailure', params: portFailure('session') },
        },
      },
    },
    running: {
      invoke: [
        {
          id: 'runSpecialist',
          src: 'runSpecialist',
          input: ({ context }) => ({
            idempotencyKey: attemptKey(context),
            sessionId: context.sessionId!,
            agent: context.agent,
            thread: { ...context.thread, previous_attempts: context.failures },
            rerun: mayRerun(context),
          }),
          onDone: [
            {
              guard: { type: 'turnInterrupted', params: valueOf },
              target: 'awaiting_resume',
              actions: { type: 'recordInterruption', params: ({ event }) => ({ result: event.output.value, turn: 'specialist' as const }) },
            },
            {
              guard: { type: 'specialistSucceeded', params: valueOf },
              target: 'checking',
              actions: [usageOfDone('specialist'), { type: 'recordOutput', params: valueOf }],
            },
            {
              target: 'failed_attempt',
              actions: [usageOfDone('specialist'), { type: 'recordFailure', params: answeredFailure('answer') }],
            },
          ],
          onError: {
            target: 'failed_attempt',
            actions: [usageOfFailure('specialist'), { type: 'recordFailure', params: portFailure('turn') }],
          },
        },
        idleWatch('watchSpecialist', (c) => c.sessionId, (c) => c.agent, 'timeout'),
      ],
    },
    checking: {
      always: [{ guard: 'hasWorkspace', target: 'measuring' }, { guard: 'needsReview', target: 'review' }, { target: 'finishing' }],
    },
    /** What the step really changed, by git: the reviewer and the human judge this, not the specialist's claim. */
    measuring: {
      invoke: {
        id: 'measureStep',
        src: 'measureStep',
        input: ({ context }) => ({
          planId: context.planId,
          stepId: context.stepId,
          attempt: context.attempt,
          workspace: context.workspace!,
          declared: context.thread.step.files ?? [],
        }),
        onDone: [
          { guard: 'needsReview', target: 'review', actions: { type: 'recordDiff', params: ({ event }) => event.output } },
          { target: 'finishing', actions: { type: 'recordDiff', params: ({ event }) => event.output } },
        ],
        onError: [
          { guard: 'needsReview', target: 'review', actions: { type: 'recordDiffUnavailable', params: messageOf } },
          { target: 'finishing', actions: { type: 'recordDiffUnavailable', params: messageOf } },
        ],
      },
    },
    review: {
      initial: 'entering',
      states: {
        entering: {
          always: [{ guard: 'hasReviewSession', target: 'reviewing' }, { target: 'opening_session' }],
        },
        opening_session: {
          invoke: {
            id: 'openReviewerSession',
            src: 'openSpecialistSession',
            input: ({ context }) => ({
              idempotencyKey: `${attemptKey(context)}:review`,
              planId: context.planId,
              stepId: context.stepId,
              agent: 'reviewer' as const,
              attempt: context.attempt,
              parentSessionId: context.parentSessionId,
              ...sessionDir(context),
            }),
            onDone: {
              target: 'reviewing',
              actions: { type: 'recordReviewSession', params: ({ event }) => event.output },
            },
            onError: {
              target: '#step.failed_attempt',
              actions: { type: 'recordFailure', params: portFailure('reviewer', 'reviewer: ') },
            },
          },
        },
        reviewing: {
          entry: { type: 'notifyTurn', params: { kind: 'review' } },
          invoke: [
            {
              id: 'runReview',
              src: 'runReview',
              input: ({ context }) => ({
                idempotencyKey: `${attemptKey(context)}:review:${context.review.round}`,
                sessionId: context.review.session_id!,
                // A retry's reviewer reads what failed before, the earlier reviews' findings included.
                thread: { ...context.thread, previous_attempts: context.failures },
                work: context.output!,
                diff: context.diff ?? null,
                round: context.review.round,
                maxRounds: context.policy.review_rounds,
              }),
              onDone: [
                { guard: { type: 'reviewPassed', params: valueOf }, target: '#step.finishing', actions: usageOfDone('reviewer') },
                {
                  guard: { type: 'reviewRepeats', params: valueOf },
                  target: '#step.breaker_open',
                  actions: [
                    usageOfDone('reviewer'),
                    { type: 'recordReviewFail', params: valueOf },
                    { type: 'recordFailure', params: reviewFailed },
                    'openBreaker',
                  ],
                },
                {
                  guard: 'reviewRoundsRemain',
                  target: 'fixing',
                  actions: [usageOfDone('reviewer'), { type: 'recordReviewFail', params: valueOf }],
                },
                {
                  target: '#step.failed_attempt',
                  actions: [
                    usageOfDone('reviewer'),
                    { type: 'recordReviewFail', params: valueOf },
                    { type: 'recordFailure', params: reviewFailed },
                  ],
                },
              ],
              onError: {
                target: '#step.failed_attempt',
                actions: [usageOfFailure('reviewer'), { type: 'recordFailure', params: portFailure('reviewer', 'reviewer: ') }],
              },
            },
            idleWatch('watchReviewer', (c) => c.review.session_id, () => 'reviewer', 'reviewer'),
          ],
        },
        fixing: {
          entry: [{ type: 'notifyTurn', params: { kind: 'fix' } }],
          invoke: [
            {
              id: 'runFix',
              src: 'runFix',
              input: ({ context }) => ({
                idempotencyKey: `${attemptKey(context)}:fix:${context.review.round}`,
                sessionId: context.sessionId!,
                agent: context.agent,
                thread: { ...context.thread, previous_attempts: context.failures },
                errors: context.review.errors,
                round: context.review.round,
                rerun: mayRerun(context),
              }),
              onDone: [
                {
                  guard: { type: 'turnInterrupted', params: valueOf },
                  target: '#step.awaiting_resume',
                  actions: { type: 'recordInterruption', params: ({ event }) => ({ result: event.output.value, turn: 'fix' as const }) },
                },
                {
                  // Measured again, then back to the same reviewer.
                  guard: { type: 'specialistSucceeded', params: valueOf },
                  target: '#step.checking',
                  actions: [usageOfDone('fixer'), { type: 'recordOutput', params: valueOf }, 'nextReviewRound'],
                },
                {
                  target: '#step.failed_attempt',
                  actions: [usageOfDone('fixer'), { type: 'recordFailure', params: answeredFailure('fix') }],
                },
              ],
              onError: {
                target: '#step.failed_attempt',
                actions: [usageOfFailure('fixer'), { type: 'recordFailure', params: portFailure('fix') }],
              },
            },
            idleWatch('watchFixer', (c) => c.sessionId, (c) => `${c.agent} (fixing)`, 'fix'),
          ],
        },
      },
    },
    finishing: {
      always: [{ guard: 'hasPostHooks', target: 'post_hook' }, { target: 'landing' }],
    },
    post_hook: {
      invoke: {
        id: 'postStepHooks',
        src: 'runStepHooks',
        input: ({ context }) => ({
          phase: 'post_step' as const,
          commands: context.policy.post_hooks,
          ...workDir(context),
          planId: context.planId,
          stepId: context.stepId,
          agent: context.agent,
          attempt: context.attempt,
        }),
        // Post-step hooks never block: a failure is recorded with the step's result.
        onDone: { target: 'landing', actions: { type: 'recordWarnings', params: ({ event }) => event.output } },
        onError: {
          target: 'landing',
          actions: { type: 'recordWarnings', params: ({ event }) => ({ failures: [postHooksFailedText(event.error)] }) },
        },
      },
    },
    landing: {
      always: [{ guard: 'isolated', target: 'merging' }, { target: 'completed' }],
    },
    /** The worktree's changes land in the user's tree as uncommitted changes, by git, never by a model. */
    merging: {
      invoke: {
        id: 'mergeStep',
        src: 'mergeStep',
        input: ({ context }) => ({
          idempotencyKey: `${attemptKey(context)}:merge`,
          planId: context.planId,
          stepId: context.stepId,
          attempt: context.attempt,
          workspace: context.workspace!,
          declared: context.thread.step.files ?? [],
          // Measured after the last turn, and no post-step hook ran in the tree since: that measurement lands.
          ...(context.diff && context.policy.post_hooks.length === 0 && context.diff.base === context.workspace!.base ? { measured: context.diff } : {}),
        }),
        onDone: [
          { guard: { type: 'mergeConflicted', params: ({ event }) => event.output }, target: 'merge_conflict', actions: { type: 'recordMergeClash', params: ({ event }) => event.output } },
          { target: 'completed', actions: [{ type: 'recordMergeClash', params: ({ event }) => event.output }, 'clearMerge'] },
        ],
        onError: { target: 'merge_conflict', actions: { type: 'recordMergeError', params: messageOf } },
      },
    },
    /** The step's changes did not apply to the user's tree: a human decides. Its worktree is kept meanwhile. */
    merge_conflict: {
      tags: ['gate.merge'],
      entry: 'notifyMergeConflict',
      on: {
        // Bounded like Retry: the clash counts as a failed attempt, so a policy that keeps choosing it stops at the limit.
        'step.rerun_on_top': {
          guard: 'onTopRemains',
          target: 'preparing',
          actions: { type: 'startOnTop', params: ({ event }) => ({ guidance: event.guidance, on_top_of: event.on_top_of, landed: event.landed }) },
        },
        'step.merge_resolved': { target: 'completed', actions: 'clearMerge' },
        'step.stop': leaveGate['step.stop'],
      },
    },
    failed_attempt: {
      always: [{ guard: 'sameErrorRepeated', target: 'breaker_open', actions: 'openBreaker' }, { target: 'awaiting_decision' }],
    },
    awaiting_decision: {
      tags: ['gate.deviation'],
      entry: 'notifyFailed',
      on: {
        'step.retry': {
          guard: 'retriesRemain',
          target: 'preparing',
          actions: { type: 'startNextAttempt', params: retryOf },
        },
        ...leaveGate,
      },
    },
    breaker_open: {
      tags: ['gate.deviation', 'breaker.same_error'],
      entry: 'notifyFailed',
      on: {
        'step.retry': {
          guard: { type: 'humanRetry', params: ({ event }) => ({ channel: event.channel }) },
          target: 'preparing',
          actions: { type: 'startNextAttempt', params: retryOf },
        },
        ...leaveGate,
      },
    },
    /** A restart found this step's turn interrupted with nothing to reuse: a human decides before it runs again. */
    awaiting_resume: {
      tags: ['gate.resume'],
      entry: 'notifyInterrupted',
      on: {
        'step.rerun': [
          { guard: 'interruptedInFix', target: '#step.review.fixing', actions: 'confirmRerun' },
          { target: 'running', actions: 'confirmRerun' },
        ],
        'step.mark_done': { target: 'finishing', actions: { type: 'recordHumanOutput', params: ({ event }) => event } },
        'step.stop': leaveGate['step.stop'],
      },
    },
    completed: { type: 'final', entry: 'notifyCompleted' },
    replanned: { type: 'final' },
    stopped: { type: 'final' },
  },
  output: ({ context }) => ({ stepId: context.stepId, output: context.output }),
});
