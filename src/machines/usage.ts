/**
 * What model turns cost, as OpenCode reports it on each assistant message (info.tokens, info.cost):
 * one record per turn, summed per step and per plan (docs/design.md, "Usage and cost"). Cache reads
 * count: most of an agent's tokens are cache reads.
 */
export interface Usage {
  /** Orca's turns: prompts Orca sent (a correction prompt is a turn of its own). */
  turns: number;
  /**
   * Model requests OpenCode made for those turns: one per assistant message, so a turn with tool
   * calls makes several. Absent in usage recorded before Orca counted them: unknown, and a sum
   * with an unknown count is unknown (see addUsage).
   */
  model_calls?: number;
  input: number;
  output: number;
  reasoning: number;
  cache_read: number;
  cache_write: number;
  /** In the provider's currency units as OpenCode computes them from the model's configured prices. */
  cost: number;
}

export const ZERO_USAGE: Usage = { turns: 0, model_calls: 0, input: 0, output: 0, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0 };

/** The usage's model calls; undefined when not recorded (usage from before they were counted, with turns). */
export const modelCalls = (u: Usage): number | undefined => u.model_calls ?? (u.turns > 0 ? undefined : 0);

export const addUsage = (a: Usage, b: Usage): Usage => {
  const calls = [modelCalls(a), modelCalls(b)];
  return {
    turns: a.turns + b.turns,
    ...(calls[0] !== undefined && calls[1] !== undefined ? { model_calls: calls[0] + calls[1] } : {}),
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    cost: a.cost + b.cost,
  };
};

/** Every token class, cache reads and writes included: what `budget.max_tokens` counts. */
export const totalTokens = (u: Usage) => u.input + u.output + u.reasoning + u.cache_read + u.cache_write;

/**
 * Whose turns they were within a step: its specialist's own turn, the reviewer's, the fixer's (the
 * specialist again, fixing what the reviewer found), or a read-only ask made from the step's session.
 */
export const TURN_ROLES = ['specialist', 'reviewer', 'fixer', 'ask'] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

/** A step's usage split by whose turns they were (`steps[].usage_by_role`); `steps[].usage` stays the total. */
export type UsageByRole = Partial<Record<TurnRole, Usage>>;

/** `by` with `usage` added to `role`'s share; `sum` adds two usages (the plan's, which rounds the cost). */
export const addRoleUsage = (by: UsageByRole | undefined, role: TurnRole, usage: Usage, sum: (a: Usage, b: Usage) => Usage = addUsage): UsageByRole => ({
  ...by,
  [role]: sum(by?.[role] ?? ZERO_USAGE, usage),
});
