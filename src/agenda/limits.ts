/**
 * The safety rails' limits, with their defaults (docs/design.md, "Safety rails"). Named as the
 * options will be in orca.jsonc (`agenda.*`), and as a refusal names its rule: `BLOCKED [name]`.
 */
export interface AgendaLimits {
  /** Pending items in the project (cron items count while they wait for their next firing). */
  max_pending_project: number;
  /** Pending items of one session (a command action's sessionId, else the session that created it). */
  max_pending_per_session: number;
  /** A time item within this many seconds of another pending time item is refused; a cron item may not fire more often. */
  min_interval_seconds: number;
  /** Pending event items listening to one kind. */
  max_pending_per_event_kind: number;
  /** Bus events one session may emit in any hour (the agenda tool's emit, and emit actions of its items). */
  max_emits_per_session_per_hour: number;
  /** Cascade hops: an item made by, or fired by an event of, an item at depth d is at depth d + 1; depth ≥ this is refused. */
  max_cascade_depth: number;
  /** Plans the agenda may start in any 24 hours. */
  max_plans_per_day: number;
}

export const DEFAULT_AGENDA_LIMITS: Readonly<AgendaLimits> = Object.freeze({
  max_pending_project: 30,
  max_pending_per_session: 10,
  min_interval_seconds: 60,
  max_pending_per_event_kind: 5,
  max_emits_per_session_per_hour: 30,
  max_cascade_depth: 8,
  max_plans_per_day: 20,
});

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
