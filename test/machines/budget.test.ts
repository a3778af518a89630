import { describe, expect, it } from 'vitest';
import { crossedLimits, dispatchesLeft, raisedCaps, withTurnUsage, type BudgetContext } from '../../src/machines/budget.js';
import { openGates } from '../../src/machines/gates.js';
import { statePath } from '../../src/persistence/plan-envelope.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';
import { replay } from '../support/model-coverage.js';
import { usage } from '../support/turns.js';
import { by, done, idlePlanMachine, twoStepPlan } from './fixtures.js';

const context = (patch: Partial<BudgetContext> = {}): BudgetContext => ({
  dispatches: 1,
  dispatch_cap: 100,
  usage: ZERO_USAGE,
  cost_cap: 0.5,
  token_cap: 10_000,
  policy: { max_dispatches: 100, max_cost: 0.5, max_tokens: 10_000 },
  ...patch,
});

describe('budget guards', () => {
  it('should cross a limit once what was spent reaches it, counting every token class', () => {
    expect(crossedLimits(context())).toEqual([]);
    expect(crossedLimits(context({ usage: usage({ cost: 0.5, input: 0, output: 0 }) }))).toEqual(['cost']);
    // 4,000 in + 1,000 out + 1,000 reasoning + 3,500 cache reads + 500 cache writes = 10,000.
    const tokens = usage({ input: 4000, output: 1000, reasoning: 1000, cache_read: 3500, cache_write: 500, cost: 0 });
    expect(crossedLimits(context({ usage: tokens }))).toEqual(['tokens']);
    expect(crossedLimits(context({ dispatches: 100, usage: tokens }))).toEqual(['dispatches', 'tokens']);
  });

  it('should have no money or token limit in plans from before the budget existed', () => {
    const old = context({ usage: undefined, cost_cap: undefined, token_cap: undefined, policy: { max_dispatches: 100 } });
    expect(crossedLimits(old)).toEqual([]);
    expect(dispatchesLeft(old)).toBe(99);
  });

  it('should let no dispatch start once money or tokens are spent, and the rest of the dispatch cap otherwise', () => {
    expect(dispatchesLeft(context({ dispatches: 97 }))).toBe(3);
    expect(dispatchesLeft(context({ usage: usage({ cost: 0.6 }) }))).toBe(0);
  });

  it('should raise only the crossed limits on Continue, by their configured amounts above what was spent', () => {
    const spent = usage({ input: 12_000, output: 0, cost: 0.7 });
    expect(raisedCaps(context({ usage: spent }))).toEqual({ dispatch_cap: 100, cost_cap: 1.2, token_cap: 22_000 });
    expect(raisedCaps(context({ dispatches: 100 }))).toEqual({ dispatch_cap: 200, cost_cap: 0.5, token_cap: 10_000 });
  });

  it('should sum a turn into the plan and its step, without float noise in the cost', () => {
    const steps = [{ id: 's1' }, { id: 's2', usage: usage({ cost: 0.1 }) }];
    const once = withTurnUsage({ usage: usage({ cost: 0.1 }), steps }, { stepId: 's2', usage: usage({ cost: 0.2 }) });
    expect(once.usage).toEqual(usage({ turns: 2, model_calls: 2, input: 200, output: 20, cost: 0.3 }));
    expect(once.steps).toEqual([{ id: 's1' }, { id: 's2', usage: usage({ turns: 2, model_calls: 2, input: 200, output: 20, cost: 0.3 }) }]);
    expect(withTurnUsage({ steps }, { usage: usage() }).steps).toBe(steps);
  });
});

