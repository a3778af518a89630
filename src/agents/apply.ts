import { QUESTION_AGENT_ID } from '../hitl/native-question/ids.js';
import { agentBlueprints, composePrompt, type AgentBlueprint } from './definitions.js';
import { findAgentMarker } from './prompts/marker.js';
import type { PlannerPolicy } from './prompts/planner.js';
import {
  isRecord,
  layerPermissions,
  readPermissionMap,
  type PermissionMap,
} from './permission-format.js';
import {
  BUILTIN_AGENTS,
  GATE_PERMISSION_PATTERNS,
  inheritedRules,
  readOnlyPermission,
  roleBasePermission,
  roleLockedPermission,
  verifierPermission,
  withoutOrca,
  type RoleContext,
} from './permissions.js';
import { INSTALLED_AGENT_IDS, OWN_TOOLS, SPECIALIST_AGENTS, type InstalledAgentId, type SpecialistAgent } from './roles.js';
import { abilitiesOf, offeredTools, permissionNotes, teamTable, type SpecialistAbilities } from './team-text.js';

/** A user's settings for one agent: OpenCode's agent config (model, temperature, prompt, permission, …). */
export type AgentSettings = Readonly<Record<string, unknown>>;
export type AgentOverrides = Readonly<Partial<Record<InstalledAgentId, AgentSettings>>>;

/** One agent as installed into `cfg.agent`. */
export interface OrcaAgentConfig {
  mode: 'primary' | 'subagent' | 'all';
  description: string;
  prompt: string;
  permission: PermissionMap;
  hidden?: boolean;
  [key: string]: unknown;
}

/** The part of OpenCode's config (as the `config` hook receives it) this module reads and writes. */
export interface AgentConfigTarget {
  agent?: Record<string, unknown> | undefined;
  permission?: unknown;
}

export interface ApplyAgentsOptions {
  /** Permission names the HITL gates ask from orca's session; see GATE_PERMISSION_PATTERNS. */
  gatePermissions?: readonly string[];
  /** The plan policy from the plugin options, told to the planner; what is left out is the default. */
  planning?: Partial<PlannerPolicy>;
  /**
   * The agents of Orca's instance inside a step's git worktree (src/passive/): every role is
   * denied `external_directory` whatever is configured (the user's checkout is outside), and the
   * reviewer may run bash there (WORKTREE_ROLE_TOOLS). Default false: the project directory.
   */
  worktree?: boolean;
  /**
   * The `agenda.tools` option: the planner gets the agenda's tool (AGENDA_ROLE_TOOLS). Default true;
   * false: no agent is offered it, and the planner is told how a user turns it on.
   */
  agenda?: boolean;
  /** `ask_planner_returns: "early"` (the default): orca is told what the `asking` and `running` results mean. */
  detach?: boolean;
}

const LAYERED_KEYS = new Set(['permission', 'tools', 'prompt']);
/** Installed entry → the user's entry it replaced (undefined if none). */
const REPLACED = new WeakMap<object, unknown>();

/** Settings a read-only twin takes from its specialist: who runs it, not what it may do. */
const TWIN_INHERITS = ['model', 'variant', 'temperature', 'top_p', 'options', 'disable'] as const;

