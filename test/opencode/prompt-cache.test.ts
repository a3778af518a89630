import { describe, expect, it, vi } from 'vitest';
import { applyAgents } from '../../src/agents/index.js';
import { cacheKey, createCacheKeys, planIdOfMetadata, promptCacheHooks, promptCacheSettings, splitSystemPrompt } from '../../src/opencode/prompt-cache.js';

const installed = applyAgents({});
const prompts = new Map(Object.entries(installed).map(([id, agent]) => [id, agent.prompt]));
/** What OpenCode 1.18 puts after the agent's prompt: the environment, then AGENTS.md. */
const env = (dir: string) => `Here is some useful information about the environment you are running in:\n<env>\n  Working directory: ${dir}\n  Today's date: Thu Nov 26 2026\n</env>\nInstructions from: ${dir}/AGENTS.md\nBe terse.`;

describe('splitSystemPrompt', () => {
  it("puts an Orca agent's prompt in a system message of its own, the same for every step of the role", () => {
    const a = [`${installed.coder.prompt}\n${env('/wt/plan/s1.1')}`];
    const b = [`${installed.coder.prompt}\n${env('/wt/plan/s2.1')}`];
    expect(splitSystemPrompt(a, prompts)).toBe(true);
    expect(splitSystemPrompt(b, prompts)).toBe(true);
    expect(a[0]).toBe(installed.coder.prompt);
    expect(b[0]).toBe(a[0]);
    expect(a[1]).toBe(env('/wt/plan/s1.1'));
    expect(a.join('\n')).toBe(`${installed.coder.prompt}\n${env('/wt/plan/s1.1')}`);
  });

  it('leaves alone what is not an Orca agent, a prompt changed before it, an already split or a bare prompt', () => {
    const cases = [
      ['You are opencode, an interactive CLI tool.\n' + env('/p')],
      [`${installed.coder.prompt.replace('Coder', 'Koder')}\n${env('/p')}`],
      [installed.coder.prompt, env('/p')],
      [installed.coder.prompt],
      [`${installed.coder.prompt}\n  \n`],
    ];
    for (const system of cases) {
      const before = [...system];
      expect(splitSystemPrompt(system, prompts)).toBe(false);
      expect(system).toEqual(before);
    }
  });
});

describe('the prompt cache key', () => {
  const log = vi.fn();

  it("gives an Orca agent's session of a plan the plan-and-role key where OpenCode set the session's", async () => {
    const apply = createCacheKeys({ scope: 'plan-role', planOf: async () => 'plan_X', log });
    const options: Record<string, unknown> = { promptCacheKey: 'ses_1', store: false };
    await apply({ sessionID: 'ses_1', agent: 'coder' }, options);
    expect(options).toEqual({ promptCacheKey: cacheKey('plan_X', 'coder'), store: false });
    expect(cacheKey('plan_X', 'coder')).toBe('orca-plan_X-coder');
    const snake: Record<string, unknown> = { prompt_cache_key: 'ses_2' };
    await apply({ sessionID: 'ses_2', agent: 'reviewer' }, snake);
    expect(snake).toEqual({ prompt_cache_key: 'orca-plan_X-reviewer' });
  });

  it("adds no key where OpenCode set none, and changes nothing for other agents, sessions of no plan or the scope 'session'", async () => {
    const planOf = vi.fn(async (sessionID: string) => (sessionID === 'ses_free' ? undefined : 'plan_X'));
    const apply = createCacheKeys({ scope: 'plan-role', planOf, log });
    const none: Record<string, unknown> = {};
    await apply({ sessionID: 'ses_1', agent: 'coder' }, none);
    expect(none).toEqual({});
    const build: Record<string, unknown> = { promptCacheKey: 'ses_1' };
    await apply({ sessionID: 'ses_1', agent: 'build' }, build);
    expect(build).toEqual({ promptCacheKey: 'ses_1' });
    const free: Record<string, unknown> = { promptCacheKey: 'ses_free' };
    await apply({ sessionID: 'ses_free', agent: 'coder.readonly' }, free);
    expect(free).toEqual({ promptCacheKey: 'ses_free' });
    const other: Record<string, unknown> = { promptCacheKey: 'someone else' };
    await apply({ sessionID: 'ses_1', agent: 'coder' }, other);
    expect(other).toEqual({ promptCacheKey: 'someone else' });
    const perSession = createCacheKeys({ scope: 'session', planOf, log });
    const kept: Record<string, unknown> = { promptCacheKey: 'ses_1' };
    await perSession({ sessionID: 'ses_1', agent: 'coder' }, kept);
    expect(kept).toEqual({ promptCacheKey: 'ses_1' });
  });

  it('looks a session up once, and after a failed lookup leaves the key, warns once and tries again next time', async () => {
    let fail = true;
    const planOf = vi.fn(async () => {
      if (fail) throw new Error('server gone');
      return 'plan_Y';
    });
    const warn = vi.fn();
    const apply = createCacheKeys({ scope: 'plan-role', planOf, log: warn });
    const first: Record<string, unknown> = { promptCacheKey: 'ses_1' };
    await apply({ sessionID: 'ses_1', agent: 'tester' }, first);
    await apply({ sessionID: 'ses_1', agent: 'tester' }, { promptCacheKey: 'ses_1' });
    expect(first).toEqual({ promptCacheKey: 'ses_1' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![1]).toContain('server gone');
    fail = false;
    const later: Record<string, unknown> = { promptCacheKey: 'ses_1' };
    await apply({ sessionID: 'ses_1', agent: 'tester' }, later);
    await apply({ sessionID: 'ses_1', agent: 'tester' }, { promptCacheKey: 'ses_1' });
    expect(later).toEqual({ promptCacheKey: 'orca-plan_Y-tester' });
    expect(planOf).toHaveBeenCalledTimes(3);
  });

  it('reads the plan from the metadata Orca writes on its sessions', () => {
    expect(planIdOfMetadata({ orca: { plan_id: 'plan_Z', step_id: 's1' } })).toBe('plan_Z');
    expect(planIdOfMetadata({ orca: { role: 'ask_specialist' } })).toBeUndefined();
    expect(planIdOfMetadata({ orca: 'x' })).toBeUndefined();
    expect(planIdOfMetadata(undefined)).toBeUndefined();
  });
});

describe('promptCacheHooks', () => {
  it('splits with the prompts the config hook installed, and not when split_system is off', async () => {
    const on = promptCacheHooks(promptCacheSettings(undefined), async () => undefined, vi.fn());
    on.agentsInstalled(installed);
    const system = [`${installed.planner.prompt}\n${env('/p')}`];
    await on.systemTransform({ system });
    expect(system).toEqual([installed.planner.prompt, env('/p')]);
    const off = promptCacheHooks(promptCacheSettings({ split_system: false }), async () => undefined, vi.fn());
    off.agentsInstalled(installed);
    const whole = [`${installed.planner.prompt}\n${env('/p')}`];
    await off.systemTransform({ system: whole });
    expect(whole).toHaveLength(1);
  });

  it('never throws at OpenCode: a failing lookup is logged and the key left', async () => {
    const log = vi.fn();
    const hooks = promptCacheHooks(promptCacheSettings({ key: 'plan-role' }), async () => Promise.reject(new Error('boom')), log);
    const output = { options: { promptCacheKey: 'ses_1' } as Record<string, unknown> };
    await expect(hooks.chatParams({ sessionID: 'ses_1', agent: 'coder' }, output)).resolves.toBeUndefined();
    expect(output.options.promptCacheKey).toBe('ses_1');
    expect(log).toHaveBeenCalledWith('warn', expect.stringContaining('boom'));
  });
});
