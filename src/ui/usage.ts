import { z } from 'zod';

/**
 * Token and cost figures of model turns, as the plan file records them per plan (`usage`) and per
 * step (`steps[].usage`) once the plugin writes them: `{turns, input, output, reasoning,
 * cache_read, cache_write, cost}`. Read tolerantly: an absent or malformed block shows nothing.
 */
const count = z.number().finite().nonnegative();
const usage = z.object({
  turns: count.optional(),
  input: count.optional(),
  output: count.optional(),
  reasoning: count.optional(),
  cache_read: count.optional(),
  cache_write: count.optional(),
  cost: count.optional(),
});

export type Usage = z.infer<typeof usage>;

export function usageOf(value: unknown): Usage | undefined {
  const parsed = usage.safeParse(value);
  if (!parsed.success) return undefined;
  const fields = Object.entries(parsed.data).filter(([, v]) => v !== undefined);
  return fields.length === 0 ? undefined : (Object.fromEntries(fields) as Usage);
}

/** The `usage` of step `stepId` in the raw plan JSON, if recorded. */
export function stepUsageOf(raw: Record<string, unknown>, stepId: string): Usage | undefined {
  const steps = Array.isArray(raw.steps) ? (raw.steps as unknown[]) : [];
  const step = steps.find((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && (s as { id?: unknown }).id === stepId);
  return step ? usageOf(step.usage) : undefined;
}
