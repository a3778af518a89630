import { QUOTE_MAX } from '../text/quote.js';
import { OrcaError } from '../errors.js';

/** A model kept replying with output that does not match the expected schema. */
export class OutputProtocolError extends OrcaError {
  override readonly name = 'OutputProtocolError';
  /** Prompts sent in total: the first one plus every correction prompt. */
  readonly attempts: number;
  /** Why the last reply was rejected, e.g. `steps[1].agent: expected one of …`. */
  readonly lastReason: string;

  constructor({ label, attempts, lastReason }: { label: string; attempts: number; lastReason: string }) {
    const corrections = attempts - 1;
    super(
      `${label} was invalid after ${corrections} correction prompt${corrections === 1 ? '' : 's'}: ${lastReason}`,
    );
    this.attempts = attempts;
    this.lastReason = lastReason;
  }
}

/** A prompt of the turn ended with an error (the provider's, or OpenCode's) and no reply to read. */
export class TurnEndedError extends OrcaError {
  override readonly name = 'TurnEndedError';
  /** OpenCode's error on the assistant message, e.g. `APIError: Bad Request`. */
  readonly error: string;

  constructor({ label, error }: { label: string; error: string }) {
    const shown = error.length > QUOTE_MAX ? `${error.slice(0, QUOTE_MAX)}… (${error.length} characters)` : error;
    super(`expected ${label}, but the turn ended with ${shown}`);
    this.error = error;
  }
}
