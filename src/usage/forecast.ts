import type { AgentTurns } from './history.js';
import { formatCost, formatTokens } from './format.js';

/**
 * What a plan will cost at least, before it runs (docs/design.md, "Usage and cost"): the dispatches
 * it needs for sure (one per step, plus one reviewer round per reviewed step), and tokens and money
 * estimated from the median turn of each agent in this project's history. A step with a fixer
 * round, a retry or a correction prompt costs more, so the estimate is a floor, not a bound.
 */
export interface Forecast {
  dispatches: { steps: number; reviews: number; total: number };
  /** null when none of the plan's agents has recorded turns yet. */
  estimate: {
    tokens: number;
    cost: number;
    /** Recorded turns the medians come from, per agent. */
    based_on: Record<string, number>;
    /** Agents of the plan without history: their turns are not in the estimate. */
    without_history: string[];
  } | null;
}

export function forecastPlan(
  steps: ReadonlyArray<{ agent: string }>,
  reviewAgents: readonly string[],
  history: (agent: string) => AgentTurns | null,
): Forecast {
  const reviewed = steps.filter((s) => reviewAgents.includes(s.agent)).length;
  const dispatches = [...steps.map((s) => s.agent), ...Array<string>(reviewed).fill('reviewer')];
  const known = new Map<string, AgentTurns>();
  const unknown = new Set<string>();
  for (const agent of new Set(dispatches)) {
    const stats = history(agent);
    if (stats) known.set(agent, stats);
    else unknown.add(agent);
  }
  let tokens = 0;
  let cost = 0;
  for (const agent of dispatches) {
    const stats = known.get(agent);
    if (!stats) continue;
    tokens += stats.median_tokens;
    cost += stats.median_cost;
  }
  return {
    dispatches: { steps: steps.length, reviews: reviewed, total: dispatches.length },
    estimate:
      known.size === 0
        ? null
        : {
            tokens: Math.round(tokens),
            cost: Math.round(cost * 1e6) / 1e6,
            based_on: Object.fromEntries([...known].map(([agent, stats]) => [agent, stats.turns])),
            without_history: [...unknown],
          },
  };
}

/**
 * The forecast in one paragraph, e.g. "Forecast: at least 4 dispatches (3 steps + 1 reviewer
 * round); about 12,400 tokens and $0.05, from the medians of 14 recorded turns (coder 6,
 * reviewer 4, tester 4)." or "…; tokens and cost: no history yet."
 */
export function forecastText(forecast: Forecast): string {
  const { steps, reviews, total } = forecast.dispatches;
  const parts = `${steps} step${steps === 1 ? '' : 's'}${reviews ? ` + ${reviews} reviewer round${reviews === 1 ? '' : 's'}` : ''}`;
  const head = `Forecast: at least ${total} dispatch${total === 1 ? '' : 'es'} (${parts})`;
  const e = forecast.estimate;
  // Two rows of the approval dialog at most: the question keeps its room for the plan.
  if (!e) return `${head}; tokens and cost: no history yet.`;
  const turns = Object.values(e.based_on).reduce((a, b) => a + b, 0);
  const by = Object.entries(e.based_on)
    .map(([agent, n]) => `${agent} ${n}`)
    .join(', ');
  const missing = e.without_history.length ? `; no history yet for ${e.without_history.join(', ')}, not counted` : '';
  return `${head}; about ${formatTokens(e.tokens)} tokens and ${formatCost(e.cost)}, from the medians of ${turns} recorded turn${turns === 1 ? '' : 's'} (${by})${missing}.`;
}
