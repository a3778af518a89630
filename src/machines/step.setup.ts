import { assign, enqueueActions, sendParent, setup } from 'xstate';
import { repeatedSignature, reviewSignature } from './error-signature.js';
import { notProvided, notProvidedCallback } from './not-provided.js';
import {
  idempotencyKey,
  type CaptureStepInput,
  type FollowSlotInput,
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
import { breakerText, diffUnavailableText, idleTimeoutText, reviewFailureText } from './step-text.js';
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
 * The step chart's setup: its context, events, actors (ports), guards and actions, and the pieces
 * its states share (step.machine.ts, step.review.states.ts, step.workspace.states.ts).
 */
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
  /**
   * In the shared tree, the step's tree as it landed (a commit), taken before its plan heard it landed:
   * its diff is made from this, also after a restart, never from a tree the next steps changed since.
   */
  captured?: string | null;
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
  | ({ type: 'step.stop'; guidance?: string } & DecisionSource)
  /** From followSlot while the workspace opens: every worktree slot is held, the step waits for one given back. */
  | { type: 'workspace.waiting' }
  /** From followSlot: the step holds a slot now (its reset follows). */
  | { type: 'workspace.slot_taken' };

/** Events a step sends to its plan. */
export type StepParentEvent =
  | { type: 'step.dispatched'; stepId: string; attempt: number; sessionId: string }
  | { type: 'step.turn'; stepId: string; kind: 'review' | 'fix'; round: number }
  | { type: 'step.failed'; stepId: string; attempt: number; error: string; kind?: FailureKind; signature: string; breaker?: string }
  | { type: 'step.interrupted'; stepId: string; attempt: number }
  | { type: 'step.completed'; stepId: string; output: StepOutput; warnings?: string[]; diff?: StepDiff }
  /** Its changes are in the shared tree and nothing waits for their measurement: dependents may start; step.completed follows with the diff. */
  | { type: 'step.landed'; stepId: string; output: StepOutput; warnings?: string[] }
  | { type: 'step.merge_conflict'; stepId: string; attempt: number; conflicts: MergeConflict[]; error?: string; diff?: StepDiff }
  | { type: 'step.replan_chosen'; stepId: string; guidance?: string }
  | { type: 'step.stop_chosen'; stepId: string; guidance?: string }
  /** What one of the step's turns (specialist, reviewer, fixer, with their corrections) cost, and whose it was. */
  | { type: 'usage.recorded'; stepId: string; role: TurnRole; usage: Usage };

/** What Retry carries from the plan into the next attempt. */
type RetryParams = { guidance?: string | undefined; landed_now?: string[] | undefined };
/** What Run again on top carries from the plan into the new attempt. */
type OnTopParams = { guidance?: string | undefined; on_top_of?: string[] | undefined; landed?: string[] | undefined };

export const newReview = (): ReviewState => ({ session_id: null, round: 1, errors: [], signatures: [] });

/** What every new attempt starts with (Retry, Run again on top): the next number, no session, output, review, breaker or confirmed re-run. */
const nextAttempt = {
  attempt: ({ context }: { context: StepContext }) => context.attempt + 1,
  sessionId: null,
  output: null,
  review: () => newReview(),
  breaker: null,
  rerun_confirmed: false,
};

/** A restored turn runs again unasked when the step does not change files, was marked idempotent, or a human said Re-run. */
export const mayRerun = (context: StepContext) => context.rerun_confirmed || !context.policy.ask_before_rerun;

/** The failure of the attempt in flight (`failures` holds it as the last entry). */
const lastFailure = (context: StepContext) => context.failures.at(-1);

export const attemptKey = (c: StepContext) => idempotencyKey(c.planId, c.stepId, c.attempt);

/** What the retry rule (retry.ts) reads of a step; whether its breaker is open is the state it waits in. */
const retryState = (c: StepContext, breakerOpen: boolean): RetryState => ({ failures: c.failures.length, maxAttempts: c.maxAttempts, breakerOpen });

/** Who chose a decision (the guards of Retry and Run again on top read it); a report of a port's decides nothing, as the strictest. */
const decidedBy = (event: StepEvent) => ('channel' in event ? event.channel : 'auto');

export const stepSetup = setup({
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
    /** Sends `workspace.waiting` while every worktree slot is held, `workspace.slot_taken` once the step holds one. */
    followSlot: notProvidedCallback<FollowSlotInput>('followSlot'),
    measureStep: notProvided<StepDiff, MeasureStepInput>('measureStep'),
    captureStep: notProvided<{ result: string }, CaptureStepInput>('captureStep'),
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
    /**
     * In the shared tree, with no reviewer and no post-step hook to wait for it, what the step changed is
     * measured as it lands: its dependents start meanwhile (the measurement began first: the tree they
     * start from holds what it measures).
     */
    measuredAsItLands: ({ context }) =>
      context.workspace?.kind === 'shared' && !context.policy.review && context.policy.post_hooks.length === 0,
    reviewPassed: (_, result: ReviewResult) => result.type === 'pass',
    /** The reviewer reported the same errors as in the previous rounds, `same_error_limit` times in a row. */
    reviewRepeats: ({ context }, result: ReviewResult) =>
      result.type === 'fail' &&
      repeatedSignature([...context.review.signatures, reviewSignature(result.errors)], context.policy.same_error_limit) !== null,
    reviewRoundsRemain: ({ context }) => context.review.round < context.policy.review_rounds,
    sameErrorRepeated: ({ context }) => repeatedSignature(context.failures.map((f) => f.signature), context.policy.same_error_limit) !== null,
    /** Retry at the deviation gate, where the breaker is closed. */
    retriesRemain: ({ context, event }) => mayRetry(retryState(context, false), decidedBy(event)),
    /** Run again on top at the merge gate: the clash is one more failed attempt, under the same limit as Retry. */
    onTopRemains: ({ context, event }) => mayRetry({ ...retryState(context, false), failures: context.failures.length + 1 }, decidedBy(event)),
    /** Retry at the open breaker: only a human may retry, the auto policy's Retry is refused. */
    humanRetry: ({ context }, params: { channel: string }) => mayRetry(retryState(context, true), params.channel),
  },
  actions: {
    recordSession: assign({ sessionId: (_, params: { sessionId: string }) => params.sessionId }),
    recordWorkspace: assign({ workspace: (_, workspace: StepWorkspace) => workspace }),
    recordDiff: assign({ diff: (_, diff: StepDiff) => diff }),
    recordCapture: assign({ captured: (_, capture: { result: string }) => capture.result }),
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
      ...nextAttempt,
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
      ...nextAttempt,
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
    notifyLanded: sendParent(({ context }) => ({
      type: 'step.landed',
      stepId: context.stepId,
      output: context.output!,
      ...(context.warnings.length ? { warnings: context.warnings } : {}),
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
export const retryOf = ({ event }: { event: { guidance?: string; landed_now?: string[] } }) => ({ guidance: event.guidance, landed_now: event.landed_now });

/** Replan and Stop, the same at the deviation gate and at an open breaker. */
const guidanceOf = ({ event }: { event: { guidance?: string } }) => ({ guidance: event.guidance });
export const leaveGate = {
  'step.replan': { target: 'replanned', actions: { type: 'notifyReplan' as const, params: guidanceOf } },
  'step.stop': { target: 'stopped', actions: { type: 'notifyStop' as const, params: guidanceOf } },
};

/** The idle watch beside a turn: when it fires, the attempt fails with TIMEOUT. */
export const idleWatch = (id: string, sessionOf: (c: StepContext) => string | null, who: (c: StepContext) => string, kind: FailureKind) => ({
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
export const workDir = (c: StepContext) => (c.workspace?.kind === 'worktree' ? { cwd: c.workspace.dir } : {});
/** The step's sessions are pinned to its worktree (OpenCode then runs them in that directory's instance). */
export const sessionDir = (c: StepContext) => (c.workspace?.kind === 'worktree' ? { directory: c.workspace.dir } : {});

/** The reviewer's FAIL as the attempt's failure. */
export const reviewFailed = ({ context, event }: { context: StepContext; event: { output: Turn<ReviewResult> } }) => ({
  error: reviewFailureText(event.output.value, context.review.round, context.policy.review_rounds),
  kind: 'review' as const,
});
