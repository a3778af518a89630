import type { Config } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import {
  INSTALLED_AGENT_IDS,
  agentMarker,
  applyAgents,
  evaluatePermission,
  isToolHidden,
  layerPermissions,
  toRuleset,
  type PermissionMap,
} from '../../src/agents/index.js';
import { BUILTIN_AGENTS } from '../../src/agents/permissions.js';
import { STEP_CONTRACT } from '../../src/agents/prompts/specialists.js';
import { agentRuleset } from './opencode-rules.js';

const hidden = (permission: PermissionMap, tool: string) => isToolHidden(tool, agentRuleset(permission));

describe('applyAgents', () => {
  it('installs every agent: orca primary, the rest subagents, the read-only twins hidden', () => {
    const cfg: Config = {};
    const installed = applyAgents(cfg);
    // Besides Orca's agents, an entry per OpenCode built-in that only denies it Orca's tools (foreign-agents.test.ts).
    expect(Object.keys(cfg.agent ?? {}).sort()).toEqual([...INSTALLED_AGENT_IDS, ...Object.keys(BUILTIN_AGENTS)].sort());
    expect(installed.orca).toMatchObject({ mode: 'primary' });
    expect(installed.orca.hidden).toBeUndefined();
    expect(installed.planner).toMatchObject({ mode: 'subagent' });
    expect(installed['coder.readonly']).toMatchObject({ mode: 'subagent', hidden: true });
  });

  it("keeps the user's other agents and mutates cfg.agent in place", () => {
    const agents = { build: { model: 'a/b' }, mine: { prompt: 'mine' } };
    const cfg = { agent: agents };
    applyAgents(cfg);
    expect(cfg.agent).toBe(agents);
    expect(cfg.agent).toMatchObject({ build: { model: 'a/b' }, mine: { prompt: 'mine' } });
  });

  describe('when opencode.json already defines an agent of the same name', () => {
    it('lets the user set model, temperature, description and other fields', () => {
      const cfg = { agent: { planner: { model: 'anthropic/claude', temperature: 0.2, description: 'My planner', steps: 30, color: '#ff0000' } } };
      const { planner } = applyAgents(cfg);
      expect(planner).toMatchObject({ model: 'anthropic/claude', temperature: 0.2, description: 'My planner', steps: 30, color: '#ff0000', mode: 'subagent' });
    });

    it("replaces Orca's role text with the user's prompt but keeps the marker and the output protocol", () => {
      const cfg = { agent: { coder: { prompt: 'You write Rust only.' } } };
      const { coder } = applyAgents(cfg);
      expect(coder.prompt.startsWith(`${agentMarker('coder')}\nYou write Rust only.`)).toBe(true);
      expect(coder.prompt).toContain(STEP_CONTRACT);
      expect(coder.prompt).not.toContain('You are the Coder');
    });

    it('applies the role table after the user permission: orca cannot be given bash or read', () => {
      const cfg = { agent: { orca: { permission: { bash: 'allow', read: 'allow', '*': 'allow', orca_ask_specialist: 'allow' } } } };
      const { orca } = applyAgents(cfg);
      for (const tool of ['bash', 'read', 'edit', 'task', 'orca_ask_specialist', 'webfetch']) expect(hidden(orca.permission, tool)).toBe(true);
      for (const tool of ['orca_ask_planner', 'orca_list_plans', 'orca_describe_plan']) expect(hidden(orca.permission, tool)).toBe(false);
    });

    it('honours legacy tools maps but not against the role table', () => {
      const cfg = { agent: { planner: { tools: { edit: true, bash: true, webfetch: true } } } };
      const { planner } = applyAgents(cfg);
      expect(hidden(planner.permission, 'edit')).toBe(true);
      expect(hidden(planner.permission, 'bash')).toBe(true);
      expect(hidden(planner.permission, 'webfetch')).toBe(false);
      expect(planner).not.toHaveProperty('tools');
    });

    it('lets the user widen or narrow what the role allows, e.g. reviewer git commands or an MCP tool', () => {
      const cfg = {
        agent: {
          reviewer: { permission: { bash: { '*': 'deny', 'git diff*': 'allow' }, edit: 'allow' } },
          researcher: { permission: { 'context7_*': 'allow' } },
          coder: { permission: { webfetch: 'deny' } },
        },
      };
      const { reviewer, researcher, coder } = applyAgents(cfg);
      const rules = agentRuleset(reviewer.permission);
      expect(evaluatePermission('bash', 'git diff HEAD', rules)).toBe('allow');
      expect(evaluatePermission('bash', 'rm -rf src', rules)).toBe('deny');
      expect(hidden(reviewer.permission, 'edit')).toBe(true);
      expect(hidden(researcher.permission, 'context7_resolve')).toBe(false);
      expect(hidden(coder.permission, 'webfetch')).toBe(true);
    });

    it('gives a read-only twin the specialist model settings but never its permissions', () => {
      const cfg = { agent: { coder: { model: 'x/y', temperature: 0.3, prompt: 'p', permission: { bash: 'allow' } }, 'coder.readonly': { top_p: 0.9 } } };
      const twin = applyAgents(cfg)['coder.readonly'];
      expect(twin).toMatchObject({ model: 'x/y', temperature: 0.3, top_p: 0.9, hidden: true });
      expect(twin.prompt).toContain('read-only consultation');
      expect(twin.prompt).not.toContain('\np\n');
      expect(hidden(twin.permission, 'bash')).toBe(true);
      expect(hidden(twin.permission, 'edit')).toBe(true);
    });

    it("runs the verifier on the tester's model settings, never with its prompt or permissions; edits stay denied whatever is set for it", () => {
      const cfg = { agent: { tester: { model: 'x/y', temperature: 0.2, prompt: 'p', permission: { webfetch: 'allow' } }, verifier: { top_p: 0.5, permission: { edit: 'allow' } } } };
      const verifier = applyAgents(cfg).verifier;
      expect(verifier).toMatchObject({ model: 'x/y', temperature: 0.2, top_p: 0.5, hidden: true, mode: 'subagent' });
      expect(verifier.prompt).toContain('You are the Verifier');
      expect(verifier.prompt).not.toContain('\np\n');
      for (const tool of ['edit', 'write', 'webfetch', 'orca_ask_specialist', 'task']) expect(hidden(verifier.permission, tool), tool).toBe(true);
      for (const tool of ['read', 'glob', 'grep', 'bash']) expect(hidden(verifier.permission, tool), tool).toBe(false);
    });

    it('disables the twin with its specialist', () => {
      const installed = applyAgents({ agent: { tester: { disable: true } } });
      expect(installed.tester.disable).toBe(true);
      expect(installed['tester.readonly'].disable).toBe(true);
    });

    it('puts opencode.json over the overrides argument (e.g. plugin options)', () => {
      const cfg = { agent: { architect: { model: 'from/json' } } };
      const { architect, tester } = applyAgents(cfg, { architect: { model: 'from/options', temperature: 0.5 }, tester: { model: 'o/t' } });
      expect(architect).toMatchObject({ model: 'from/json', temperature: 0.5 });
      expect(tester).toMatchObject({ model: 'o/t' });
    });
  });

  it('gives the same result when the config hook runs twice on one config', () => {
    const cfg = { agent: { coder: { model: 'x/y', prompt: 'Rust only.' } }, permission: { bash: 'ask' } };
    const first = structuredClone(applyAgents(cfg));
    const second = applyAgents(cfg);
    expect(second).toEqual(first);
    expect(second.coder.prompt.match(/orca-agent:coder/g)).toHaveLength(1);
  });

  it('refuses gate permission patterns that would match a tool', () => {
    expect(() => applyAgents({}, {}, { gatePermissions: ['orca_*'] })).toThrow(/match no tool/);
  });
});

describe('permission format helpers', () => {
  it('turns the config form into an ordered ruleset as OpenCode does', () => {
    expect(toRuleset({ '*': 'deny', bash: { '*': 'ask', 'git *': 'allow' } })).toEqual([
      { permission: '*', pattern: '*', action: 'deny' },
      { permission: 'bash', pattern: '*', action: 'ask' },
      { permission: 'bash', pattern: 'git *', action: 'allow' },
    ]);
  });

  it('moves a re-set key to the end so it wins over earlier wildcards', () => {
    const merged = layerPermissions<PermissionMap[string]>({ edit: 'allow', '*': 'deny' }, { edit: 'ask' });
    expect(Object.keys(merged)).toEqual(['*', 'edit']);
    expect(evaluatePermission('edit', 'a.ts', toRuleset(merged))).toBe('ask');
  });
});
