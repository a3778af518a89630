import { SPECIALIST_AGENTS, type SpecialistAgent } from '../schemas/specialist-agents.js';

/** The plugin's four tools, by the names OpenCode registers them under (docs/design.md, "Roles and tools"). */
export const ORCA_TOOLS = {
  askPlanner: 'orca_ask_planner',
  listPlans: 'orca_list_plans',
  describePlan: 'orca_describe_plan',
  askSpecialist: 'orca_ask_specialist',
} as const;

export type OrcaTool = (typeof ORCA_TOOLS)[keyof typeof ORCA_TOOLS];

/**
 * The agenda's one tool (docs/agenda.md): seed 002's six tools as its operations (`op`: create,
 * list, cancel, emit, events, pause). No operation resumes a paused agenda.
 */
export const AGENDA_TOOL = 'agenda';

/** Every tool this plugin registers. */
export const OWN_TOOLS: readonly string[] = [...Object.values(ORCA_TOOLS), AGENDA_TOOL];

export { SPECIALIST_AGENTS, type SpecialistAgent };

/** Every agent the plugin installs for a role, in the order of docs/design.md, "Roles and tools". */
export const AGENT_IDS = ['orca', 'planner', ...SPECIALIST_AGENTS] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** The hidden twin of a specialist that answers orca_ask_specialist questions, read-only. */
export type ReadOnlyAgentId = `${SpecialistAgent}.readonly`;

export function readOnlyAgentId(specialist: SpecialistAgent): ReadOnlyAgentId {
  return `${specialist}.readonly`;
}

export const READ_ONLY_AGENT_IDS: readonly ReadOnlyAgentId[] = SPECIALIST_AGENTS.map(readOnlyAgentId);

/**
 * The hidden agent of a plan's verifying turn (docs/agents.md, "What each agent is told"): once every
 * step has landed it checks the plan's `verification` list in the user's project. Its own role, not
 * a step's; it reads and runs commands and is offered no tool that edits (VERIFIER_TOOLS).
 */
export const VERIFIER_AGENT_ID = 'verifier';
export type VerifierAgentId = typeof VERIFIER_AGENT_ID;

/** Everything applyAgents installs: the role agents, the read-only twins and the verifier. */
export type InstalledAgentId = AgentId | ReadOnlyAgentId | VerifierAgentId;
export const INSTALLED_AGENT_IDS: readonly InstalledAgentId[] = [...AGENT_IDS, ...READ_ONLY_AGENT_IDS, VERIFIER_AGENT_ID];

export function isSpecialist(id: string): id is SpecialistAgent {
  return (SPECIALIST_AGENTS as readonly string[]).includes(id);
}

export function isInstalledAgentId(id: string): id is InstalledAgentId {
  return (INSTALLED_AGENT_IDS as readonly string[]).includes(id);
}

/**
 * OpenCode 1.18 checks the write, edit and apply_patch tools against the one permission key
 * `edit`; `patch` and `multiedit` are older names, denied too so no version slips through.
 */
export const EDIT_TOOLS = ['edit', 'write', 'apply_patch', 'patch', 'multiedit'] as const;

const READ_TOOLS = ['read', 'glob', 'grep', 'list'] as const;
const PLAN_LOOKUP = [ORCA_TOOLS.listPlans, ORCA_TOOLS.describePlan] as const;
/** Every specialist: read and search the project, ask another specialist (read-only), read its own plan by id. */
const SPECIALIST_BASE = [...READ_TOOLS, ORCA_TOOLS.askSpecialist, ORCA_TOOLS.describePlan] as const;
const EDITING = ['edit', 'write', 'apply_patch'] as const;

/**
 * Role → the tools an agent may call (docs/design.md, "Roles and tools"; docs/agents.md says why
 * each). Only what the role uses: every tool is offered to the model with its whole definition on
 * every request (issue 26). Not granted by default, a user may grant per agent: webfetch
 * (researcher only), todowrite (a step is already one planned task), orca_list_plans for
 * specialists (a step knows its plan id). Everything else is denied by OpenCode permissions, so a
 * denied tool is not even offered to the model. The agenda's tool comes on top (AGENDA_ROLE_TOOLS).
 */
export const ROLE_TOOLS: Readonly<Record<AgentId, readonly string[]>> = {
  orca: [ORCA_TOOLS.askPlanner, ...PLAN_LOOKUP],
  planner: [ORCA_TOOLS.askSpecialist, ...PLAN_LOOKUP, ...READ_TOOLS],
  coder: [...SPECIALIST_BASE, ...EDITING, 'bash'],
  tester: [...SPECIALIST_BASE, ...EDITING, 'bash'],
  'document-writer': [...SPECIALIST_BASE, ...EDITING],
  reviewer: SPECIALIST_BASE,
  researcher: [...SPECIALIST_BASE, 'webfetch', 'websearch', 'codesearch'],
  architect: SPECIALIST_BASE,
};

