import { answeredFailure, portFailure, usageOfDone, usageOfFailure, valueOf } from './outcome-params.js';
import { attemptKey, idleWatch, mayRerun, reviewFailed, sessionDir, stepSetup } from './step.setup.js';

/**
 * The step chart's quality gate: the reviewer in its own session judges the step against its
 * criteria (and git's diff); a FAIL goes to the same specialist as a fix, then back to the reviewer,
 * up to review_rounds; a repeated signature opens the breaker.
 */
export const review = stepSetup.createStateConfig({
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
});
