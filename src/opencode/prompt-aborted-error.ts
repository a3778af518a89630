import type { Usage } from '../machines/usage.js';
import { OrcaError } from '../errors.js';

/**
 * A prompt whose signal aborted before it answered (its turn was stopped: Esc released the plan,
 * the server is stopping, or the chart left the state). The model requests it had made still
 * cost: `usage` is what OpenCode recorded for them (machines/turn.ts usageOfError reads it).
 */
export class PromptAbortedError extends OrcaError {
  override readonly name = 'PromptAbortedError';
  constructor(
    readonly sessionId: string,
    readonly usage: Usage,
    options?: { cause?: unknown },
  ) {
    super(`the prompt in session ${sessionId} was stopped before it answered`, options);
  }
}
