// What a model is told about what it and its team may do (issue 50; docs/agents.md, "What each
// agent is told") is generated from the permissions that grant it, so the two cannot disagree: checked here
// against what OpenCode 1.18.33 would offer each agent (test/agents/opencode-rules.ts evaluates the
// installed permissions independently of src/agents/team-text.ts).
import { describe, expect, it } from 'vitest';
import {
  INSTALLED_AGENT_IDS,
  KNOWN_TOOLS,
  OPENCODE_TOOL_REFERENCES,
  OWN_TOOLS,
  SPECIALIST_AGENTS,
  VERIFIER_AGENT_ID,
  applyAgents,
  isToolHidden,
  type InstalledAgentId,
  type PermissionMap,
} from '../../src/agents/index.js';
import { NO_COMMIT } from '../../src/agents/team-text.js';
import { WRITING_AGENTS } from '../../src/machines/threading.js';
import { agentRuleset } from './opencode-rules.js';

type Config = { permission?: PermissionMap; agent?: Record<string, unknown> };

/** What OpenCode offers each installed agent under `cfg`, and the prompts, in the project directory or a step's worktree. */
function install(cfg: Config = {}, { worktree = false } = {}) {
  const copy = structuredClone(cfg);
  const installed = applyAgents(copy, {}, { worktree });
  const global = (copy.permission ?? {}) as PermissionMap;
  const offered = {} as Record<InstalledAgentId, string[]>;
  for (const id of INSTALLED_AGENT_IDS) {
    // In a step's worktree Orca's instance registers none of its own tools.
    offered[id] = KNOWN_TOOLS.filter((tool) => tool !== 'invalid' && !(worktree && OWN_TOOLS.includes(tool)) && !isToolHidden(tool, agentRuleset(installed[id].permission, global)));
  }
  return { installed, offered };
}

/** The planner's row for a specialist: `- coder (…): reads, edits, runs commands.` */
const rowOf = (prompt: string, agent: string) => prompt.split('\n').find((line) => line.startsWith(`- ${agent} (`)) ?? '';

const CONFIGS: Record<string, Config> = {
  'no user config': {},
  'a global "*": "deny" that allows only reading': { permission: { '*': 'deny', read: 'allow' } },
  'bash granted to the document-writer': { agent: { 'document-writer': { permission: { bash: 'allow' } } } },
  'edits and bash denied to the coder, the web granted to the architect': { agent: { coder: { permission: { edit: 'deny', bash: 'deny' } }, architect: { permission: { webfetch: 'allow' } } } },
};

describe("the planner's table of specialists", () => {
  it('says what each specialist may do by default, one row each, and who may ask another (issue 50)', () => {
    const { planner } = applyAgents({});
    expect(planner.prompt).toContain(
      [
        'Specialists a step can be given to, and what each may do:',
        '- coder (code changes, features, fixes): reads, edits, runs commands.',
        '- tester (tests): reads, edits, runs commands.',
        '- reviewer (reviews changes for defects): reads; no edits, no commands.',
        '- researcher (investigates code, APIs, docs): reads, also the web; no edits, no commands.',
        '- document-writer (documentation): reads, edits; no commands.',
        '- architect (advises on design): reads; no edits, no commands.',
        'All can ask another specialist a read-only question, except a coder, tester or document-writer step in its own git worktree.',
      ].join('\n'),
    );
  });

  it.each(Object.entries(CONFIGS))('agrees with what OpenCode offers each specialist, with %s', (_name, cfg) => {
    const { installed, offered } = install(cfg);
    const prompt = installed.planner.prompt;
    for (const agent of SPECIALIST_AGENTS) {
      const row = rowOf(prompt, agent);
      const [can = '', cannot = ''] = row.slice(row.indexOf('): ') + 3, -1).split('; ');
      const tools = offered[agent];
      expect(can.includes('edits'), `${agent} edits: ${row}`).toBe(tools.includes('edit'));
      expect(cannot.includes('no edits'), row).toBe(!tools.includes('edit'));
      expect(can.includes('runs commands'), `${agent} runs commands: ${row}`).toBe(tools.includes('bash'));
      expect(cannot.includes('no commands'), row).toBe(!tools.includes('bash'));
      expect(can.includes('reads'), row).toBe(tools.includes('read'));
      expect(can.includes('also the web'), `${agent} web: ${row}`).toBe(tools.some((tool) => ['webfetch', 'websearch', 'codesearch'].includes(tool)));
    }
    // Asking: every specialist is offered orca_ask_specialist in the project directory, none in a worktree (no plugin tool there).
    const inWorktree = install(cfg, { worktree: true }).offered;
    const cannotAskThere = SPECIALIST_AGENTS.filter((agent) => WRITING_AGENTS.includes(agent) && !inWorktree[agent].includes('orca_ask_specialist'));
    expect(SPECIALIST_AGENTS.every((agent) => offered[agent].includes('orca_ask_specialist'))).toBe(true);
    expect(prompt).toContain(`All can ask another specialist a read-only question, except a ${cannotAskThere.slice(0, -1).join(', ')} or ${cannotAskThere.at(-1)} step in its own git worktree.`);
  });

  it("follows a user's grant: a document-writer given bash runs commands in the table, and its own prompt no longer says it lacks Bash", () => {
    const { installed } = install(CONFIGS['bash granted to the document-writer']!);
    expect(rowOf(installed.planner.prompt, 'document-writer')).toBe('- document-writer (documentation): reads, edits, runs commands.');
    expect(installed['document-writer'].prompt).not.toContain('Bash');
    expect(installed['document-writer'].prompt).toContain(NO_COMMIT);
  });

  it('tells the planner how changes land: the working tree, uncommitted, by Orca; no step commits; and that .opencode/plans is Orca\'s', () => {
    const { planner } = applyAgents({});
    expect(planner.prompt).toContain("How changes land: Orca lands each step's changes in the user's working tree, uncommitted, and in a\ngit repository measures them itself. No step commits or pushes");
    expect(planner.prompt).toContain(".opencode/plans and\n.opencode/agenda are Orca's state.");
  });

  it("keeps the table, how changes land and the agenda's line under a user's own planner prompt", () => {
    const { planner } = applyAgents({ agent: { planner: { prompt: 'You plan Rust work only.' } } });
    expect(planner.prompt).toContain('You plan Rust work only.');
    expect(planner.prompt).toContain('- document-writer (documentation): reads, edits; no commands.');
    expect(planner.prompt).toContain('How changes land:');
    expect(planner.prompt).toContain('Use the agenda tool only when');
  });
});

