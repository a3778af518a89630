// Polling with a deadline: e2e tests observe a real server, and a wait without a deadline
// turns a bug into a hung test run.

export type WaitForOptions = {
  timeoutMs?: number;
  intervalMs?: number;
  /** Says what was awaited, for the timeout error. */
  description?: string;
};

/**
 * Calls `check` until it returns a value other than undefined, null or false, and returns it.
 * A `check` that throws is retried; its last error is reported on timeout.
 */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 10_000, intervalMs = 50, description = 'condition' }: WaitForOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Expected ${description} within ${timeoutMs} ms, but it did not happen${why}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** fetch with a deadline that also honours the caller's own signal. */
export function fetchWithTimeout(
  input: string | URL | Request,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Response> {
  const { timeoutMs = 30_000, signal, ...rest } = init;
  const timeout = AbortSignal.timeout(timeoutMs);
  const callerSignal = signal ?? (input instanceof Request ? input.signal : undefined);
  return fetch(input, { ...rest, signal: callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout });
}
