import type { ApplyAgentsOptions } from '../agents/apply.js';
import { DEFAULT_PLAN_POLICY, type PlanPolicy } from '../machines/types.js';
import {
  DEFAULT_HOOK_SECONDS,
  DEFAULT_MAX_DISPATCHES,
  DEFAULT_REVIEW_AGENTS,
  DEFAULT_REVIEW_ROUNDS,
  DEFAULT_SAME_ERROR_LIMIT,
  DEFAULT_STEP_IDLE_SECONDS,
  type OrcaOptions,
} from './options.js';

/** The options' quality gate and limits, as the plan machine's policy (fixed in each plan at creation). */
export function planPolicy(options: OrcaOptions): { plan: PlanPolicy; hook_timeout_ms: number } {
  const review = options.review ?? {};
  return {
    plan: {
      ...DEFAULT_PLAN_POLICY,
      review_agents: review.enabled === false ? [] : [...(review.agents ?? DEFAULT_REVIEW_AGENTS)],
      review_rounds: review.max_rounds ?? DEFAULT_REVIEW_ROUNDS,
      same_error_limit: options.breakers?.same_error ?? DEFAULT_SAME_ERROR_LIMIT,
      max_dispatches: options.breakers?.max_dispatches ?? DEFAULT_MAX_DISPATCHES,
      max_cost: options.budget?.max_cost ?? null,
      max_tokens: options.budget?.max_tokens ?? null,
      idle_ms: (options.timeouts?.step_idle_seconds ?? DEFAULT_STEP_IDLE_SECONDS) * 1000,
      pre_hooks: options.hooks?.pre_step ?? [],
      post_hooks: options.hooks?.post_step ?? [],
      verify_commands: options.verification?.commands ?? [],
      verify_turn: options.verification?.turn ?? true,
      verify_old_failures: options.verification?.old_failures ?? 'report',
    },
    hook_timeout_ms: (options.timeouts?.hook_seconds ?? DEFAULT_HOOK_SECONDS) * 1000,
  };
}

/** What the planner is told the plugin does by itself (quality gate, hooks, limits), so it plans no step for it. */
export function agentPlanning(options: OrcaOptions): NonNullable<ApplyAgentsOptions['planning']> {
  return { policy: planPolicy(options).plan, ...(options.max_attempts ? { maxAttempts: options.max_attempts } : {}) };
}
