import { WRITING_AGENTS } from '../machines/threading.js';
import { isToolHidden, toRuleset, type PermissionMap } from './permission-format.js';
import { inheritedRules, roleTools } from './permissions.js';
import { EDIT_TOOLS, KNOWN_TOOLS, OPENCODE_TOOL_REFERENCES, ORCA_TOOLS, SPECIALIST_AGENTS, TOOLS_ABSENT_IN_WORKTREE, type SpecialistAgent } from './roles.js';

/**
 * The sentences of a prompt that say what an agent, or the team, may do, generated from the same
 * permissions that grant it (docs/agents.md, "What each agent is told"): so the planner's table of
 * specialists and each agent's notes on OpenCode's tool texts cannot disagree with what OpenCode
 * offers the model.
 */

/**
 * The tools OpenCode offers an agent under its installed `permission`: those of KNOWN_TOOLS that the
 * rules do not hide (OpenCode's defaults and the user's global `permission` first, as 1.18 evaluates).
 */
export function offeredTools(agentId: string, permission: PermissionMap, global: PermissionMap = {}): string[] {
  const rules = [...inheritedRules(agentId, global), ...toRuleset(permission)];
  return KNOWN_TOOLS.filter((tool) => !isToolHidden(tool, rules));
}

/** How OpenCode's tool descriptions call the tools they name. */
const TOOL_NAMES: Readonly<Record<string, string>> = { task: 'Task', bash: 'Bash', read: 'Read', glob: 'Glob', grep: 'Grep', edit: 'Edit', write: 'Write' };

/**
 * The tools OpenCode's descriptions of the `offered` tools name that the agent is not offered
 * (OPENCODE_TOOL_REFERENCES): e.g. "use the Task tool instead" in glob's, to every Orca agent.
 */
export function absentReferences(offered: readonly string[]): string[] {
  const named = new Set(offered.flatMap((tool) => OPENCODE_TOOL_REFERENCES[tool] ?? []));
  return [...named].filter((tool) => !offered.includes(tool));
}

/** The note on OpenCode's tool texts for an agent offered `offered`, or null when they name nothing it lacks. */
export function toolNote(offered: readonly string[]): string | null {
  const absent = absentReferences(offered);
  if (absent.length === 0) return null;
  const names = absent.map((tool) => TOOL_NAMES[tool] ?? tool);
  return `The tool descriptions mention the ${andList(names)} tool${names.length === 1 ? '' : 's'}, which you do not have: ignore those hints.`;
}

/**
 * For an agent that can run commands in a step: no commit (there is no option that lets a step
 * commit). Orca lands the step's changes itself, as uncommitted changes (docs/design.md,
 * "Isolation and merge"), and measures them with git: a commit would be no part of what lands.
 */
export const NO_COMMIT = "Never commit or push (the bash tool's notes on commits and pull requests do not apply): Orca lands the step's changes in the user's working tree itself, uncommitted.";

/** The notes of an agent's prompt that follow from what it is offered. */
export function permissionNotes(offered: readonly string[], { step }: { step: boolean }): string | null {
  const notes = [...(step && offered.includes('bash') ? [NO_COMMIT] : []), toolNote(offered)].filter((note): note is string => note !== null);
  return notes.length ? notes.join(' ') : null;
}

/** What a specialist's step may do, as the planner is told it. */
export interface SpecialistAbilities {
  reads: boolean;
  /** webfetch, websearch or codesearch. */
  web: boolean;
  edits: boolean;
  runs: boolean;
  /** Asks another specialist (orca_ask_specialist) where its steps share the project directory. */
  asks: boolean;
  /** A file-changing step, which runs in a git worktree of its own where git can (WRITING_AGENTS)… */
  writes: boolean;
  /** …and asks there too (Orca's instance there registers no tool: TOOLS_ABSENT_IN_WORKTREE). */
  asksInWorktree: boolean;
}

/** A specialist's abilities from the tools it is offered in the project directory. */
export function abilitiesOf(agent: SpecialistAgent, offered: readonly string[]): SpecialistAbilities {
  const asks = offered.includes(ORCA_TOOLS.askSpecialist);
  return {
    reads: offered.includes('read'),
    web: ['webfetch', 'websearch', 'codesearch'].some((tool) => offered.includes(tool)),
    edits: EDIT_TOOLS.some((tool) => offered.includes(tool)),
    runs: offered.includes('bash'),
    asks,
    writes: WRITING_AGENTS.includes(agent),
    asksInWorktree: asks && !TOOLS_ABSENT_IN_WORKTREE.includes(ORCA_TOOLS.askSpecialist),
  };
}

/** Each specialist's abilities by its role table alone (no user configuration). */
export function defaultTeam(): Record<SpecialistAgent, SpecialistAbilities> {
  return Object.fromEntries(SPECIALIST_AGENTS.map((agent) => [agent, abilitiesOf(agent, roleTools(agent))])) as Record<SpecialistAgent, SpecialistAbilities>;
}

/** What each specialist is for: its job, never what it may do (that is its abilities). */
const PURPOSE: Readonly<Record<SpecialistAgent, string>> = {
  coder: 'code changes, features, fixes',
  tester: 'tests',
  reviewer: 'reviews changes for defects',
  researcher: 'investigates code, APIs, docs',
  'document-writer': 'documentation',
  architect: 'advises on design',
};

/** One row: `- coder (code changes, features, fixes): reads, edits, runs commands.` */
function row(agent: SpecialistAgent, a: SpecialistAbilities): string {
  const can = [a.reads ? `reads${a.web ? ', also the web' : ''}` : null, a.edits ? 'edits' : null, a.runs ? 'runs commands' : null].filter(Boolean);
  const cannot = [a.reads ? null : 'no reading', a.edits ? null : 'no edits', a.runs ? null : 'no commands'].filter(Boolean);
  return `- ${agent} (${PURPOSE[agent]}): ${[can.join(', '), cannot.join(', ')].filter(Boolean).join('; ')}.`;
}

/** Who may ask another specialist, in one sentence. */
function asking(team: Record<SpecialistAgent, SpecialistAbilities>): string {
  const agents = SPECIALIST_AGENTS;
  const never = agents.filter((a) => !team[a].asks);
  const notInWorktree = agents.filter((a) => team[a].asks && team[a].writes && !team[a].asksInWorktree);
  const who = never.length === 0 ? 'All' : agents.filter((a) => team[a].asks).length === 0 ? null : `All but ${andList(never)}`;
  if (who === null) return 'None can ask another specialist.';
  const except = notInWorktree.length ? `, except a ${orList(notInWorktree)} step in its own git worktree` : '';
  return `${who} can ask another specialist a read-only question${except}.`;
}

/** The planner's table of the specialists a step can be given to: one row each, what it is for and may do. */
export function teamTable(team: Record<SpecialistAgent, SpecialistAbilities> = defaultTeam()): string {
  return ['Specialists a step can be given to, and what each may do:', ...SPECIALIST_AGENTS.map((agent) => row(agent, team[agent])), asking(team)].join('\n');
}

function andList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