/**
 * The agenda's tool, granted to the planner unless the `agenda.tools` option is false: one short
 * definition on each planner request (issue 35; six tools and a paragraph of instructions were
 * a third of it). Specialists do not get it (a user may grant it to one; it may then only emit and
 * list: src/tools/agenda.ts), Orca never does.
 */
export const AGENDA_ROLE_TOOLS: Readonly<Partial<Record<AgentId, readonly string[]>>> = {
  planner: [AGENDA_TOOL],
};

/**
 * What a role may call besides ROLE_TOOLS when its session runs in a step's own git worktree
 * (docs/design.md, "Isolation and merge"): the reviewer runs what the step's success criteria
 * name (tests, a linter) there, where nothing it runs reaches the user's checkout. It still never
 * edits (FORBIDDEN_TOOLS holds in a worktree too). In the project directory it has no bash.
 */
export const WORKTREE_ROLE_TOOLS: Readonly<Partial<Record<AgentId, readonly string[]>>> = {
  reviewer: ['bash'],
};

/**
 * The plugin's own tools a specialist has in the project directory but not in a step's worktree:
 * Orca's instance there is passive and registers no tool (src/passive/), so they are neither
 * granted nor named in the role's text there (a relay run found a prompt naming tools it lacked).
 */
export const TOOLS_ABSENT_IN_WORKTREE: readonly string[] = [ORCA_TOOLS.askSpecialist, ...PLAN_LOOKUP];

/**
 * Tools a role must never get, whatever the user configures: re-denied after the user's own
 * per-agent permission. Orca is fully locked (its three tools and nothing else).
 */
export const FORBIDDEN_TOOLS: Readonly<Record<Exclude<AgentId, 'orca'>, readonly string[]>> = {
  planner: [...EDIT_TOOLS, 'bash', 'task', 'question', ORCA_TOOLS.askPlanner],
  coder: ['task', 'question', ORCA_TOOLS.askPlanner],
  tester: ['task', 'question', ORCA_TOOLS.askPlanner],
  'document-writer': ['task', 'question', ORCA_TOOLS.askPlanner],
  reviewer: [...EDIT_TOOLS, 'task', 'question', ORCA_TOOLS.askPlanner],
  researcher: [...EDIT_TOOLS, 'task', 'question', ORCA_TOOLS.askPlanner],
  architect: [...EDIT_TOOLS, 'task', 'question', ORCA_TOOLS.askPlanner],
};

/**
 * OpenCode 1.18's built-in tools (some only appear with certain providers or flags), plus older
 * names still accepted as permission keys, plus Orca's own.
 */
export const KNOWN_TOOLS: readonly string[] = [
  'bash', 'read', 'glob', 'grep', 'list', 'edit', 'write', 'apply_patch', 'patch', 'multiedit',
  'task', 'webfetch', 'websearch', 'codesearch', 'todowrite', 'todoread', 'skill', 'question', 'lsp',
  'plan_enter', 'plan_exit', 'invalid', 'execute',
  ...OWN_TOOLS,
];

/** What a session created by orca_ask_specialist may call (docs/design.md, "Read-only asks"). */
export const READ_ONLY_TOOLS = [...READ_TOOLS, 'webfetch', 'websearch', 'codesearch', ...PLAN_LOOKUP] as const;

/**
 * What the verifying turn may call: read and search the project, run its checks. No edit, write or
 * patch (what a command changes is still measured and listed by the verify port), no
 * orca_ask_specialist (a check, not a consultation), nothing else of the plugin.
 */
export const VERIFIER_TOOLS = ['read', 'glob', 'grep', 'bash'] as const;

/**
 * The other tools OpenCode 1.18.33's own tool descriptions name (read in the binary: glob and grep
 * say "use the Task tool instead", grep "use the Bash tool with `rg`", bash "Use Glob … Grep …
 * Read … Edit … Write", read "use the grep tool … the glob tool", edit and write "your `Read`
 * tool"). The `tool.definition` hook cannot rewrite them per agent (its input is the tool id only),
 * so each agent's prompt names those it lacks (prompts/tool-notes.ts).
 */
export const OPENCODE_TOOL_REFERENCES: Readonly<Record<string, readonly string[]>> = {
  glob: ['task'],
  grep: ['task', 'bash'],
  bash: ['read', 'glob', 'grep', 'edit', 'write'],
  read: ['grep', 'glob'],
  edit: ['read'],
  write: ['read'],
};