describe('plan machine: the money and token budget', () => {
  const input = { planId: 'plan_X', message: 'm', policy: { review_agents: [], max_tokens: 1000, max_cost: 1 } };
  const approved = [
    done('openPlannerSession', { sessionId: 'ses_planner' }),
    done('consultPlanner', twoStepPlan, usage({ input: 90, output: 10 })),
    { type: 'approval.approve', ...by },
  ];
  const output = { summary: 'done', artifacts: [], key_findings: [] };
  const crossedAfterS1 = [
    ...approved,
    { type: 'usage.recorded', stepId: 's1', usage: usage({ input: 800, output: 200, cost: 0.05 }) },
    { type: 'step.completed', stepId: 's1', output },
  ];

  it('should sum the planner turn and each step turn, per step and per plan', () => {
    const { snapshot } = replay(idlePlanMachine, input, [...approved, { type: 'usage.recorded', stepId: 's1', usage: usage({ input: 300 }) }]);
    expect(snapshot.context.usage).toEqual(usage({ turns: 2, model_calls: 2, input: 390, output: 20, cost: 0.002 }));
    expect(snapshot.context.steps.map((s: any) => s.usage)).toEqual([usage({ input: 300 }), undefined]);
    // No role said (a usage.recorded from before roles were sent): in the step's total only.
    expect(snapshot.context.steps.map((s: any) => s.usage_by_role)).toEqual([undefined, undefined]);
  });

  it("should split a step's usage by whose turns they were, its total unchanged", () => {
    const { snapshot } = replay(idlePlanMachine, input, [
      ...approved,
      { type: 'usage.recorded', stepId: 's1', role: 'specialist', usage: usage({ input: 300, model_calls: 4 }) },
      { type: 'usage.recorded', stepId: 's1', role: 'reviewer', usage: usage({ input: 50, cost: 0.1 }) },
      { type: 'usage.recorded', stepId: 's1', role: 'fixer', usage: usage({ input: 70, model_calls: 2 }) },
      { type: 'usage.recorded', stepId: 's1', role: 'reviewer', usage: usage({ input: 50, cost: 0.2 }) },
    ]);
    const [s1] = snapshot.context.steps as any[];
    expect(s1.usage).toEqual(usage({ turns: 4, model_calls: 8, input: 470, output: 40, cost: 0.302 }));
    expect(s1.usage_by_role).toEqual({
      specialist: usage({ input: 300, model_calls: 4 }),
      reviewer: usage({ turns: 2, model_calls: 2, input: 100, output: 20, cost: 0.3 }),
      fixer: usage({ input: 70, model_calls: 2 }),
    });
  });

  it('should pause at the budget gate before the next step once the token budget is crossed', () => {
    const { snapshot } = replay(idlePlanMachine, input, crossedAfterS1);
    expect(statePath(snapshot.value)).toBe('in_progress.budget_exhausted');
    expect(snapshot.context.steps.map((s: any) => s.status)).toEqual(['completed', 'pending']);
    const [gate] = openGates(snapshot as never);
    expect(gate).toMatchObject({ kind: 'budget', crossed: ['tokens'], options: ['Continue', 'Stop'], autoOptions: ['Continue', 'Stop'] });
  });

  it('should start the next step after Continue, with the token limit raised by max_tokens', () => {
    const { snapshot } = replay(idlePlanMachine, input, [...crossedAfterS1, { type: 'budget.continue', ...by }]);
    expect(statePath(snapshot.value)).toBe('in_progress.running');
    expect(snapshot.context.token_cap).toBe(1100 + 1000);
    expect(snapshot.context.cost_cap).toBe(1);
    expect(snapshot.context.steps[1]!.status).toBe('running');
    expect(snapshot.context.decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Continue' });
  });

  it('should end the plan as failed on Stop, keeping the completed step', () => {
    const { snapshot } = replay(idlePlanMachine, input, [...crossedAfterS1, { type: 'budget.stop', ...by }]);
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context.outcome).toBe('stopped');
    expect(snapshot.context.steps[0]!.output).toEqual(output);
  });

  it('should refuse the auto policy a Retry once the money is spent, and ask at the budget gate first', () => {
    const { snapshot } = replay(idlePlanMachine, input, [
      ...approved,
      { type: 'usage.recorded', stepId: 's1', usage: usage({ input: 10, cost: 1.5 }) },
      { type: 'step.failed', stepId: 's1', attempt: 1, error: 'red', signature: 'red' },
    ]);
    expect(statePath(snapshot.value)).toBe('in_progress.budget_exhausted');
    expect(snapshot.can({ type: 'deviation.retry', stepId: 's1', channel: 'auto', at: 'x' })).toBe(false);
    expect(snapshot.can({ type: 'deviation.retry', stepId: 's1', channel: 'question', at: 'x' })).toBe(true);
  });
});
