import { describe, expect, it } from 'vitest';
import { mayRetry, type RetryState } from '../../src/machines/retry.js';

const state = (patch: Partial<RetryState> = {}): RetryState => ({ failures: 1, maxAttempts: 3, breakerOpen: false, ...patch });

describe('the retry rule', () => {
  it('should offer Retry below the attempt limit, on every channel', () => {
    expect(mayRetry(state(), 'question')).toBe(true);
    expect(mayRetry(state(), 'auto')).toBe(true);
    expect(mayRetry(state({ failures: 3 }), 'question')).toBe(false);
    expect(mayRetry(state({ failures: 3 }), 'auto')).toBe(false);
  });

  it('should leave an open breaker to a human', () => {
    expect(mayRetry(state({ breakerOpen: true }), 'cli')).toBe(true);
    expect(mayRetry(state({ breakerOpen: true }), 'auto')).toBe(false);
  });

  it('should leave a spent budget to a human, and a step that does not know its budget to its plan', () => {
    expect(mayRetry(state({ budgetLeft: false }), 'command')).toBe(true);
    expect(mayRetry(state({ budgetLeft: false }), 'auto')).toBe(false);
    expect(mayRetry(state({ budgetLeft: true }), 'auto')).toBe(true);
    expect(mayRetry(state({ budgetLeft: undefined }), 'auto')).toBe(true);
  });
});
