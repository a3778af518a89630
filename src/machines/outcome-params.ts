import { errorMessage } from '../errors.js';
import { usageOfError, type Turn } from './turn.js';
import type { FailureKind, InterruptedTurn, SpecialistResult } from './types.js';
import { ZERO_USAGE, type TurnRole } from './usage.js';

/**
 * Param mappers of the machines' invoke transitions: what an invoked actor's done or error event
 * gives the action that records it. Plain functions of `{ event }`, type-checked where a chart
 * uses them.
 */

type Done<T> = { event: { output: Turn<T> } };
type Failed = { event: { error: unknown } };

/** A done turn's result. */
export const valueOf = <T>({ event }: Done<T>) => event.output.value;

/** What a done turn cost. */
export const doneUsage = ({ event }: Done<unknown>) => ({ usage: event.output.usage });

/** What a failed turn had spent before it failed (after its corrections, its prompts still cost). */
export const failedUsage = ({ event }: Failed) => ({ usage: usageOfError(event.error) ?? ZERO_USAGE });

/** An error event's message. */
export const messageOf = ({ event }: Failed) => ({ error: errorMessage(event.error) });

/** A step's failure from a port that rejected; `kind` says what failed (FailureKind), `prefix` whose error it was. */
export const portFailure =
  (kind: FailureKind, prefix = '') =>
  ({ event }: Failed) => ({ error: `${prefix}${errorMessage(event.error)}`, kind });

/** A step's failure from a turn that answered it could not do the step. */
export const answeredFailure =
  (kind: FailureKind) =>
  ({ event }: Done<SpecialistResult | InterruptedTurn>) => ({
    error: event.output.value.type === 'failure' ? event.output.value.error : 'unexpected result',
    kind,
  });

/** Every outcome of a step's turn reports what it cost to the plan, and whose turn it was: a result's usage, or what a failed turn spent. */
export const usageOfDone = (role: TurnRole) => ({
  type: 'reportUsage' as const,
  params: (done: Done<unknown>) => ({ ...doneUsage(done), role }),
});
export const usageOfFailure = (role: TurnRole) => ({
  type: 'reportUsage' as const,
  params: (failed: Failed) => ({ ...failedUsage(failed), role }),
});
