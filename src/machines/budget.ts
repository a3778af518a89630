import { addRoleUsage, addUsage, totalTokens, ZERO_USAGE, type TurnRole, type Usage, type UsageByRole } from './usage.js';

/**
 * The plan's budget (docs/design.md, "Usage and cost"): dispatches (`breakers.max_dispatches`),
 * money (`budget.max_cost`) and tokens of every class (`budget.max_tokens`). Pure functions over
 * the plan's context, read by its guards and actions: a limit is crossed once what was spent
 * reaches it, and Continue raises only the limits that were crossed, each by its configured amount.
 */

export type BudgetLimit = 'dispatches' | 'cost' | 'tokens';

/** The part of the plan's context the budget reads. Usage and the money/token caps are absent in plans from before they existed. */
export interface BudgetContext {
  dispatches: number;
  dispatch_cap: number;
  usage?: Usage;
  cost_cap?: number | null;
  token_cap?: number | null;
  policy: { max_dispatches: number; max_cost?: number | null; max_tokens?: number | null };
}

export const planUsage = (c: Pick<BudgetContext, 'usage'>): Usage => c.usage ?? ZERO_USAGE;

/** The limits already reached, in the order a question names them. */
export function crossedLimits(c: BudgetContext): BudgetLimit[] {
  const usage = planUsage(c);
  const crossed: BudgetLimit[] = [];
  if (c.dispatches >= c.dispatch_cap) crossed.push('dispatches');
  if (typeof c.cost_cap === 'number' && usage.cost >= c.cost_cap) crossed.push('cost');
  if (typeof c.token_cap === 'number' && totalTokens(usage) >= c.token_cap) crossed.push('tokens');
  return crossed;
}

/** Dispatches that may start now: none once money or tokens are spent, else what is left of the dispatch cap. */
export function dispatchesLeft(c: BudgetContext): number {
  const crossed = crossedLimits(c);
  if (crossed.includes('cost') || crossed.includes('tokens')) return 0;
  return Math.max(0, c.dispatch_cap - c.dispatches);
}

/** The caps after Continue: each crossed limit raised by its configured amount above what was spent. */
export function raisedCaps(c: BudgetContext): Pick<BudgetContext, 'dispatch_cap' | 'cost_cap' | 'token_cap'> {
  const crossed = crossedLimits(c);
  const usage = planUsage(c);
  const raise = (cap: number | null | undefined, spent: number, amount: number | null | undefined) =>
    typeof cap === 'number' && amount ? roundCost(Math.max(cap, spent) + amount) : (cap ?? null);
  return {
    dispatch_cap: crossed.includes('dispatches') ? c.dispatches + c.policy.max_dispatches : c.dispatch_cap,
    cost_cap: crossed.includes('cost') ? raise(c.cost_cap, usage.cost, c.policy.max_cost) : (c.cost_cap ?? null),
    token_cap: crossed.includes('tokens') ? raise(c.token_cap, totalTokens(usage), c.policy.max_tokens) : (c.token_cap ?? null),
  };
}

/** Sums of prices per million tokens would otherwise show float noise (0.30000000000000004). */
const roundCost = (cost: number) => Math.round(cost * 1e10) / 1e10;

/** a + b with the cost rounded to 1e-10. */
export const sumUsage = (a: Usage, b: Usage): Usage => {
  const sum = addUsage(a, b);
  return { ...sum, cost: roundCost(sum.cost) };
};

/** A turn's usage added to the plan's total and to its step's (when it belongs to one), and to its role's share of the step's (when the step said whose turn it was). */
export function withTurnUsage<S extends { id: string; usage?: Usage; usage_by_role?: UsageByRole }>(
  c: { usage?: Usage; steps: S[] },
  turn: { stepId?: string; role?: TurnRole; usage: Usage },
): { usage: Usage; steps: S[] } {
  const { stepId, role, usage } = turn;
  const added = (s: S): S => ({
    ...s,
    usage: sumUsage(s.usage ?? ZERO_USAGE, usage),
    ...(role === undefined ? {} : { usage_by_role: addRoleUsage(s.usage_by_role, role, usage, sumUsage) }),
  });
  return {
    usage: sumUsage(planUsage(c), usage),
    steps: stepId === undefined ? c.steps : c.steps.map((s) => (s.id === stepId ? added(s) : s)),
  };
}
