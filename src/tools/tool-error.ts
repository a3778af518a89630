import { InvalidToolArgumentsError } from './invalid-tool-arguments-error.js';

/** A tool result that tells the model what went wrong, as JSON it can relay to the user. */
export function toolError(error: unknown, planId?: string): string {
  const e = error instanceof Error ? error : new Error(String(error));
  return JSON.stringify({
    status: 'failure',
    ...(planId ? { plan_id: planId } : {}),
    error: e.message,
    error_type: e.name,
    ...(e instanceof InvalidToolArgumentsError ? { expected: e.expected } : {}),
  });
}
