/**
 * The two answers to a human's request that went wrong, whichever channel it came through: the CLI
 * prints the message as one line on stderr and exits with `exitCode`; the plan viewer answers 400
 * (UsageError) or 409 (RefusedError) with the message.
 */

import { OrcaError } from './errors.js';

/** The request itself is wrong (unknown command or option, malformed plan_id, no such choice): exit 2. */
export class UsageError extends OrcaError {
  override name = 'UsageError';
  readonly exitCode = 2;
}

/** The request was understood but cannot be done (no such plan, not waiting for it): exit 1. */
export class RefusedError extends OrcaError {
  override name = 'RefusedError';
  readonly exitCode = 1;
}
