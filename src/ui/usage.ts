import type { z } from 'zod';
import { TURN_ROLES, type Usage } from '../machines/usage.js';
import { usageRecord } from '../persistence/plan-file.js';

/**
 * Token and cost figures of model turns, as the plan file records them per plan (`usage`) and per
 * step (`steps[].usage`, and by role in `steps[].usage_by_role`) once the plugin writes them:
 * `{turns, model_calls, input, output, reasoning, cache_read, cache_write, cost}` (`turns`: Orca's
 * prompts; `model_calls`: the model requests they made, absent when not recorded). Read
 * tolerantly, as the plan file's usage record with every figure optional: an absent or malformed
 * block shows nothing.
 */
export type RecordedUsage = Partial<Usage>;

const usage = usageRecord.partial() satisfies z.ZodType<RecordedUsage>;

export function usageOf(value: unknown): RecordedUsage | undefined {
  const parsed = usage.safeParse(value);
  if (!parsed.success) return undefined;
  const fields = Object.entries(parsed.data).filter(([, v]) => v !== undefined);
  return fields.length === 0 ? undefined : (Object.fromEntries(fields) as RecordedUsage);
}

function rawStep(raw: Record<string, unknown>, stepId: string): Record<string, unknown> | undefined {
  const steps = Array.isArray(raw.steps) ? (raw.steps as unknown[]) : [];
  return steps.find((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && (s as { id?: unknown }).id === stepId);
}

/** The `usage` of step `stepId` in the raw plan JSON, if recorded. */
export function stepUsageOf(raw: Record<string, unknown>, stepId: string): RecordedUsage | undefined {
  const step = rawStep(raw, stepId);
  return step ? usageOf(step.usage) : undefined;
}

/** The roles whose turns the step's usage is split into (specialist, reviewer, fixer, ask), in that order; undefined when not recorded. */
export function stepUsageByRoleOf(raw: Record<string, unknown>, stepId: string): Record<string, RecordedUsage> | undefined {
  const byRole = rawStep(raw, stepId)?.usage_by_role;
  if (typeof byRole !== 'object' || byRole === null) return undefined;
  const entries = TURN_ROLES.flatMap((role) => {
    const usage = usageOf((byRole as Record<string, unknown>)[role]);
    return usage ? [[role, usage] as const] : [];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
