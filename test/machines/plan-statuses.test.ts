import { describe, expect, it } from 'vitest';
import { planMachine } from '../../src/machines/plan.machine.js';
import { FINAL_PLAN_STATUSES, isFinalPlanStatus, PLAN_STATUSES } from '../../src/machines/types.js';

describe('plan statuses', () => {
  it("should call final exactly the plan chart's final states, and every state a status", () => {
    const states = Object.entries(planMachine.root.states);
    expect(states.map(([name]) => name).sort()).toEqual([...PLAN_STATUSES].sort());
    expect(states.filter(([, node]) => node.type === 'final').map(([name]) => name).sort()).toEqual([...FINAL_PLAN_STATUSES].sort());
  });

  it('should tell a finished status from one a plan goes on from, and an unknown one as unfinished', () => {
    expect(PLAN_STATUSES.filter(isFinalPlanStatus)).toEqual(['completed', 'failed', 'rejected']);
    expect(isFinalPlanStatus('in_progress')).toBe(false);
    expect(isFinalPlanStatus('')).toBe(false);
  });
});
