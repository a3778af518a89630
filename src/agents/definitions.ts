import { agentMarker } from './prompts/marker.js';
import { ORCA_CONTRACT, ORCA_ROLE } from './prompts/orca.js';
import { PLANNER_CONTRACT, PLANNER_ROLE } from './prompts/planner.js';
import {
  CONSULT_CONTRACT,
  SPECIALIST_ROLES,
  STEP_CONTRACT,
  specialistConsultPrompt,
  specialistStepPrompt,
} from './prompts/specialists.js';
import { SPECIALIST_AGENTS, readOnlyAgentId, type AgentId, type InstalledAgentId, type SpecialistAgent } from './roles.js';

/** What Orca itself defines for one agent, before any user setting. */
export interface AgentBlueprint {
  id: InstalledAgentId;
  /** The role whose permissions apply; read-only twins use "readonly". */
  role: AgentId | 'readonly';
  /** The specialist a read-only twin stands for. */
  specialist?: SpecialistAgent;
  mode: 'primary' | 'subagent';
  description: string;
  hidden: boolean;
  /** Who the agent is and how it works; a user's `prompt` replaces this part. */
  role_prompt: string;
  /** What it must return; always kept, because the plugin parses it. */
  contract: string;
}

/** The full prompt: marker line, role (Orca's or the user's), contract. */
export function composePrompt(id: string, rolePrompt: string, contract: string): string {
  return `${agentMarker(id)}\n${rolePrompt.trim()}\n\n${contract}`;
}

function specialist(agent: SpecialistAgent): AgentBlueprint {
  return {
    id: agent,
    role: agent,
    mode: 'subagent',
    description: SPECIALIST_ROLES[agent].description,
    hidden: false,
    role_prompt: specialistStepPrompt(agent),
    contract: STEP_CONTRACT,
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

/** Every agent Orca installs, keyed by agent id. */
export function agentBlueprints(): Record<InstalledAgentId, AgentBlueprint> {
  const list: AgentBlueprint[] = [
    {
      id: 'orca',
      role: 'orca',
      mode: 'primary',
      description: 'Orca: routes your requests to a planner and a supervised team; plans run after your approval.',
      hidden: false,
      role_prompt: ORCA_ROLE,
      contract: ORCA_CONTRACT,
    },
    {
      id: 'planner',
      role: 'planner',
      mode: 'subagent',
      description: 'Orca planner: answers, asks clarifying questions, or drafts a step-by-step plan; never executes.',
      hidden: false,
      role_prompt: PLANNER_ROLE,
      contract: PLANNER_CONTRACT,
    },
    ...SPECIALIST_AGENTS.map(specialist),
    ...SPECIALIST_AGENTS.map(readOnlyTwin),
  ];
  return Object.fromEntries(list.map((b) => [b.id, b])) as Record<InstalledAgentId, AgentBlueprint>;
}
