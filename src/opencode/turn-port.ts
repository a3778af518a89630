import type { TurnRole, Usage } from '../machines/usage.js';

/** Who a turn was for: the plan's planner, or one of a step's roles (its specialist, reviewer or fixer, or a read-only ask). */
export type TurnRecordRole = 'planner' | TurnRole;

/** One prompt Orca sent and what it cost (the turn runner reports each, turn-runner.ts): a line of the plan's journal and of the project's usage history. */
export interface TurnRecord {
  plan_id?: string;
  step_id?: string;
  role: TurnRecordRole;
  /** The agent the prompt went to (a read-only ask's twin is `coder.readonly`, …). */
  agent: string;
  session_id: string;
  idempotency_key?: string;
  /** A correction prompt after a reply that did not validate. */
  correction: boolean;
  usage: Usage;
}

export type OnTurn = (record: TurnRecord) => void;

/** A turn whose answer was accepted with slips forgiven (protocol/normalize-output.ts): a line of the plan's journal. */
export interface CoercionRecord {
  plan_id: string;
  step_id?: string;
  role: TurnRecordRole;
  agent: string;
  session_id: string;
  /** What was forgiven, in words: `JSONC: comments removed`, `key_findings: a string taken as a one-item list`. */
  coerced: string[];
}

export type OnCoercion = (record: CoercionRecord) => void;
