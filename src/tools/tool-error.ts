import { InvalidToolArgumentsError } from './invalid-tool-arguments-error.js';
import { errorMessage } from '../errors.js';

/** A tool result that tells the model what went wrong, as JSON it can relay to the user. */
export function toolError(error: unknown, planId?: string): string {
  return JSON.stringify({
    status: 'failure',
    ...(planId ? { plan_id: planId } : {}),
    error: errorMessage(error),
    error_type: error instanceof Error ? error.name : 'Error',
    ...(error instanceof InvalidToolArgumentsError ? { expected: error.expected } : {}),
  });
}
