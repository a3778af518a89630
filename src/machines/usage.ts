/**
 * What model turns cost, as OpenCode reports it on each assistant message (info.tokens, info.cost):
 * one record per turn, summed per step and per plan (DESIGN "Usage and cost"). Cache reads count:
 * most of an agent's tokens are cache reads.
 */
export interface Usage {
  turns: number;
  input: number;
  output: number;
  reasoning: number;
  cache_read: number;
  cache_write: number;
  /** In the provider's currency units as OpenCode computes them from the model's configured prices. */
  cost: number;
}

export const ZERO_USAGE: Usage = { turns: 0, input: 0, output: 0, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0 };

export const addUsage = (a: Usage, b: Usage): Usage => ({
  turns: a.turns + b.turns,
  input: a.input + b.input,
  output: a.output + b.output,
  reasoning: a.reasoning + b.reasoning,
  cache_read: a.cache_read + b.cache_read,
  cache_write: a.cache_write + b.cache_write,
  cost: a.cost + b.cost,
});

/** Every token class, cache reads and writes included: what `budget.max_tokens` counts. */
export const totalTokens = (u: Usage) => u.input + u.output + u.reasoning + u.cache_read + u.cache_write;
