import type { Usage } from './usage.js';

/**
 * What a port that runs model turns resolves with: the result and what its turns cost (a
 * correction prompt is a turn of its own, so `usage.turns` may be more than 1; a turn with tool
 * calls makes several model requests, so `usage.model_calls` may be more than `turns`).
 */
export interface Turn<T> {
  value: T;
  usage: Usage;
}

/** The fields every recorded usage has (model_calls may be absent in usage from before it was counted). */
const USAGE_KEYS = ['turns', 'input', 'output', 'reasoning', 'cache_read', 'cache_write', 'cost'] as const satisfies ReadonlyArray<keyof Usage>;

const isCount = (n: unknown) => typeof n === 'number' && Number.isFinite(n);

export const isUsage = (value: unknown): value is Usage =>
  typeof value === 'object' &&
  value !== null &&
  USAGE_KEYS.every((k) => isCount((value as Record<string, unknown>)[k])) &&
  ((value as Record<string, unknown>).model_calls === undefined || isCount((value as Record<string, unknown>).model_calls));

/**
 * The usage a failed turn had spent before it failed, when its port attached it to the error
 * (`error.usage`): a turn that ends in a protocol error after two corrections still cost money.
 */
export function usageOfError(error: unknown): Usage | null {
  const usage = (error as { usage?: unknown } | null)?.usage;
  return isUsage(usage) && usage.turns > 0 ? usage : null;
}
