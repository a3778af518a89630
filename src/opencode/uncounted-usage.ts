import { addUsage, ZERO_USAGE, type Usage } from '../machines/usage.js';
import { readJournal, type JournalEntry } from '../persistence/journal.js';

/** One of a plan's turns as its journal's `turn` lines name it: the same role, session and idempotency key. */
export interface TurnIdentity {
  planId: string;
  role: string;
  sessionId: string;
  idempotencyKey?: string;
}

/**
 * What runs of a turn stopped before their result (Esc released the plan, a server stopped) cost
 * and their plan's usage has not counted yet: the turn runner counts it when the plan runs the
 * turn again, and says so in the journal (`counted`), so it is counted once.
 */
export interface UncountedUsage {
  of(turn: TurnIdentity): Usage;
}

type TurnLine = Pick<Extract<JournalEntry, { kind: 'turn' }>, 'role' | 'session_id' | 'idempotency_key' | 'uncounted' | 'counted'>;

/** From a plan's `turn` lines, oldest first: the `uncounted` of the turn's stopped runs since the line that `counted` them. */
export function uncountedOf(lines: Iterable<TurnLine>, turn: Omit<TurnIdentity, 'planId'>): Usage {
  let owed = ZERO_USAGE;
  for (const line of lines) {
    if (line.role !== turn.role || line.session_id !== turn.sessionId || line.idempotency_key !== turn.idempotencyKey) continue;
    if (line.counted) owed = ZERO_USAGE;
    if (line.uncounted) owed = addUsage(owed, line.uncounted);
  }
  return owed;
}

/**
 * Read from the plan's journal each time, so what another server wrote (it ran the plan before
 * this one) counts too. Asked only for a turn that may have run before: a restored one.
 */
export function journalUncountedUsage(journalPathOf: (planId: string) => string): UncountedUsage {
  return {
    of: ({ planId, ...turn }) =>
      uncountedOf(
        readJournal(journalPathOf(planId)).filter((e): e is Extract<JournalEntry, { kind: 'turn' }> => e.kind === 'turn'),
        turn,
      ),
  };
}
