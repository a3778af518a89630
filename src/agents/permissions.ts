import { SPECIALIST_AGENTS as SPECIALISTS } from '../schemas/specialist-agents.js';
import {
  isRecord,
  isToolHidden,
  layerPermissions,
  matchesWildcard,
  readPermissionMap,
  toRuleset,
  type PermissionAction,
  type PermissionMap,
  type PermissionRule,
  type PermissionValue,
} from './permission-format.js';
import {
  AGENDA_ROLE_TOOLS,
  AGENDA_TOOL,
  EDIT_TOOLS,
  FORBIDDEN_TOOLS,
  KNOWN_TOOLS,
  ORCA_TOOLS,
  OWN_TOOLS,
  READ_ONLY_TOOLS,
  ROLE_TOOLS,
  WORKTREE_ROLE_TOOLS,
  TOOLS_ABSENT_IN_WORKTREE,
  VERIFIER_TOOLS,
  type AgentId,
} from './roles.js';

/**
 * Permission names Orca's HITL gates may pass to `ToolContext.ask` from orca's session (e.g.
 * `orca_plan_approval`, `orca_step_deviation`, `orca_step_resume`, `orca_dispatch_budget`). Orca denies everything else, so without these
 * an approval asked through the permission prompt would be auto-rejected. They match no tool.
 */
export const GATE_PERMISSION_PATTERNS = ['orca_plan_*', 'orca_step_*', 'orca_dispatch_*'] as const;

/**
 * OpenCode's `invalid` tool runs nothing: it only answers a call to a tool the agent lacks,
 * which OpenCode rewrites to it, with the AI SDK's "Model tried to call unavailable tool
 * '<name>'. Available tools: …". Denied, the rewrite itself fails and the model reads "…
 * unavailable tool 'invalid'", so every agent keeps it (OpenCode never offers it to the model).
 * The plugin's `tool.execute.after` rewords that answer (opencode/tool-failures.ts).
 */
export const INVALID_TOOL = 'invalid';

/** What decides a role's tools besides the role: where its session runs, and whether the agenda is the models' to use. */
export interface RoleContext {
  /** In a step's own git worktree (docs/design.md, "Isolation and merge"), not the project directory; default false. */
  worktree?: boolean;
  /** The `agenda.tools` option: the agenda's tool is granted (AGENDA_ROLE_TOOLS); default true. */
  agenda?: boolean;
}

/**
 * What every role is held to in a step's worktree, after everything the user configures: the
 * user's checkout is outside the worktree, and nothing an agent does there may reach it.
 */
export const WORKTREE_LOCKED: Readonly<PermissionMap> = { external_directory: 'deny' };

/**
 * The tools a role is granted: ROLE_TOOLS, the agenda's unless it is off (AGENDA_ROLE_TOOLS), and in a
 * worktree WORKTREE_ROLE_TOOLS but not the plugin's own tools.
 */
export function roleTools(agent: AgentId, { worktree = false, agenda = true }: RoleContext = {}): readonly string[] {
  const tools = [...ROLE_TOOLS[agent], ...(agenda ? (AGENDA_ROLE_TOOLS[agent] ?? []) : [])];
  if (!worktree) return tools;
  // Only a step's specialists run in a worktree (orca and the planner never do; their table stays whole).
  const absent = (SPECIALISTS as readonly string[]).includes(agent) ? TOOLS_ABSENT_IN_WORKTREE : [];
  return [...tools.filter((tool) => !absent.includes(tool)), ...(WORKTREE_ROLE_TOOLS[agent] ?? [])];
}

/** The permission key OpenCode checks for a tool (write and apply_patch are checked as `edit`). */
export function permissionKeyForTool(tool: string): string {
  return (EDIT_TOOLS as readonly string[]).includes(tool) ? 'edit' : tool;
}

/**
 * Orca's default for a key it grants. `read` keeps OpenCode's .env guard but as "deny", not
 * "ask": these sessions run unattended and a prompt nobody sees hangs the turn.
 */
function defaultFor(key: string, agent: AgentId | 'readonly' | 'verifier'): PermissionValue {
  if (key === 'read') return { '*': 'allow', '*.env': 'deny', '*.env.*': 'deny', '*.env.example': 'allow' };
  if (key === 'external_directory') return 'deny';
  // Three identical tool calls in a row: orca's session is the user's, so ask as OpenCode does;
  // elsewhere nobody may be watching, and a loop is a failed step for the deviation gate.
  if (key === 'doom_loop') return agent === 'orca' ? 'ask' : 'deny';
  return 'allow';
}

/**
 * What the user's global `permission` says for `key`, folded onto `fallback` the way OpenCode
 * would evaluate it: entries whose key matches, in order; a pattern map without `"*"` refines
 * what came before. Granting a tool therefore never loosens a rule the user set globally.
 */
