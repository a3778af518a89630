import type { TurnPort } from '../dispatch/structured-turn.js';
import type { Usage } from '../machines/usage.js';
import type { SessionsPort } from './sessions.js';

/** Who a turn was for: the plan's planner, a step's specialist, its reviewer or fixer, or a read-only ask. */
export type TurnRole = 'planner' | 'specialist' | 'reviewer' | 'fixer' | 'ask';

/** One prompt Orca sent and what it cost: a line of the plan's journal and of the project's usage history. */
export interface TurnRecord {
  plan_id?: string;
  step_id?: string;
  role: TurnRole;
  /** The agent the prompt went to (a read-only ask's twin is `coder.readonly`, …). */
  agent: string;
  session_id: string;
  idempotency_key?: string;
  /** A correction prompt after a reply that did not validate. */
  correction: boolean;
  usage: Usage;
}

export type OnTurn = (record: TurnRecord) => void;

/** A session's prompts for one turn (the first prompt, then its corrections), each reported to `onTurn` once answered. */
export function recordingTurnPort(
  sessions: SessionsPort,
  who: Omit<TurnRecord, 'correction' | 'usage' | 'agent'> & { agent: string },
  onTurn: OnTurn | undefined,
): TurnPort {
  let prompts = 0;
  return {
    async prompt(text, { jsonSchema, signal }) {
      const reply = await sessions.prompt({ sessionID: who.session_id, agent: who.agent, text, jsonSchema, ...(signal ? { signal } : {}) });
      prompts += 1;
      onTurn?.({ ...who, correction: prompts > 1, usage: reply.usage });
      return reply;
    },
  };
}
