/** Errors of the CLI. main.ts prints the message as one line on stderr and exits with the code. */

/** The command line itself is wrong (unknown command or option, malformed plan_id): exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly exitCode = 2;
}

/** The command was understood but cannot be done (no such plan, not waiting for it): exit 1. */
export class RefusedError extends Error {
  override name = 'RefusedError';
  readonly exitCode = 1;
}
