import { answeredFailure, portFailure, usageOfDone, usageOfFailure, valueOf } from './outcome-params.js';
import { review } from './step.review.states.js';
import { attemptKey, idleWatch, leaveGate, mayRerun, newReview, retryOf, sessionDir, stepSetup, workDir } from './step.setup.js';
import { landing, measuring, measuringLanded, merging, mergeConflict, openingWorkspace } from './step.workspace.states.js';
import { postHooksFailedText } from './step-text.js';

export type { ReviewState, StepContext, StepEvent, StepInput, StepParentEvent } from './step.setup.js';

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
 * by hand / Stop). In the shared tree, with nothing waiting for its diff (no reviewer, no post-step
 * hook), the step tells its plan it landed as git begins to measure it (`measuring_landed`).
 *
 * Its review and workspace states are in step.review.states.ts and step.workspace.states.ts; its
 * setup (context, events, ports, guards, actions) in step.setup.ts.
 */
export const STEP_MACHINE_VERSION = 4;

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
    captured: null,
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
    opening_workspace: openingWorkspace,
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
      always: [
        { guard: 'measuredAsItLands', target: 'measuring_landed' },
        { guard: 'hasWorkspace', target: 'measuring' },
        { guard: 'needsReview', target: 'review' },
        { target: 'finishing' },
      ],
    },
    measuring: measuring,
    measuring_landed: measuringLanded,
    review,
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
    landing: landing,
    merging: merging,
    merge_conflict: mergeConflict,
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