export function inheritPermission(
  key: string,
  global: PermissionMap,
  fallback: PermissionValue,
  { ignoreCatchAll = false } = {},
): PermissionValue {
  let value = fallback;
  for (const [pattern, rule] of Object.entries(global)) {
    if (ignoreCatchAll && pattern === '*') continue;
    if (!matchesWildcard(key, pattern)) continue;
    if (typeof rule === 'string' || '*' in rule) value = rule;
    else value = layerPermissions(typeof value === 'string' ? { '*': value } : value, rule);
  }
  return typeof value === 'string' ? value : { ...value };
}

/**
 * The granted keys at the user's global level. Orca's own tools and `invalid` ignore a bare
 * global `"*"`: installing the plugin is consent to its tools, orca without orca_ask_planner is
 * useless, and `invalid` does nothing but explain a wrong call.
 */
function grant(agent: AgentId | 'readonly' | 'verifier', keys: readonly string[], global: PermissionMap): PermissionMap {
  const out: PermissionMap = {};
  for (const key of new Set(keys)) {
    out[key] = inheritPermission(key, global, defaultFor(key, agent), { ignoreCatchAll: OWN_TOOLS.includes(key) || key === INVALID_TOOL });
  }
  return out;
}

function deny(tools: readonly string[]): PermissionMap {
  return Object.fromEntries(tools.map((tool) => [tool, 'deny' as PermissionAction]));
}

/**
 * The gates' keys on orca: "ask" unless the user's global config names them explicitly (a bare
 * global `"*"` does not count, so `"permission": "allow"` never auto-approves a plan).
 */
function gates(patterns: readonly string[], global: PermissionMap): PermissionMap {
  for (const pattern of patterns) {
    const tool = KNOWN_TOOLS.find((t) => matchesWildcard(t, pattern));
    if (tool) throw new Error(`Expected gate permission pattern ${JSON.stringify(pattern)} to match no tool, but it matches ${tool}.`);
  }
  const out: PermissionMap = {};
  for (const pattern of patterns) {
    out[pattern] = inheritPermission(pattern, global, 'ask', { ignoreCatchAll: true });
    // Gates the user named individually (e.g. orca_plan_approval) come after, so they win.
    for (const [key, value] of Object.entries(global)) {
      if (key !== pattern && matchesWildcard(key, pattern)) out[key] = value;
    }
  }
  return out;
}

/**
 * An agent's own permission before the user's per-agent settings: deny everything, then grant
 * the role's tools where it runs (roleTools; plus the two non-tool keys every agent meets, and
 * `invalid`) at the user's global level.
 */
export function roleBasePermission(
  agent: AgentId,
  global: PermissionMap = {},
  gatePatterns: readonly string[] = GATE_PERMISSION_PATTERNS,
  context: RoleContext = {},
): PermissionMap {
  const keys = ['external_directory', 'doom_loop', INVALID_TOOL, ...roleTools(agent, context).map(permissionKeyForTool)];
  const asks = agent === 'orca' ? gates(gatePatterns, global) : {};
  return { '*': 'deny', ...asks, ...grant(agent, keys, global) };
}

/**
 * The rules applied after the user's per-agent permission: the role's forbidden tools (and for
 * orca the whole role) are denied again, so no configuration can hand orca bash or a
 * specialist orca_ask_planner; in a worktree, WORKTREE_LOCKED too.
 */
export function roleLockedPermission(
  agent: AgentId,
  global: PermissionMap = {},
  gatePatterns: readonly string[] = GATE_PERMISSION_PATTERNS,
  context: RoleContext = {},
): PermissionMap {
  const locked = agent === 'orca' ? roleBasePermission('orca', global, gatePatterns, context) : deny(FORBIDDEN_TOOLS[agent]);
  return context.worktree ? layerPermissions(locked, WORKTREE_LOCKED) : locked;
}

/** Everything a read-only consultation may not do: edits, shell, delegation, questions. */
const READ_ONLY_DENIED = [
  ...EDIT_TOOLS,
  'bash',
  'task',
  'question',
  'todowrite',
  'skill',
  ORCA_TOOLS.askPlanner,
  ORCA_TOOLS.askSpecialist,
  AGENDA_TOOL,
];

/**
 * The read-only agents' permission (config form), fully locked. bash is denied rather than
 * "ask": these sessions are two or more levels below the user's session, where the TUI shows
 * no permission dialog, so "ask" would hang the turn; and any shell can write. In a worktree,
 * WORKTREE_LOCKED too.
 */