describe("each agent's note on OpenCode's tool texts", () => {
  /** Tools OpenCode's descriptions of `tools` name, as they call them ("the Task tool"). */
  const NAMES: Record<string, string> = { task: 'Task', bash: 'Bash', read: 'Read', glob: 'Glob', grep: 'Grep', edit: 'Edit', write: 'Write' };

  it.each([false, true].flatMap((worktree) => Object.entries(CONFIGS).map(([name, cfg]) => [`${name}${worktree ? ', in a worktree' : ''}`, cfg, worktree] as const)))(
    'names exactly the tools its tool texts mention and it lacks, with %s',
    (_name, cfg, worktree) => {
      const { installed, offered } = install(cfg, { worktree });
      for (const id of INSTALLED_AGENT_IDS) {
        const mentioned = new Set(offered[id].flatMap((tool) => OPENCODE_TOOL_REFERENCES[tool] ?? []));
        const lacking = [...mentioned].filter((tool) => !offered[id].includes(tool));
        const note = /The tool descriptions mention the (.+?) tools?, which you do not have: ignore those hints\./.exec(installed[id].prompt)?.[1];
        const named = note ? note.split(/, | and /) : [];
        expect(named.sort(), `${id}: ${note}`).toEqual(lacking.map((tool) => NAMES[tool]).sort());
      }
    },
  );

  it('tells every agent with glob that it has no Task tool (glob and grep say "use the Task tool instead")', () => {
    const { installed } = install();
    for (const id of INSTALLED_AGENT_IDS.filter((id) => id !== 'orca')) expect(installed[id].prompt, id).toMatch(/The tool descriptions mention the [\w ,]*\bTask\b[\w ,]* tools?, which you do not have/);
    expect(installed.orca.prompt).not.toContain('tool descriptions mention');
  });
});

describe('who is told not to commit', () => {
  it.each([false, true])('tells the agents that run commands in a step, and only them, that Orca lands the changes uncommitted (worktree %s)', (worktree) => {
    const { installed, offered } = install({}, { worktree });
    const steps = [...SPECIALIST_AGENTS];
    for (const agent of steps) expect(installed[agent].prompt.includes(NO_COMMIT), agent).toBe(offered[agent].includes('bash'));
    // coder and tester everywhere; the reviewer runs checks (bash) only in a worktree.
    expect(steps.filter((agent) => installed[agent].prompt.includes(NO_COMMIT))).toEqual(worktree ? ['coder', 'tester', 'reviewer'] : ['coder', 'tester']);
  });

  it('tells the verifier to commit nothing, in its own words, and no read-only twin anything of committing', () => {
    const { installed } = install();
    expect(installed[VERIFIER_AGENT_ID].prompt).toContain('Change no file and commit nothing');
    for (const agent of SPECIALIST_AGENTS) expect(installed[`${agent}.readonly`].prompt).not.toMatch(/commit/i);
  });
});
