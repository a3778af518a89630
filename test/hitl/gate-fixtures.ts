import { APPROVAL_OPTIONS, type Gate } from '../../src/machines/gates.js';
import type { PlanProposal } from '../../src/machines/types.js';
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

type MergeGate = Extract<Gate, { kind: 'merge' }>;

/** A step's changes that did not apply: the auto policy is never offered Resolved by hand (only a person can have resolved it). */
export const mergeGate = (patch: Partial<MergeGate> = {}): MergeGate => {
  const options = patch.options ?? ['Run again on top', 'Resolved by hand', 'Stop'];
  return {
    kind: 'merge',
    planId: 'plan_X',
    stepId: 's1',
    agent: 'coder',
    attempt: 1,
    conflicts: [{ path: 'src/hello.ts', hunks: ['<<<<<<< your tree\nexport const hi = 1;\n=======\nexport const hi = 2;\n>>>>>>> step s1'] }],
    diff: {
      files: [
        { path: 'src/hello.ts', status: 'modified', added: 12, removed: 4 },
        { path: 'notes.md', status: 'added', added: 3, removed: 0 },
      ],
      undeclared: ['notes.md'],
      patch_path: '/p/.opencode/plans/plan_X.s1.patch',
      base: 'b0',
      result: 'r1',
      where: 'worktree',
    },
    worktree: '/tmp/orca-wt/plan_X-s1',
    options,
    autoOptions: options.filter((o) => o !== 'Resolved by hand'),
    ...patch,
  };
};

/** A plan at its approval gate; `changes`: what a revision changed against the version the human saw. */
export const approvalGate = (proposal: PlanProposal, changes: Extract<Gate, { kind: 'approval' }>['changes'] = null): Extract<Gate, { kind: 'approval' }> => ({
  kind: 'approval',
  planId: 'plan_X',
  proposal,
  changes,
  review_agents: ['coder'],
  options: [...APPROVAL_OPTIONS],
  autoOptions: [...APPROVAL_OPTIONS],
});
