import { describe, expect, it } from 'vitest';
import { agentPlanning, planPolicy } from '../../src/config/policy.js';
import { parseOptions } from '../../src/config/options.js';
import { DEFAULT_PLAN_POLICY } from '../../src/machines/types.js';

describe('planPolicy', () => {
  it('should give the documented defaults when nothing is configured', () => {
    expect(planPolicy(parseOptions({}))).toEqual({
      plan: {
        review_agents: ['coder'],
        review_rounds: 3,
        same_error_limit: 3,
        idle_ms: 600_000,
        pre_hooks: [],
        post_hooks: [],
        max_dispatches: 100,
        max_cost: null,
        max_tokens: null,
        verify_commands: [],
        verify_turn: true,
        verify_old_failures: 'report',
      },
      hook_timeout_ms: 30_000,
    });
    expect(planPolicy(parseOptions({})).plan).toEqual(DEFAULT_PLAN_POLICY);
  });

  it('should turn every option into the machine policy', () => {
    const options = parseOptions({
      review: { agents: ['coder', 'architect'], max_rounds: 2 },
      breakers: { same_error: 4, max_dispatches: 7 },
      timeouts: { step_idle_seconds: 90, hook_seconds: 5 },
      hooks: { pre_step: ['npm run lint'], post_step: ['notify-send done'] },
      budget: { max_cost: 1.5, max_tokens: 2_000_000 },
      verification: { commands: ['npm test'], turn: false, old_failures: 'gate' },
    });
    expect(planPolicy(options)).toEqual({
      plan: {
        review_agents: ['coder', 'architect'],
        review_rounds: 2,
        same_error_limit: 4,
        idle_ms: 90_000,
        pre_hooks: ['npm run lint'],
        post_hooks: ['notify-send done'],
        max_dispatches: 7,
        max_cost: 1.5,
        max_tokens: 2_000_000,
        verify_commands: ['npm test'],
        verify_turn: false,
        verify_old_failures: 'gate',
      },
      hook_timeout_ms: 5_000,
    });
  });

  it('should review nothing when review.enabled is false, whatever the agents', () => {
    expect(planPolicy(parseOptions({ review: { enabled: false, agents: ['coder'] } })).plan.review_agents).toEqual([]);
  });

  it('should reject bad values with the key and what was expected', () => {
    expect(() => parseOptions({ review: { agents: ['janitor'] } })).toThrow(/review\.agents\.0/);
    expect(() => parseOptions({ breakers: { same_error: 1 } })).toThrow(/breakers\.same_error: .*>=2/);
    expect(() => parseOptions({ hooks: { pre_step: 'npm test' } })).toThrow(/hooks\.pre_step: .*array/);
    expect(() => parseOptions({ timeouts: { step_idle_seconds: 0 } })).toThrow(/timeouts\.step_idle_seconds/);
    expect(() => parseOptions({ breakers: { tool_failures: { redirect_at: 4 } } })).toThrow(/breakers\.tool_failures: expected redirect_at below abort_at/);
    expect(() => parseOptions({ budget: { max_cost: 0 } })).toThrow(/budget\.max_cost: .*>0/);
    expect(() => parseOptions({ budget: { max_tokens: 1.5 } })).toThrow(/budget\.max_tokens: .*expected int/);
    expect(() => parseOptions({ budget: { max_dollars: 1 } })).toThrow(/max_dollars/);
  });
});

describe('agentPlanning', () => {
  it('should tell the planner the plan policy, and max_attempts only when set', () => {
    expect(agentPlanning(parseOptions({}))).toEqual({ policy: DEFAULT_PLAN_POLICY });
    const options = parseOptions({ max_attempts: 4, review: { max_rounds: 2 } });
    expect(agentPlanning(options)).toEqual({ policy: planPolicy(options).plan, maxAttempts: 4 });
  });
});
