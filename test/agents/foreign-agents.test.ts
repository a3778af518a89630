// Agents that are not Orca's (OpenCode's built-ins and the user's own) are offered nothing of
// Orca: none of its tools, none of its agents in their task tool; everything else as before.
import { describe, expect, it } from 'vitest';
import { INSTALLED_AGENT_IDS, OWN_TOOLS, applyAgents, evaluatePermission, isToolHidden, toRuleset, type PermissionMap, type PermissionRule } from '../../src/agents/index.js';
import { BUILTIN_AGENTS } from '../../src/agents/permissions.js';
import { registerQuestionChannel } from '../../src/hitl/native-question/index.js';
import { QUESTION_AGENT_ID } from '../../src/hitl/native-question/ids.js';
import { KNOWN_TOOLS, MCP_TOOL, OPENCODE_DEFAULTS } from './opencode-rules.js';

type Cfg = { permission?: PermissionMap; agent?: Record<string, any> };

const OFFERABLE = [...KNOWN_TOOLS, MCP_TOOL].filter((t) => t !== 'invalid');
/** Agents a task tool could list: OpenCode's subagents, a user's, and Orca's. */
const SUBAGENTS = ['general', 'explore', 'helper', 'lookup', ...INSTALLED_AGENT_IDS.filter((id) => id !== 'orca'), QUESTION_AGENT_ID];

/** The ruleset OpenCode 1.18.33 evaluates for `id` (Agent.state): defaults, built-in rules, global, the agent's own. */
function rulesOf(cfg: Cfg, id: string): PermissionRule[] {
  const own = (cfg.agent?.[id]?.permission ?? {}) as PermissionMap;
  return [...toRuleset(OPENCODE_DEFAULTS), ...toRuleset(BUILTIN_AGENTS[id] ?? {}), ...toRuleset(cfg.permission ?? {}), ...toRuleset(own)];
}

/** What `id`'s model is offered: its tools, and the agents its task tool lists. */
function offered(cfg: Cfg, id: string) {
  const rules = rulesOf(cfg, id);
  const tools = OFFERABLE.filter((t) => !isToolHidden(t, rules));
  const exists = (a: string) => a in BUILTIN_AGENTS || a in (cfg.agent ?? {});
  const listed = tools.includes('task') ? SUBAGENTS.filter((a) => exists(a) && evaluatePermission('task', a, rules) !== 'deny') : [];
  return { tools, listed };
}

const withOrca = (cfg: Cfg): Cfg => {
  const copy = structuredClone(cfg);
  applyAgents(copy);
  return copy;
};

const USER_CONFIGS: Record<string, Cfg> = {
  'no user config': {},
  'a global allow-all': { permission: { '*': 'allow' } },
  'a global rule naming an Orca tool': { permission: { orca_ask_planner: 'allow', agenda: 'ask', task: 'ask' } },
  'rules on the built-ins': { agent: { build: { permission: { '*': 'allow', task: 'allow' } }, plan: { permission: { task: { '*': 'ask' } } }, explore: { permission: { bash: 'deny' } } } },
  'agents of the user': {
    agent: {
      helper: { mode: 'all', prompt: 'mine', permission: { '*': 'allow', edit: 'ask' } },
      lookup: { mode: 'subagent', permission: { '*': 'deny', read: 'allow' } },
    },
  },
};
const agentsOf = (cfg: Cfg) => [...new Set([...Object.keys(BUILTIN_AGENTS), ...Object.keys(cfg.agent ?? {})])];

