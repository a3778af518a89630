import type { Gate } from '../../src/machines/gates.js';

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
  dispatches: 100,
  cap: 100,
  increment: 100,
  completed: 1,
  total: 2,
  options: ['Continue', 'Stop'],
  autoOptions: ['Continue', 'Stop'],
  ...patch,
});

/** The step machine's breaker sentence for a step. */
export const breakerText = (stepId: string) =>
  `circuit breaker: the same error 3 times in a row on step ${stepId}; automatic retrying stopped, a human decides`;
