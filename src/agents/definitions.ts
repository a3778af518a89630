import { agentMarker } from './prompts/marker.js';
import { ORCA_ROLE, orcaContract } from './prompts/orca.js';
import { DEFAULT_MAX_ATTEMPTS } from '../machines/plan.machine.js';
import { DEFAULT_PLAN_POLICY } from '../machines/types.js';
import { PLANNER_ROLE, plannerContract, type PlannerPolicy } from './prompts/planner.js';
import { VERIFIER_CONTRACT, VERIFIER_ROLE } from './prompts/verifier.js';
import {
  CONSULT_CONTRACT,
  SPECIALIST_ROLES,
  WORKTREE_REVIEW_CONTRACT,
  WORKTREE_STEP_CONTRACT,
  specialistConsultPrompt,
  specialistStepPrompt,
  STEP_CONTRACT,
} from './prompts/specialists.js';
import { SPECIALIST_AGENTS, VERIFIER_AGENT_ID, readOnlyAgentId, type AgentId, type InstalledAgentId, type SpecialistAgent } from './roles.js';
import { teamTable } from './team-text.js';

/** What Orca itself defines for one agent, before any user setting. */
export interface AgentBlueprint {
  id: InstalledAgentId;
  /** The role whose permissions apply; read-only twins use "readonly", the verifying turn "verifier". */
  role: AgentId | 'readonly' | 'verifier';
  /** The specialist a read-only twin stands for, or whose model the verifier runs on (the tester's). */
  specialist?: SpecialistAgent;
  /** Its turns are one of a plan's steps (or a step's review or fix): it is told never to commit (team-text.ts NO_COMMIT). */
  step?: boolean;
  mode: 'primary' | 'subagent';
  description: string;
  hidden: boolean;
  /** Who the agent is and how it works; a user's `prompt` replaces this part. */
  role_prompt: string;
  /** What is always kept, even under a user's role text: how to answer, and for the planner what the plugin does by itself. */
  contract: string;
  /** The contract instead in a step's own worktree, where the role works apart (Orca's instance there, src/passive/). */
  worktree_contract?: string;
}

/**
 * The full prompt: marker line, role (Orca's or the user's), contract, and the notes that follow
 * from what the agent is offered (team-text.ts permissionNotes).
 */
export function composePrompt(id: string, rolePrompt: string, contract: string, notes: string | null = null): string {
  return `${agentMarker(id)}\n${rolePrompt.trim()}\n\n${contract}${notes ? `\n\n${notes}` : ''}`;
}

/** What a role's text depends on besides the role. */
export interface BlueprintOptions {
  /** The planner has the agenda's tool (`agenda.tools`, default true); without it, it is told scheduling is off. */
  agenda?: boolean;
  /** orca_ask_planner returns early (`ask_planner_returns: "early"`, the default): orca is told what `asking` and `running` mean. */
  detach?: boolean;
  /** The planner's table of specialists (team-text.ts teamTable); default from the role table alone. */
  team?: string;
}

function specialist(agent: SpecialistAgent): AgentBlueprint {
  return {
    id: agent,
    role: agent,
    mode: 'subagent',
    description: SPECIALIST_ROLES[agent].description,
    hidden: false,
    step: true,
    role_prompt: specialistStepPrompt(agent),
    contract: STEP_CONTRACT,
    worktree_contract: agent === 'reviewer' ? WORKTREE_REVIEW_CONTRACT : WORKTREE_STEP_CONTRACT,
  };
}

function readOnlyTwin(agent: SpecialistAgent): AgentBlueprint {
  return {
    id: readOnlyAgentId(agent),
    role: 'readonly',
    specialist: agent,
    mode: 'subagent',
    description: `${SPECIALIST_ROLES[agent].title}, read-only: answers orca_ask_specialist questions (internal to Orca).`,
    hidden: true,
    role_prompt: specialistConsultPrompt(agent),
    contract: CONSULT_CONTRACT,
  };
}

/**
 * Every agent Orca installs, keyed by agent id. `planning` is the plan policy the planner is told
 * the plugin applies by itself; what it leaves out is the default (no options set).
 */
export function agentBlueprints(planning: Partial<PlannerPolicy> = {}, options: BlueprintOptions = {}): Record<InstalledAgentId, AgentBlueprint> {
  const policy: PlannerPolicy = { policy: planning.policy ?? DEFAULT_PLAN_POLICY, maxAttempts: planning.maxAttempts ?? DEFAULT_MAX_ATTEMPTS };
  const list: AgentBlueprint[] = [
    {
      id: 'orca',
      role: 'orca',
      mode: 'primary',
      description: 'Orca: routes your requests to a planner and a supervised team; plans run after your approval.',
      hidden: false,
      role_prompt: ORCA_ROLE,
      contract: orcaContract({ detach: options.detach ?? false }),
    },
    {
      id: 'planner',
      role: 'planner',
      mode: 'subagent',
      description: 'Orca planner: answers, asks clarifying questions, or drafts a step-by-step plan; never executes.',
      hidden: false,
      role_prompt: PLANNER_ROLE,
      contract: plannerContract(policy, { agenda: options.agenda ?? true, team: options.team ?? teamTable() }),
    },
    ...SPECIALIST_AGENTS.map(specialist),
    ...SPECIALIST_AGENTS.map(readOnlyTwin),
    {
      id: VERIFIER_AGENT_ID,
      role: 'verifier',
      // Runs on the tester's model and settings, as the verifying turn did when it was the tester's.
      specialist: 'tester',
      mode: 'subagent',
      description: 'Orca verifier: checks a plan once every step has landed; reads and runs commands, edits nothing (internal to Orca).',
      hidden: true,
      role_prompt: VERIFIER_ROLE,
      contract: VERIFIER_CONTRACT,
    },
  ];
  return Object.fromEntries(list.map((b) => [b.id, b])) as Record<InstalledAgentId, AgentBlueprint>;
}
