import { describe, expect, it } from 'vitest';
import {
  AGENDA_ROLE_TOOLS,
  AGENDA_TOOL,
  AGENT_IDS,
  OWN_TOOLS,
  READ_ONLY_AGENT_IDS,
  READ_ONLY_TOOLS,
  ROLE_TOOLS,
  INSTALLED_AGENT_IDS,
  VERIFIER_AGENT_ID,
  VERIFIER_TOOLS,
  SPECIALIST_AGENTS,
  applyAgents,
  evaluatePermission,
  roleTools,
  isToolHidden,
  type InstalledAgentId,
  type PermissionMap,
} from '../../src/agents/index.js';
import { KNOWN_TOOLS, MCP_TOOL, agentRuleset } from './opencode-rules.js';

const ALL_TOOLS = [...KNOWN_TOOLS, MCP_TOOL];
/** OpenCode keeps `invalid` out of the tools it offers the model (`activeTools`), whatever the permissions. */
const OFFERABLE = ALL_TOOLS.filter((t) => t !== 'invalid');

/** The tools OpenCode would offer each installed agent's model, given the user's config (and the agenda.tools option). */
function offered(cfg: { permission?: PermissionMap; agent?: Record<string, unknown> } = {}, { agenda = true } = {}) {
  const copy = structuredClone(cfg);
  const installed = applyAgents(copy, {}, { agenda });
  // What OpenCode evaluates: the global permission as applyAgents left it.
  const global = (copy.permission ?? {}) as PermissionMap;
  const out = {} as Record<InstalledAgentId, string[]>;
  /** Agents whose tool map keeps `invalid`, so a call to a tool they lack is answered with what they have. */
  const explained: InstalledAgentId[] = [];
  // With agenda.tools false the plugin does not register the agenda's tool (src/plugin.ts): nothing can offer it.
  const registered = agenda ? OFFERABLE : OFFERABLE.filter((tool) => tool !== AGENDA_TOOL);
  for (const [id, agent] of Object.entries(installed) as [InstalledAgentId, { permission: PermissionMap }][]) {
    out[id] = registered.filter((tool) => !isToolHidden(tool, agentRuleset(agent.permission, global)));
    if (!isToolHidden('invalid', agentRuleset(agent.permission, global))) explained.push(id);
  }
  return { installed, out, global, explained };
}

/** Configs a user might plausibly have; none may widen a role beyond its hard limits. */
const USER_CONFIGS: Record<string, { permission?: PermissionMap; agent?: Record<string, unknown> }> = {
  'no user config': {},
  'global allow-all': { permission: { '*': 'allow' } },
  'global grants of everything by name': {
    permission: Object.fromEntries(ALL_TOOLS.map((t) => [t, 'allow'])),
  },
  'per-agent attempts to widen every role': {
    agent: Object.fromEntries(
      [...AGENT_IDS, ...READ_ONLY_AGENT_IDS, VERIFIER_AGENT_ID].map((id) => [id, { permission: { '*': 'allow', bash: 'allow', edit: 'allow', task: 'allow' } }]),
    ),
  },
};

