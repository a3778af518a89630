import { describe, expect, it } from 'vitest';
import { addRoleUsage, addUsage, modelCalls, ZERO_USAGE, type Usage } from '../../src/machines/usage.js';
import { usage } from '../support/turns.js';

/** Usage recorded before Orca counted model calls: turns, no `model_calls`. */
const old = (patch: Partial<Usage> = {}): Usage => {
  const { model_calls: _, ...rest } = usage(patch);
  return rest;
};

describe('usage sums', () => {
  it('should count Orca turns and model calls apart', () => {
    expect(addUsage(usage({ model_calls: 3 }), usage({ model_calls: 2 }))).toEqual(usage({ turns: 2, model_calls: 5, input: 200, output: 20, cost: 0.002 }));
  });

  it('should keep model calls unknown once usage from before they were counted is in the sum', () => {
    expect(modelCalls(old())).toBeUndefined();
    expect(modelCalls(ZERO_USAGE)).toBe(0);
    const sum = addUsage(old(), usage({ model_calls: 4 }));
    expect(sum.turns).toBe(2);
    expect(sum).not.toHaveProperty('model_calls');
    // Nothing recorded is not unknown: no turns, no calls.
    const { model_calls: _, ...empty } = ZERO_USAGE;
    expect(addUsage(empty, usage({ model_calls: 4 })).model_calls).toBe(4);
  });

  it("should add a turn to its role's share", () => {
    const by = addRoleUsage(undefined, 'reviewer', usage());
    expect(by).toEqual({ reviewer: usage() });
    expect(addRoleUsage(by, 'reviewer', usage({ model_calls: 2 }))).toEqual({ reviewer: usage({ turns: 2, model_calls: 3, input: 200, output: 20, cost: 0.002 }) });
    expect(addRoleUsage(by, 'fixer', usage())).toEqual({ reviewer: usage(), fixer: usage() });
  });
});
