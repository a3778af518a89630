/**
 * The retry rule, written once for the plan's Retry guard and the step's: Retry is offered below
 * the attempt limit, and the auto policy may not retry past an open breaker or a spent budget
 * (dispatches, money, tokens): those wait for a human.
 */

export interface RetryState {
  /** Failed attempts so far. */
  failures: number;
  maxAttempts: number;
  /** The same error came back often enough to open the breaker. */
  breakerOpen: boolean;
  /** Whether the plan's budget lets one more dispatch start; the step leaves the budget to its plan. */
  budgetLeft?: boolean;
}

export const mayRetry = (state: RetryState, channel: string): boolean =>
  state.failures < state.maxAttempts && (channel !== 'auto' || (!state.breakerOpen && state.budgetLeft !== false));