/**
 * Installs Orca's agents into `cfg.agent` (orca, planner, the six specialists and their hidden
 * read-only twins `<specialist>.readonly`) and returns what it installed.
 *
 * When opencode.json (or `overrides`, e.g. from plugin options; opencode.json wins over them)
 * already defines an agent with one of these names, it is taken as settings for Orca's agent:
 * - Every field you set wins over Orca's: model, variant, temperature, top_p, steps, color,
 *   options, description, mode, hidden, disable (a disabled agent is removed by OpenCode; plans
 *   that need it then fail that step).
 * - `prompt` replaces Orca's role text, but the first line (`<!-- orca-agent:ID -->`) and the
 *   output protocol are always kept around it, because the plugin parses what the agent returns.
 * - `permission` entries replace Orca's key by key (legacy `tools` entries count as permissions),
 *   so you can e.g. set the reviewer's `bash` to `{"*":"deny","git diff*":"allow"}` or allow an MCP
 *   tool for the researcher. Then the role table is enforced on top: orca gets exactly
 *   orca_ask_planner, orca_list_plans and orca_describe_plan; the planner never gets edit, write,
 *   patch, bash, task or orca_ask_planner; no specialist gets task, question or orca_ask_planner;
 *   reviewer, researcher and architect never get edit/write/patch. A configuration cannot hand
 *   orca bash by accident, because those denials are applied after yours.
 * - The read-only twins take only model, variant, temperature, top_p, options and disable from
 *   their specialist (and anything you set on `<specialist>.readonly`); their permission is fixed.
 * Why: agent names are Orca's public contract (docs/design.md, "Roles and tools"), so a same-named
 * agent is most likely meant to tune Orca's; the plugin cannot work without its protocol; and roles
 * are enforced by OpenCode, not by prompts.
 *
 * In a step's git worktree (`worktree: true`, for Orca's instance there) two things differ:
 * every agent's `external_directory` is "deny", after your settings too (the user's checkout is
 * outside the worktree; that is the isolation), and the reviewer may run `bash`, to run what the
 * step's success criteria name (tests, a linter); it still never gets edit/write/patch.
 *
 * Tools a role may use keep the permission your global `permission` gives them (else Orca's
 * default: allow, `.env` files unreadable, outside the project denied); Orca only ever removes
 * access there.
 *
 * Every other agent (OpenCode's build, plan, general, explore and hidden ones, and yours) gets a
 * deny for each of Orca's tools and, in `task`, for each of Orca's agents, appended to its own
 * `permission` (an entry is created for a built-in; nothing else of it changes): its model is
 * offered nothing of Orca. A name your agent's permission gives explicitly stays yours (see
 * `withoutOrca`).
 */
export function applyAgents(
  cfg: AgentConfigTarget,
  overrides: AgentOverrides = {},
  { gatePermissions = GATE_PERMISSION_PATTERNS, planning, worktree = false, agenda = true, detach = false }: ApplyAgentsOptions = {},
): Record<InstalledAgentId, OrcaAgentConfig> {
  const global = readPermissionMap(cfg.permission);
  const existing: Record<string, unknown> = isRecord(cfg.agent) ? cfg.agent : {};
  // An entry installed by an earlier call stands for the user's settings it replaced (the hook may run twice).
  const userEntry = (id: string): unknown => {
    const entry = existing[id];
    return isRecord(entry) && REPLACED.has(entry) ? REPLACED.get(entry) : entry;
  };
  const settingsFor = (id: string): AgentSettings[] => [overrides[id as InstalledAgentId], userEntry(id)].filter(isRecord);

  const layersOf = (blueprint: AgentBlueprint): AgentSettings[] =>
    blueprint.specialist ? [...settingsFor(blueprint.specialist).map(pickTwinSettings), ...settingsFor(blueprint.id)] : settingsFor(blueprint.id);
  const context: RoleContext = { worktree, agenda };
  const blueprints = agentBlueprints(planning, { agenda, detach });
  // The planner is told what each specialist's steps may do by what OpenCode will offer them in the
  // project directory, after the user's settings: its table cannot disagree with their permissions.
  const team = Object.fromEntries(
    SPECIALIST_AGENTS.map((agent) => {
      const { permission } = buildAgent(blueprints[agent], layersOf(blueprints[agent]), global, gatePermissions, { agenda });
      return [agent, abilitiesOf(agent, offeredTools(agent, permission, global))];
    }),
  ) as Record<SpecialistAgent, SpecialistAbilities>;
  const planner = agentBlueprints(planning, { agenda, detach, team: teamTable(team) }).planner;
  const installed = {} as Record<InstalledAgentId, OrcaAgentConfig>;
  for (const blueprint of Object.values({ ...blueprints, planner })) {
    installed[blueprint.id] = buildAgent(blueprint, layersOf(blueprint), global, gatePermissions, context);
  }
  for (const [id, agent] of Object.entries(installed)) REPLACED.set(agent, userEntry(id));
  // In place: other parts of the plugin may add their own agents to the same object.
  const target = isRecord(cfg.agent) ? cfg.agent : (cfg.agent = {});
  Object.assign(target, installed);
  keepOrcaOut(target, global);
  return installed;
}

