import { describe, expect, it } from 'vitest';
import { autoChoice, autoPause } from '../../src/decisions/auto-policy.js';
import { breakerText, budgetGate, deviationGate as deviation, mergeGate } from '../hitl/gate-fixtures.js';

const budget = budgetGate();
const breaker = breakerText('s1');

describe('auto policy', () => {
  it('should answer the dispatch cap only as hitl.auto.budget says, saying so', () => {
    expect(autoChoice(budget, { budget: 'continue' })).toEqual({ option: 'Continue', text: 'auto policy hitl.auto.budget=continue' });
    expect(autoChoice(budget, { budget: 'stop' })).toEqual({ option: 'Stop', text: 'auto policy hitl.auto.budget=stop' });
    expect(autoChoice(budget, { approval: 'approve', deviation: 'retry' })).toBeNull();
    expect(autoChoice(budget, undefined)).toBeNull();
  });

  it('should never decide at an open breaker, whatever hitl.auto.deviation says, and say why', () => {
    for (const deviationPolicy of ['retry', 'replan', 'stop'] as const) {
      expect(autoChoice(deviation({ breaker }), { deviation: deviationPolicy })).toBeNull();
    }
    expect(autoPause(deviation({ breaker }), { deviation: 'retry' })).toBe(`hitl.auto.deviation=retry not applied to step s1 (${breaker})`);
  });

  it('should decide a failed step without a breaker as before, and have nothing to pause', () => {
    expect(autoChoice(deviation(), { deviation: 'retry' })).toEqual({ option: 'Retry', text: 'auto policy hitl.auto.deviation=retry' });
    expect(autoPause(deviation(), { deviation: 'retry' })).toBeNull();
    // Nobody configured an automatic decision: nothing was paused.
    expect(autoPause(deviation({ breaker }), { approval: 'approve' })).toBeNull();
    expect(autoPause(budget, { budget: 'continue' })).toBeNull();
  });

  it('should answer a step whose changes did not apply only as hitl.auto.merge says, saying so', () => {
    expect(autoChoice(mergeGate(), { merge: 'rerun' })).toEqual({ option: 'Run again on top', text: 'auto policy hitl.auto.merge=rerun' });
    expect(autoChoice(mergeGate(), { merge: 'stop' })).toEqual({ option: 'Stop', text: 'auto policy hitl.auto.merge=stop' });
    // Other gates' policies do not answer it, and no policy value can mean Resolved by hand.
    expect(autoChoice(mergeGate(), { deviation: 'retry', resume: 'rerun' })).toBeNull();
    expect(autoChoice(mergeGate(), undefined)).toBeNull();
    expect(autoPause(mergeGate(), { merge: 'rerun' })).toBeNull();
  });

  it('should stop, saying why, when Run again on top is no longer offered to hitl.auto.merge=rerun', () => {
    const spent = mergeGate({ attempt: 3, options: ['Resolved by hand', 'Stop'] });
    expect(autoChoice(spent, { merge: 'rerun' })).toEqual({
      option: 'Stop',
      text: 'auto policy hitl.auto.merge=rerun: Run again on top is no longer offered at attempt 3 (the attempt limit or the budget is reached), so the plan stops',
    });
  });
});
