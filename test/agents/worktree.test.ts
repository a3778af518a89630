import { describe, expect, it } from 'vitest';
import {
  AGENDA_ROLE_TOOLS,
  AGENT_IDS,
  INSTALLED_AGENT_IDS,
  ROLE_TOOLS,
  WORKTREE_ROLE_TOOLS,
  TOOLS_ABSENT_IN_WORKTREE,
  applyAgents,
  evaluatePermission,
  isToolHidden,
  roleTools,
  type PermissionMap,
} from '../../src/agents/index.js';
import { SPECIALISTS } from '../../src/machines/types.js';
import { agentRuleset } from './opencode-rules.js';

const hidden = (permission: PermissionMap, tool: string, global: PermissionMap = {}) => isToolHidden(tool, agentRuleset(permission, global));
const outside = (permission: PermissionMap, global: PermissionMap = {}) =>
  evaluatePermission('external_directory', '/home/user/project/*', agentRuleset(permission, global));

describe('applyAgents in a step worktree', () => {
  it("installs the same agents as in the project directory; a specialist's text says it works in its own copy and names none of the plugin's tools", () => {
    const main = applyAgents({});
    const worktree = applyAgents({}, {}, { worktree: true });
    expect(Object.keys(worktree).sort()).toEqual([...INSTALLED_AGENT_IDS].sort());
    for (const id of INSTALLED_AGENT_IDS) {
      if (!(SPECIALISTS as readonly string[]).includes(id)) {
        expect(worktree[id].prompt, id).toBe(main[id].prompt);
        continue;
      }
      expect(worktree[id].prompt, id).toContain(id === 'reviewer' ? "You review in the step's own copy of the project (a git worktree)" : 'You work in your own copy of the project (a git worktree)');
      // Its tools take absolute paths: the text says where they start, not "relative paths" (a relay run followed the tools).
      expect(worktree[id].prompt, id).toMatch(/where a tool asks for an absolute path, start it with your working\s+directory/);
      expect(main[id].prompt, id).not.toContain('git worktree');
      expect(main[id].prompt, id).toContain('orca_ask_specialist');
      for (const tool of TOOLS_ABSENT_IN_WORKTREE) expect(worktree[id].prompt, `${id} ${tool}`).not.toContain(tool);
    }
  });

  it("tells the reviewer to change nothing in the step's worktree: what it changes is not measured with the review, but stays for the next measurement", () => {
    const { prompt } = applyAgents({}, {}, { worktree: true }).reviewer;
    expect(prompt).toContain(
      "Change no file there: the step's changes were measured before your review, but a file\nyou change stays in the copy and counts as the step's once the copy is measured again (after a\nfix, or with post-step hooks).",
    );
    expect(prompt).not.toContain('applies what you changed here');
    expect(prompt).not.toContain('whatever changes in it is applied');
  });

  it('tells a specialist in a worktree what its copy holds, a retry included, not only the files as its step started', () => {
    const { prompt } = applyAgents({}, {}, { worktree: true }).coder;
    expect(prompt).toContain("the user's files, with the changes of\nthe steps yours depends on in it (on a retry, what the failed attempt changed too)");
    expect(prompt).not.toContain('as they were when');
  });

  it('denies every Orca agent the directories outside the worktree', () => {
    const installed = applyAgents({}, {}, { worktree: true });
    for (const id of INSTALLED_AGENT_IDS) {
      expect(installed[id].permission.external_directory).toBe('deny');
      expect(outside(installed[id].permission)).toBe('deny');
    }
  });

  it("keeps the deny over the user's global permission and the agent's own setting: it is the isolation", () => {
    const global: PermissionMap = { external_directory: { '*': 'allow' } };
    const cfg = {
      permission: global,
      agent: {
        coder: { permission: { external_directory: 'allow' } },
        reviewer: { permission: { external_directory: { '/home/user/project/*': 'allow' } } },
        'architect.readonly': { permission: { external_directory: 'allow' } },
        orca: { permission: { external_directory: 'allow' } },
      },
    };
    const installed = applyAgents(cfg, { tester: { permission: { external_directory: 'allow' } } }, { worktree: true });
    for (const id of INSTALLED_AGENT_IDS) expect(outside(installed[id].permission, global), id).toBe('deny');
    // In the project directory the same settings are the user's to make.
    const main = applyAgents({ permission: global, agent: { coder: { permission: { external_directory: 'allow' } } } });
    expect(outside(main.coder.permission, global)).toBe('allow');
  });

  it('lets the reviewer run bash there, and still never edit, write or patch', () => {
    const { reviewer } = applyAgents({}, {}, { worktree: true });
    expect(hidden(reviewer.permission, 'bash')).toBe(false);
    expect(evaluatePermission('bash', 'npm test', agentRuleset(reviewer.permission))).toBe('allow');
    for (const tool of ['edit', 'write', 'apply_patch', 'patch', 'multiedit', 'task', 'question', 'orca_ask_planner']) {
      expect(hidden(reviewer.permission, tool), tool).toBe(true);
    }
  });

  it("keeps the reviewer's edits denied even when the user allows them", () => {
    const { reviewer } = applyAgents({ agent: { reviewer: { permission: { edit: 'allow', write: 'allow' } } } }, {}, { worktree: true });
    expect(hidden(reviewer.permission, 'edit')).toBe(true);
    expect(hidden(reviewer.permission, 'write')).toBe(true);
  });

  it("gives the reviewer's bash the user's global rule, and lets the user narrow it", () => {
    const { reviewer } = applyAgents({ permission: { bash: { '*': 'ask', 'npm test': 'allow' } } }, {}, { worktree: true });
    const rules = agentRuleset(reviewer.permission);
    expect(evaluatePermission('bash', 'npm test', rules)).toBe('allow');
    expect(evaluatePermission('bash', 'rm -rf src', rules)).toBe('ask');
    const narrowed = applyAgents({ agent: { reviewer: { permission: { bash: { '*': 'deny', 'npm test': 'allow' } } } } }, {}, { worktree: true }).reviewer;
    expect(evaluatePermission('bash', 'rm -rf src', agentRuleset(narrowed.permission))).toBe('deny');
  });

  it('gives the reviewer no bash in the project directory, exactly as before', () => {
    const { reviewer } = applyAgents({});
    expect(hidden(reviewer.permission, 'bash')).toBe(true);
    expect(applyAgents({}, {}, { worktree: false }).reviewer.permission).toEqual(reviewer.permission);
  });

  it('changes nothing else: every permission but external_directory and the reviewer bash is as in the project directory', () => {
    const main = applyAgents({});
    const worktree = applyAgents({}, {}, { worktree: true });
    for (const id of INSTALLED_AGENT_IDS) {
      const { external_directory: _a, bash: mainBash, ...mainRest } = main[id].permission;
      const { external_directory: _b, bash: worktreeBash, ...worktreeRest } = worktree[id].permission;
      // The plugin's own tools are not registered in a worktree: not granted there either.
      if ((SPECIALISTS as readonly string[]).includes(id)) {
        for (const tool of TOOLS_ABSENT_IN_WORKTREE) delete mainRest[tool];
        for (const tool of TOOLS_ABSENT_IN_WORKTREE) expect(worktreeRest[tool] ?? 'deny', `${id} ${tool}`).toBe('deny');
        for (const tool of TOOLS_ABSENT_IN_WORKTREE) delete worktreeRest[tool];
      }
      expect(worktreeRest, id).toEqual(mainRest);
      if (id !== 'reviewer') expect(worktreeBash, id).toEqual(mainBash);
    }
  });

  it('keeps the read-only twins without bash', () => {
    const installed = applyAgents({}, {}, { worktree: true });
    expect(hidden(installed['reviewer.readonly'].permission, 'bash')).toBe(true);
    expect(hidden(installed['coder.readonly'].permission, 'edit')).toBe(true);
  });
});

describe('roleTools', () => {
  it("is the role table (with the agenda's tool, on by default) in the project directory; in a worktree it adds WORKTREE_ROLE_TOOLS and drops the plugin's own tools", () => {
    for (const agent of AGENT_IDS) {
      const table = [...ROLE_TOOLS[agent], ...(AGENDA_ROLE_TOOLS[agent] ?? [])];
      expect(roleTools(agent)).toEqual(table);
      expect(roleTools(agent, { agenda: false })).toEqual(ROLE_TOOLS[agent]);
      const absent = (SPECIALISTS as readonly string[]).includes(agent) ? TOOLS_ABSENT_IN_WORKTREE : [];
      expect(roleTools(agent, { worktree: true })).toEqual([...table.filter((tool) => !absent.includes(tool)), ...(WORKTREE_ROLE_TOOLS[agent] ?? [])]);
    }
    expect(roleTools('coder', { worktree: true })).not.toContain('orca_ask_specialist');
    expect(roleTools('reviewer')).not.toContain('bash');
    expect(roleTools('reviewer', { worktree: true })).toContain('bash');
  });
});