export function readOnlyPermission(global: PermissionMap = {}, { worktree = false }: RoleContext = {}): PermissionMap {
  const keys = ['external_directory', 'doom_loop', INVALID_TOOL, ...READ_ONLY_TOOLS];
  const locked: PermissionMap = { '*': 'deny', ...grant('readonly', keys, global), ...deny(READ_ONLY_DENIED) };
  return worktree ? layerPermissions(locked, WORKTREE_LOCKED) : locked;
}

/** Everything the verifying turn may not do: edit, delegate, ask, or use the plugin's tools. */
const VERIFIER_DENIED = [...EDIT_TOOLS, 'task', 'question', 'todowrite', 'skill', ...OWN_TOOLS];

/**
 * The verifier's permission (config form), fully locked like the read-only twins': it reads and runs
 * commands (VERIFIER_TOOLS) at the user's global level, and nothing that edits. bash is allowed, not
 * "ask": the turn runs unattended, a child of the user's session; what it changes is measured.
 */
export function verifierPermission(global: PermissionMap = {}, { worktree = false }: RoleContext = {}): PermissionMap {
  const keys = ['external_directory', 'doom_loop', INVALID_TOOL, ...VERIFIER_TOOLS];
  const locked: PermissionMap = { '*': 'deny', ...grant('verifier', keys, global), ...deny(VERIFIER_DENIED) };
  return worktree ? layerPermissions(locked, WORKTREE_LOCKED) : locked;
}

/**
 * The same rules as a session ruleset, for `session.create({permission})` of orca_ask_specialist
 * sessions. OpenCode evaluates session rules after the agent's. Caveat (1.18): a later
 * `session.prompt` with a `tools` map REPLACES the session's ruleset, so do not pass `tools`
 * when prompting these sessions, or pass READ_ONLY_PROMPT_TOOLS.
 */
export const READ_ONLY_SESSION_PERMISSIONS: PermissionRule[] = toRuleset(readOnlyPermission());

/**
 * `session.prompt({tools})` equivalent of the read-only rules. Coarser (a tools map can only say
 * allow/deny for pattern "*", so the .env read guard is lost): prefer not passing `tools`.
 */
export const READ_ONLY_PROMPT_TOOLS: Readonly<Record<string, boolean>> = Object.freeze({
  '*': false,
  ...Object.fromEntries([INVALID_TOOL, ...READ_ONLY_TOOLS].map((t) => [t, true])),
});

/**
 * OpenCode 1.18.33's built-in agents (`Agent.state` in the binary), each with the rules of its own
 * that decide whether it is offered `task`; OpenCode puts them after its `"*": "allow"` default
 * and before the user's global `permission`. explore and the hidden three deny everything else.
 */
export const BUILTIN_AGENTS: Readonly<Record<string, PermissionMap>> = {
  build: {},
  plan: { task: { general: 'deny' } },
  general: {},
  explore: { '*': 'deny' },
  compaction: { '*': 'deny' },
  title: { '*': 'deny' },
  summary: { '*': 'deny' },
};

/** The rules an agent's own `permission` is evaluated after (1.18 `Agent.state`): defaults, built-in rules, global. */
export function inheritedRules(agent: string, global: PermissionMap): PermissionRule[] {
  return [...toRuleset({ '*': 'allow' }), ...toRuleset(BUILTIN_AGENTS[agent] ?? {}), ...toRuleset(global)];
}

/**
 * The permission of an agent that is not Orca's (the user's, or a built-in): its own entries
 * untouched and in order, then a deny for each of Orca's tools, and in `task` a deny for each of
 * Orca's agents, so that agent's model is offered nothing of Orca (a denied tool is not offered;
 * a denied subagent is not listed in the task tool). What the agent's own permission names with
 * anything but a bare `"*"` (e.g. `orca_list_plans` or `"orca_*"`, or `task: {"coder": …}`)
 * is left as the user set it. `task` is only touched when the agent is offered it: a pattern rule
 * under a `"*"` denial would bring the task tool back (as for explore).
 */
export function withoutOrca(own: unknown, inherited: PermissionRule[], orcaAgents: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = typeof own === 'string' ? { '*': own } : isRecord(own) ? { ...own } : {};
  const named = (name: string, patterns: readonly string[]) => patterns.some((p) => p !== '*' && matchesWildcard(name, p));
  for (const tool of OWN_TOOLS) if (!named(tool, Object.keys(out))) out[tool] = 'deny';
  if (isToolHidden('task', inherited, toRuleset(readPermissionMap(out)))) return out;
  const task = out.task;
  const patterns: Record<string, unknown> = typeof task === 'string' ? { '*': task } : isRecord(task) ? { ...task } : {};
  for (const id of orcaAgents) if (!named(id, Object.keys(patterns))) patterns[id] = 'deny';
  out.task = patterns;
  return out;
}
