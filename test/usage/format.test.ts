import { describe, expect, it } from 'vitest';
import { gateQuestions } from '../../src/hitl/gate-questions.js';
import { ZERO_USAGE, type Usage } from '../../src/machines/usage.js';
import { cacheHitShare, roleUsageParts, tokenClasses, turnsText, usageText } from '../../src/usage/format.js';
import { budgetGate } from '../hitl/gate-fixtures.js';
import { usage } from '../support/turns.js';

/** Usage recorded before Orca counted model calls. */
const old = (patch: Partial<Usage> = {}): Usage => {
  const { model_calls: _, ...rest } = usage(patch);
  return rest;
};

describe('usage in words', () => {
  it("should say Orca's turns and the model calls they made apart", () => {
    expect(usageText(usage({ turns: 2, model_calls: 5, input: 12_000, cost: 0.12 }))).toBe('2 Orca turns, 5 model calls, 12,010 tokens, $0.12');
    expect(turnsText(usage())).toBe('1 Orca turn, 1 model call');
    expect(turnsText(ZERO_USAGE)).toBe('0 Orca turns, 0 model calls');
  });

  it('should say model calls were not recorded in usage from before they were counted', () => {
    expect(usageText(old({ turns: 4 }))).toBe('4 Orca turns (model calls not recorded), 110 tokens, $0.001');
  });

  it("should split a step's usage by role, naming what older turns left unattributed", () => {
    const total = usage({ turns: 4, model_calls: 6 });
    expect(roleUsageParts(total, undefined)).toEqual([]);
    expect(roleUsageParts(total, { fixer: usage(), specialist: usage({ model_calls: 3 }) })).toEqual([
      'specialist 1 Orca turn, 3 model calls, 110 tokens, $0.001',
      'fixer 1 Orca turn, 1 model call, 110 tokens, $0.001',
      'not attributed 2 Orca turns',
    ]);
  });

  it('should word what was spent in the budget question with Orca turns and model calls', () => {
    const gate = budgetGate({
      usage: usage({ turns: 101, model_calls: 250, input: 40_000, output: 2_000, cost: 0.42 }),
      steps: [
        { id: 's1', agent: 'coder', status: 'completed', usage: usage({ turns: 60, model_calls: 200, input: 30_000, output: 1_500, cost: 0.3 }) },
        { id: 's2', agent: 'tester', status: 'pending', usage: ZERO_USAGE },
      ],
    });
    const [action] = gateQuestions(gate);
    expect(action!.question).toContain('Spent so far: 101 Orca turns, 250 model calls, 42,000 tokens, $0.42');
    expect(action!.question).toContain('s1 (coder, completed) 60 Orca turns, 200 model calls, 31,500 tokens, $0.30');
    expect(action!.question).toContain('other turns (planner, asks) 41 Orca turns, 50 model calls, 10,500 tokens, $0.12');
    const older = budgetGate({ usage: old({ turns: 101 }), steps: [{ id: 's1', agent: 'coder', status: 'completed', usage: usage({ turns: 60 }) }] });
    expect(gateQuestions(older)[0]!.question).toContain('other turns (planner, asks) 41 Orca turns (model calls not recorded)');
  });

  it('should give the share of prompt tokens served from cache, only where the provider reported cache use', () => {
    const cached = usage({ input: 1_000, cache_read: 3_000, cache_write: 0 });
    expect(cacheHitShare(cached)).toBe(0.75);
    expect(tokenClasses(cached)).toBe('in 1,000 · out 10 · reasoning 0 · cache read 3,000 · cache write 0 · cache hits 75%');
    expect(cacheHitShare(usage({ input: 1_000, cache_read: 0, cache_write: 500 }))).toBe(0);
    // No cache use reported (a provider that does not report it): no share, rather than a 0% that may not be true.
    expect(cacheHitShare(usage({ input: 1_000, cache_read: 0, cache_write: 0 }))).toBeNull();
    expect(tokenClasses(usage({ cache_read: 0, cache_write: 0 }))).not.toContain('cache hits');
    expect(cacheHitShare(ZERO_USAGE)).toBeNull();
  });
});