describe("agents that are not Orca's", () => {
  describe.each(Object.entries(USER_CONFIGS))('with %s', (_name, cfg) => {
    it.each(agentsOf(cfg))('offers %s what it is offered without Orca, minus nothing but Orca', (id) => {
      const before = offered(cfg, id);
      const after = offered(withOrca(cfg), id);
      expect(after.tools).toEqual(before.tools.filter((t) => !OWN_TOOLS.includes(t)));
      expect(after.listed).toEqual(before.listed);
    });
  });

  it("offers build, plan and general none of Orca's tools and lists none of its agents", () => {
    const cfg = withOrca({});
    for (const id of ['build', 'plan', 'general']) {
      const { tools, listed } = offered(cfg, id);
      expect(tools).toContain('task');
      expect(tools.filter((t) => OWN_TOOLS.includes(t))).toEqual([]);
      expect(listed.filter((a) => a !== 'general' && a !== 'explore')).toEqual([]);
    }
    // plan's own rule against general is kept.
    expect(offered(cfg, 'plan').listed).toEqual(['explore']);
  });

  it("does not bring back explore's task tool (a task pattern under its \"*\" deny would)", () => {
    expect(offered(withOrca({}), 'explore').tools).not.toContain('task');
    expect(offered(withOrca({}), 'explore').tools).toEqual(offered({}, 'explore').tools);
  });

  it("creates an entry for a built-in that holds only the denials, and changes nothing else of an existing agent", () => {
    const helper = { mode: 'primary', model: 'a/b', prompt: 'mine', description: 'Mine', options: { x: 1 }, permission: { '*': 'allow', bash: { 'git *': 'allow' } } };
    const cfg = withOrca({ agent: { helper } });
    expect(Object.keys(cfg.agent!.build)).toEqual(['permission']);
    expect(Object.keys(cfg.agent!.build.permission)).toEqual([...OWN_TOOLS, 'task']);
    const { permission, ...rest } = cfg.agent!.helper;
    expect(rest).toEqual({ mode: 'primary', model: 'a/b', prompt: 'mine', description: 'Mine', options: { x: 1 } });
    // The user's entries first, unchanged and in order; Orca's denials after them.
    expect(Object.entries(permission).slice(0, 2)).toEqual(Object.entries(helper.permission));
    expect(Object.keys(permission).slice(2)).toEqual([...OWN_TOOLS, 'task']);
  });

  it("lets an agent's own permission give it one of Orca's tools or agents, by name or wildcard, but not by a bare \"*\"", () => {
    const cfg = withOrca({
      permission: { orca_describe_plan: 'allow' },
      agent: {
        build: { permission: { '*': 'allow', orca_list_plans: 'allow', task: { coder: 'allow' } } },
        helper: { permission: { 'agenda*': 'ask' } },
      },
    });
    const build = offered(cfg, 'build');
    expect(build.tools.filter((t) => OWN_TOOLS.includes(t))).toEqual(['orca_list_plans']);
    expect(build.listed).toEqual(['general', 'explore', 'helper', 'coder']);
    expect(offered(cfg, 'general').listed).toEqual(['general', 'explore', 'helper']);
    expect(offered(cfg, 'helper').tools.filter((t) => OWN_TOOLS.includes(t))).toEqual(['agenda']);
    // A global rule is not an agent's own: general stays without orca_describe_plan.
    expect(offered(cfg, 'general').tools.filter((t) => OWN_TOOLS.includes(t))).toEqual([]);
  });

  it("keeps Orca's own agents, the question channel's included, as they are", () => {
    const once = withOrca({});
    registerQuestionChannel(once as never, { allowWithoutModel: true });
    const questionAgent = structuredClone(once.agent![QUESTION_AGENT_ID]);
    const orcaBefore = structuredClone(once.agent!.orca);
    applyAgents(once);
    expect(once.agent![QUESTION_AGENT_ID]).toEqual(questionAgent);
    expect(once.agent!.orca).toEqual(orcaBefore);
  });

  it('gives the same config when the hook runs twice', () => {
    const cfg = structuredClone(USER_CONFIGS['rules on the built-ins']!);
    applyAgents(cfg);
    const first = structuredClone(cfg.agent);
    applyAgents(cfg);
    expect(cfg.agent).toEqual(first);
  });
});
