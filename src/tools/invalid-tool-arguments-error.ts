import { OrcaError } from '../errors.js';

/** A tool call whose arguments do not match the tool's schema; says which and what each must be. */
export class InvalidToolArgumentsError extends OrcaError {
  override name = 'InvalidToolArgumentsError';
  constructor(
    readonly tool: string,
    readonly problems: string[],
    /** Every argument of the tool and what it must be. */
    readonly expected: Record<string, string>,
  ) {
    super(`${tool} was called with invalid arguments: ${problems.join('; ')}. Nothing was done: call it again with valid arguments.`);
  }
}
