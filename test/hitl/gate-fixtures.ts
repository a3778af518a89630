import type { Gate } from '../../src/machines/gates.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';
import { ONE_TURN } from '../support/turns.js';

/** Gates as openGates builds them, for the channel tests; each test patches what it asserts on. */
type DeviationGate = Extract<Gate, { kind: 'deviation' }>;
type BudgetGate = Extract<Gate, { kind: 'budget' }>;

/** At an open breaker the machine offers the auto policy nothing; elsewhere what it offers a human. */
export const deviationGate = (patch: Partial<DeviationGate> = {}): DeviationGate => {
  const options = patch.options ?? ['Retry', 'Replan', 'Stop'];
  return {
    kind: 'deviation',
    planId: 'plan_X',
    stepId: 's1',
    agent: 'coder',
    error: 'red',
    failures: 3,
    options,
    autoOptions: patch.breaker ? [] : options,
    ...patch,
  };
};

export const budgetGate = (patch: Partial<BudgetGate> = {}): BudgetGate => ({
  kind: 'budget',
  planId: 'plan_X',
  crossed: ['dispatches'],
  dispatches: 100,
  cap: 100,
  increment: 100,
  usage: { ...ONE_TURN, turns: 101, input: 40_000, output: 2_000, cost: 0.42 },
  cost_cap: null,
  token_cap: null,
  cost_increment: null,
  token_increment: null,
  steps: [
    { id: 's1', agent: 'coder', status: 'completed', usage: { ...ONE_TURN, turns: 60, input: 30_000, output: 1_500, cost: 0.3 } },
    { id: 's2', agent: 'tester', status: 'pending', usage: ZERO_USAGE },
  ],
  after_continue: { cap: 200, cost_cap: null, token_cap: null },
  completed: 1,
  total: 2,
  options: ['Continue', 'Stop'],
  autoOptions: ['Continue', 'Stop'],
  ...patch,
});

/** The step machine's breaker sentence for a step. */
export const breakerText = (stepId: string) =>
  `circuit breaker: the same error 3 times in a row on step ${stepId}; automatic retrying stopped, a human decides`;
