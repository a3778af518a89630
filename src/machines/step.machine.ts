import { assign, fromPromise, sendParent, setup } from 'xstate';
import type {
  DecisionSource,
  FailedAttempt,
  SpecialistId,
  SpecialistResult,
  StepOutput,
  ThreadedContext,
} from './types.js';

/**
 * One step of an approved plan: open a child session for the specialist, run it, and on failure
 * wait in the deviation gate for the human's Retry / Replan / Stop. Retry is refused by the
 * `retriesRemain` guard once `maxAttempts` attempts have failed.
 */

export const STEP_MACHINE_VERSION = 1;

export interface StepInput {
  planId: string;
  thread: ThreadedContext;
  maxAttempts: number;
  parentSessionId: string | null;
}

export interface StepContext {
  planId: string;
  stepId: string;
  agent: SpecialistId;
  thread: ThreadedContext;
  maxAttempts: number;
  parentSessionId: string | null;
  /** The attempt in flight (1-based). */
  attempt: number;
  failures: FailedAttempt[];
  sessionId: string | null;
  output: StepOutput | null;
}

export type StepEvent =
  | ({ type: 'step.retry'; guidance?: string } & DecisionSource)
  | ({ type: 'step.replan'; guidance?: string } & DecisionSource)
  | ({ type: 'step.stop'; guidance?: string } & DecisionSource);

/** Events a step sends to its plan. */
export type StepParentEvent =
  | { type: 'step.dispatched'; stepId: string; attempt: number; sessionId: string }
  | { type: 'step.failed'; stepId: string; attempt: number; error: string }
  | { type: 'step.completed'; stepId: string; output: StepOutput }
  | { type: 'step.replan_chosen'; stepId: string; guidance?: string }
  | { type: 'step.stop_chosen'; stepId: string; guidance?: string };

/** The idempotency key of one dispatch: the same attempt is never two different side effects. */
export const idempotencyKey = (planId: string, stepId: string, attempt: number) => `${planId}:${stepId}:${attempt}`;

export interface OpenSessionInput {
  idempotencyKey: string;
  planId: string;
  stepId: string;
  agent: SpecialistId;
  attempt: number;
  parentSessionId: string | null;
}

export interface RunSpecialistInput {
  idempotencyKey: string;
  sessionId: string;
  agent: SpecialistId;
  thread: ThreadedContext;
}

const notProvided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    throw new Error(`The "${name}" actor was not provided: wire it with machine.provide().`);
  });

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const stepMachine = setup({
  types: {
    context: {} as StepContext,
    input: {} as StepInput,
    events: {} as StepEvent,
  },
  actors: {
    openSpecialistSession: notProvided('openSpecialistSession') as unknown as ReturnType<
      typeof fromPromise<{ sessionId: string }, OpenSessionInput>
    >,
    runSpecialist: notProvided('runSpecialist') as unknown as ReturnType<
      typeof fromPromise<SpecialistResult, RunSpecialistInput>
    >,
  },
  guards: {
    specialistSucceeded: (_, result: SpecialistResult) => result.type === 'success',
    retriesRemain: ({ context }) => context.failures.length < context.maxAttempts,
  },
  actions: {
    recordSession: assign({ sessionId: (_, params: { sessionId: string }) => params.sessionId }),
    recordOutput: assign({
      output: (_, result: SpecialistResult): StepOutput | null =>
        result.type === 'success'
          ? { summary: result.summary, artifacts: result.artifacts, key_findings: result.key_findings ?? [] }
          : null,
    }),
    recordFailure: assign({
      failures: ({ context }, params: { error: string }) => [
        ...context.failures,
        { attempt: context.attempt, error: params.error },
      ],
    }),
    startNextAttempt: assign({
      attempt: ({ context }) => context.attempt + 1,
      sessionId: null,
      failures: ({ context }, params: { guidance?: string }) =>
        context.failures.map((f, i) =>
          i === context.failures.length - 1 && params.guidance ? { ...f, guidance: params.guidance } : f,
        ),
    }),
    notifyDispatched: sendParent(({ context }) => ({
      type: 'step.dispatched',
      stepId: context.stepId,
      attempt: context.attempt,
      sessionId: context.sessionId ?? '',
    })),
    notifyFailed: sendParent(({ context }) => ({
      type: 'step.failed',
      stepId: context.stepId,
      attempt: context.attempt,
      error: context.failures.at(-1)?.error ?? 'unknown error',
    })),
    notifyCompleted: sendParent(({ context }) => ({
      type: 'step.completed',
      stepId: context.stepId,
      output: context.output!,
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
}).createMachine({
  id: 'step',
  context: ({ input }) => ({
    planId: input.planId,
    stepId: input.thread.step.id,
    agent: input.thread.step.agent,
    thread: input.thread,
    maxAttempts: input.maxAttempts,
    parentSessionId: input.parentSessionId,
    attempt: input.thread.previous_attempts.length + 1,
    failures: input.thread.previous_attempts,
    sessionId: null,
    output: null,
  }),
  initial: 'opening_session',
  states: {
    opening_session: {
      invoke: {
        id: 'openSpecialistSession',
        src: 'openSpecialistSession',
        input: ({ context }) => ({
          idempotencyKey: idempotencyKey(context.planId, context.stepId, context.attempt),
          planId: context.planId,
          stepId: context.stepId,
          agent: context.agent,
          attempt: context.attempt,
          parentSessionId: context.parentSessionId,
        }),
        onDone: {
          target: 'running',
          actions: [{ type: 'recordSession', params: ({ event }) => event.output }, 'notifyDispatched'],
        },
        onError: {
          target: 'awaiting_decision',
          actions: { type: 'recordFailure', params: ({ event }) => ({ error: errorText(event.error) }) },
        },
      },
    },
    running: {
      invoke: {
        id: 'runSpecialist',
        src: 'runSpecialist',
        input: ({ context }) => ({
          idempotencyKey: idempotencyKey(context.planId, context.stepId, context.attempt),
          sessionId: context.sessionId!,
          agent: context.agent,
          thread: { ...context.thread, previous_attempts: context.failures },
        }),
        onDone: [
          {
            guard: { type: 'specialistSucceeded', params: ({ event }) => event.output },
            target: 'completed',
            actions: { type: 'recordOutput', params: ({ event }) => event.output },
          },
          {
            target: 'awaiting_decision',
            actions: {
              type: 'recordFailure',
              params: ({ event }) => ({
                error: event.output.type === 'failure' ? event.output.error : 'unexpected result',
              }),
            },
          },
        ],
        onError: {
          target: 'awaiting_decision',
          actions: { type: 'recordFailure', params: ({ event }) => ({ error: errorText(event.error) }) },
        },
      },
    },
    awaiting_decision: {
      tags: ['gate.deviation'],
      entry: 'notifyFailed',
      on: {
        'step.retry': {
          guard: 'retriesRemain',
          target: 'opening_session',
          actions: { type: 'startNextAttempt', params: ({ event }) => ({ guidance: event.guidance }) },
        },
        'step.replan': {
          target: 'replanned',
          actions: { type: 'notifyReplan', params: ({ event }) => ({ guidance: event.guidance }) },
        },
        'step.stop': {
          target: 'stopped',
          actions: { type: 'notifyStop', params: ({ event }) => ({ guidance: event.guidance }) },
        },
      },
    },
    completed: { type: 'final', entry: 'notifyCompleted' },
    replanned: { type: 'final' },
    stopped: { type: 'final' },
  },
  output: ({ context }) => ({ stepId: context.stepId, output: context.output }),
});
