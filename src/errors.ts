/**
 * The one base of the errors Orca throws on purpose, and the one way to read any thrown value's message.
 *
 * `error instanceof OrcaError` tells an expected refusal (bad input, a plan not waiting, a lease held
 * elsewhere) from a crash. Each subclass names itself (`override name = '…'`): the name reaches tool
 * results (`error_type`) and the CLI, so it is part of what users and tests read.
 */
export class OrcaError extends Error {
  override name = 'OrcaError';
}

/** The message of anything thrown: an Error's message, a string as it is, anything else as text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
