import type { TurnRole, Usage } from '../machines/usage.js';

/** Who a turn was for: the plan's planner, or one of a step's roles (its specialist, reviewer or fixer, or a read-only ask). */
export type TurnRecordRole = 'planner' | 'verifier' | TurnRole;

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
  /** What this prompt cost; nothing (no turn) on a line that records no prompt (`counted`, or `uncounted` of a turn stopped between prompts). */
  usage: Usage;
  /**
   * The turn was stopped (its plan released by Esc or a server stopping, or its chart leaving the
   * state) before this prompt answered: `usage` is what OpenCode recorded of its model requests.
   * Without `usage.turns`, the turn was stopped between prompts.
   */
  aborted?: true;
  /**
   * What the stopped turn had cost (every prompt of it, this one included) and its plan's usage has
   * not counted: the plan was no longer running. Counted when the plan runs the turn again (resumed).
   */
  uncounted?: Usage;
  /** The plan's usage now counts what earlier stopped runs of this turn left `uncounted` (a resumed plan running the turn again). */
  counted?: Usage;
}

export type OnTurn = (record: TurnRecord) => void;

/** Usage of one of a plan's turns that its machine did not get with the turn's result. */
export interface UncountedTurnUsage {
  plan_id: string;
  step_id?: string;
  role: Exclude<TurnRecordRole, 'ask'>;
  usage: Usage;
}

/** Counts usage in its plan if the plan runs here now (its `usage.recorded` event); false when it does not. */
export type CountInPlan = (record: UncountedTurnUsage) => boolean;

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
