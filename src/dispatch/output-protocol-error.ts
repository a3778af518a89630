/** A model kept replying with output that does not match the expected schema. */
export class OutputProtocolError extends Error {
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
