/** Errors of the agenda. Each says what was wrong and what was expected. */

import { OrcaError } from '../errors.js';

export { quote } from '../text/quote.js';

/** A safety rail refused something: the message is exactly `BLOCKED [rule]: why`. */
export class AgendaBlockedError extends OrcaError {
  override name = 'AgendaBlockedError';
  constructor(
    readonly rule: string,
    readonly why: string,
  ) {
    super(`BLOCKED [${rule}]: ${why}`);
  }
}

/** A trigger, action, id or option that does not have the expected shape. */
export class AgendaInputError extends OrcaError {
  override name = 'AgendaInputError';
}

/** A line the item's statechart does not accept in its current state (executed twice, cancelled after it ran). */
export class AgendaStateError extends OrcaError {
  override name = 'AgendaStateError';
}