describe('the role table (DESIGN.md "Roles and tools")', () => {
  it('gives orca exactly orca_ask_planner, orca_list_plans and orca_describe_plan', () => {
    expect([...ROLE_TOOLS.orca].sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
  });

  it("grants the agenda's one tool to the planner unless agenda.tools is false, and to no other role (issue 35)", () => {
    for (const agent of AGENT_IDS) expect(ROLE_TOOLS[agent]).not.toContain(AGENDA_TOOL);
    expect(AGENDA_ROLE_TOOLS).toEqual({ planner: [AGENDA_TOOL] });
    expect(roleTools('planner')).toEqual([...ROLE_TOOLS.planner, AGENDA_TOOL]);
    expect(roleTools('planner', { agenda: false })).toEqual(ROLE_TOOLS.planner);
    for (const agent of SPECIALIST_AGENTS) expect(roleTools(agent)).toEqual(ROLE_TOOLS[agent]);
  });

  it('registers no tool that resumes a paused agenda: a human does', () => {
    expect(OWN_TOOLS.filter((t) => /resume/.test(t))).toEqual([]);
  });

  it('gives the planner research tools only', () => {
    expect(ROLE_TOOLS.planner).toEqual(expect.arrayContaining(['orca_ask_specialist', 'orca_list_plans', 'orca_describe_plan', 'read', 'glob', 'grep']));
    for (const tool of ['edit', 'write', 'apply_patch', 'bash', 'task', 'orca_ask_planner']) expect(ROLE_TOOLS.planner).not.toContain(tool);
  });

  it.each(SPECIALIST_AGENTS)('gives %s the team tools and never self-dispatch', (agent) => {
    expect(ROLE_TOOLS[agent]).toEqual(expect.arrayContaining(['orca_ask_specialist', 'orca_describe_plan', 'read']));
    expect(ROLE_TOOLS[agent]).not.toContain('orca_ask_planner');
    expect(ROLE_TOOLS[agent]).not.toContain('task');
  });

  it.each(SPECIALIST_AGENTS)('gives %s nothing it does not use (issue 26): no plan list, no todo list, web only for the researcher', (agent) => {
    expect(ROLE_TOOLS[agent]).not.toContain('orca_list_plans');
    expect(ROLE_TOOLS[agent]).not.toContain('todowrite');
    expect(ROLE_TOOLS[agent].includes('webfetch')).toBe(agent === 'researcher');
  });

  it('lets only coder and tester run bash, and keeps reviewer, researcher and architect read-only', () => {
    const withBash = SPECIALIST_AGENTS.filter((a) => ROLE_TOOLS[a].includes('bash'));
    expect(withBash).toEqual(['coder', 'tester']);
    for (const agent of ['reviewer', 'researcher', 'architect'] as const) {
      for (const tool of ['edit', 'write', 'apply_patch', 'bash']) expect(ROLE_TOOLS[agent]).not.toContain(tool);
    }
    expect(ROLE_TOOLS['document-writer']).toEqual(expect.arrayContaining(['edit', 'write']));
  });
});

describe.each(Object.entries(USER_CONFIGS).flatMap(([name, cfg]) => [true, false].map((agenda) => [`${name}, agenda.tools ${agenda ? 'on (default)' : 'false'}`, cfg, agenda] as const)))('what OpenCode offers each agent, with %s', (_name, cfg, agenda) => {
  const { out, explained } = offered(cfg, { agenda });
  const limited = Object.keys(cfg.agent ?? {}).length === 0;

  it("keeps OpenCode's `invalid` tool for every agent, so a call to a tool it lacks names that tool and the agent's tools", () => {
    expect(explained.sort()).toEqual([...INSTALLED_AGENT_IDS].sort());
  });

  it('offers orca its three tools and nothing else', () => {
    expect(out.orca.sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
  });

  it('never offers the planner a tool that changes anything or dispatches', () => {
    for (const tool of ['edit', 'write', 'apply_patch', 'patch', 'multiedit', 'bash', 'task', 'orca_ask_planner', 'question'])
      expect(out.planner).not.toContain(tool);
    expect(out.planner).toEqual(expect.arrayContaining(['orca_ask_specialist', 'read', 'grep']));
  });

  it.each(SPECIALIST_AGENTS)('never offers %s orca_ask_planner, task or question', (agent) => {
    for (const tool of ['orca_ask_planner', 'task', 'question']) expect(out[agent]).not.toContain(tool);
    expect(out[agent]).toEqual(expect.arrayContaining(['orca_ask_specialist', 'orca_describe_plan']));
  });

  // A specialist a user widens per agent may be offered it: the tool lets it emit and list only (test/tools/agenda-tools.test.ts).
  it.runIf(limited).each(SPECIALIST_AGENTS)('offers %s no agenda tool unless its own permission grants it', (agent) => {
    expect(out[agent]).not.toContain(AGENDA_TOOL);
  });

  it(`offers the planner ${agenda ? 'the' : 'no'} agenda tool`, () => {
    expect(out.planner.includes(AGENDA_TOOL)).toBe(agenda);
  });

  it('offers orca no agenda tool', () => {
    expect(out.orca).not.toContain(AGENDA_TOOL);
  });

  it.each(READ_ONLY_AGENT_IDS)('offers %s no agenda tool', (agent) => {
    expect(out[agent]).not.toContain(AGENDA_TOOL);
  });

  it.each(['reviewer', 'researcher', 'architect'] as const)('never offers %s an edit tool', (agent) => {
    for (const tool of ['edit', 'write', 'apply_patch', 'patch', 'multiedit']) expect(out[agent]).not.toContain(tool);
  });

  it.each(READ_ONLY_AGENT_IDS)('offers %s exactly the read-only tools', (agent) => {
    expect(out[agent].sort()).toEqual(OFFERABLE.filter((t) => (READ_ONLY_TOOLS as readonly string[]).includes(t)).sort());
  });

  // The verifying turn: it reads and runs its checks, and is offered nothing that edits, asks or dispatches (issue 50).
  it('offers the verifier exactly read, glob, grep and bash', () => {
    expect(out[VERIFIER_AGENT_ID].sort()).toEqual([...VERIFIER_TOOLS].sort());
  });

  it.runIf(limited).each(AGENT_IDS)('offers %s exactly its role tools when the user set nothing per agent', (agent) => {
    expect(out[agent].sort()).toEqual(OFFERABLE.filter((t) => roleTools(agent, { agenda }).includes(t)).sort());
  });
});

describe('permission details', () => {
  it("keeps the user's global limits on tools a role may use", () => {
    const global: PermissionMap = { bash: { '*': 'ask', 'git *': 'allow', 'rm *': 'deny' } };
    const { installed } = offered({ permission: global });
    const rules = agentRuleset(installed.coder.permission, global);
    expect(evaluatePermission('bash', 'rm -rf src', rules)).toBe('deny');
    expect(evaluatePermission('bash', 'git status', rules)).toBe('allow');
    expect(evaluatePermission('bash', 'npm test', rules)).toBe('ask');
  });

  it('refines a global pattern map without "*" on top of the default', () => {
    const global: PermissionMap = { bash: { 'rm *': 'deny' } };
    const { installed } = offered({ permission: global });
    const rules = agentRuleset(installed.tester.permission, global);
    expect(evaluatePermission('bash', 'rm -rf /', rules)).toBe('deny');
    expect(evaluatePermission('bash', 'npm test', rules)).toBe('allow');
  });

  it('keeps Orca tools usable under a global "*": "deny" but not the shell', () => {
    const global: PermissionMap = { '*': 'deny', read: 'allow' };
    const { out, explained } = offered({ permission: global });
    expect(explained).toContain('coder');
    expect(out.orca.sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
    expect(out.coder).toContain('read');
    expect(out.coder).not.toContain('bash');
  });

  it('makes .env files unreadable and the outside of the project off limits, without prompts', () => {
    const { installed } = offered();
    for (const id of ['planner', 'coder', 'researcher.readonly'] as const) {
      const rules = agentRuleset(installed[id].permission);
      expect(evaluatePermission('read', '/p/.env', rules)).toBe('deny');
      expect(evaluatePermission('read', '/p/.env.example', rules)).toBe('allow');
      expect(evaluatePermission('read', '/p/src/a.ts', rules)).toBe('allow');
      expect(evaluatePermission('external_directory', '/etc/*', rules)).toBe('deny');
    }
  });

  it("asks the human at orca's HITL gates even under a global allow-all", () => {
    const global: PermissionMap = { '*': 'allow' };
    const { installed } = offered({ permission: global });
    const rules = agentRuleset(installed.orca.permission, global);
    expect(evaluatePermission('orca_plan_approval', 'plan-1', rules)).toBe('ask');
    expect(evaluatePermission('orca_step_deviation', 'plan-1/step-2', rules)).toBe('ask');
    expect(evaluatePermission('bash', 'ls', rules)).toBe('deny');
  });

  it('honours an explicit global decision for a gate, e.g. auto-approval in CI', () => {
    const global: PermissionMap = { orca_plan_approval: 'allow' };
    const { installed } = offered({ permission: global });
    expect(evaluatePermission('orca_plan_approval', 'plan-1', agentRuleset(installed.orca.permission, global))).toBe('allow');
  });

  it("leaves the user's global permission as written (other agents are kept from Orca's agents in their own task rules)", () => {
    const cfg = { permission: { task: 'ask' } as PermissionMap };
    applyAgents(cfg);
    expect(cfg.permission).toEqual({ task: 'ask' });
  });
});