function buildAgent(
  blueprint: AgentBlueprint,
  layers: AgentSettings[],
  global: PermissionMap,
  gates: readonly string[],
  context: RoleContext,
): OrcaAgentConfig {
  const { role } = blueprint;
  let permission = role === 'readonly' || role === 'verifier' ? {} : roleBasePermission(role, global, gates, context);
  let rolePrompt = blueprint.role_prompt;
  const fields: Record<string, unknown> = {};
  for (const layer of layers) {
    // As OpenCode's loader does: legacy `tools` first, `permission` wins over it.
    permission = layerPermissions(permission, legacyTools(layer.tools));
    permission = layerPermissions(permission, readPermissionMap(layer.permission));
    if (typeof layer.prompt === 'string' && layer.prompt.trim()) rolePrompt = withoutMarker(layer.prompt);
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined && !LAYERED_KEYS.has(key)) fields[key] = value;
    }
  }
  const locked =
    role === 'readonly' ? readOnlyPermission(global, context) : role === 'verifier' ? verifierPermission(global, context) : roleLockedPermission(role, global, gates, context);
  permission = layerPermissions(permission, locked);
  // What its model is offered: in a step's worktree Orca's instance registers none of its own tools (src/passive/).
  const offered = offeredTools(blueprint.id, permission, global).filter((tool) => !(context.worktree && OWN_TOOLS.includes(tool)));
  const contract = context.worktree ? (blueprint.worktree_contract ?? blueprint.contract) : blueprint.contract;
  return {
    mode: blueprint.mode,
    description: blueprint.description,
    ...(blueprint.hidden ? { hidden: true } : {}),
    ...fields,
    prompt: composePrompt(blueprint.id, rolePrompt, contract, permissionNotes(offered, { step: blueprint.step === true })),
    permission,
  } as OrcaAgentConfig;
}

/** A prompt copied from an installed agent carries a marker line; the composed prompt adds its own. */
function withoutMarker(prompt: string): string {
  return findAgentMarker(prompt) !== undefined ? prompt.replace(/^\s*<!-- orca-agent:[^>]*-->\s*/, '') : prompt;
}

function pickTwinSettings(settings: AgentSettings): AgentSettings {
  return Object.fromEntries(TWIN_INHERITS.flatMap((key) => (key in settings ? [[key, settings[key]]] : [])));
}

/** OpenCode's legacy per-agent `tools: {name: boolean}`, as its config loader converts it. */
function legacyTools(raw: unknown): PermissionMap {
  if (!isRecord(raw)) return {};
  const out: PermissionMap = {};
  for (const [tool, enabled] of Object.entries(raw)) {
    if (typeof enabled !== 'boolean') continue;
    const key = tool === 'write' || tool === 'patch' ? 'edit' : tool;
    delete out[key];
    out[key] = enabled ? 'allow' : 'deny';
  }
  return out;
}

/** Orca's agents: the installed ones and the question channel's (installed after this, or by an earlier hook run). */
const ORCA_AGENT_IDS: readonly string[] = [...INSTALLED_AGENT_IDS, QUESTION_AGENT_ID];

/** Denies Orca's tools and agents to every other agent in `agents` and to OpenCode's built-ins. */
function keepOrcaOut(agents: Record<string, unknown>, global: PermissionMap): void {
  for (const id of new Set([...Object.keys(BUILTIN_AGENTS), ...Object.keys(agents)])) {
    if (ORCA_AGENT_IDS.includes(id)) continue;
    const entry = agents[id] ?? (agents[id] = {});
    if (isRecord(entry)) entry.permission = withoutOrca(entry.permission, inheritedRules(id, global), ORCA_AGENT_IDS);
  }
}
