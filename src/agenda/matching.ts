import type { EventTrigger } from './schema.js';

/**
 * The bus: an event has a `kind` ("tests.passed", "plan.completed") and an optional `subject`
 * (the plan_id for Orca's lifecycle events). A trigger names what it waits for as `kind`, which
 * matches any subject, or `kind:subject`, which matches only that subject. `emit` takes the same
 * form: emitting "deploy.done:prod" sends kind "deploy.done" with subject "prod".
 */

export interface MatchPattern {
  kind: string;
  subject?: string;
}

export interface BusEventLike {
  kind: string;
  subject?: string;
}

/** "kind" or "kind:subject" (the subject is everything after the first colon). */
export function parsePattern(text: string): MatchPattern {
  const colon = text.indexOf(':');
  return colon < 0 ? { kind: text } : { kind: text.slice(0, colon), subject: text.slice(colon + 1) };
}

export const matches = (pattern: MatchPattern, event: BusEventLike) =>
  pattern.kind === event.kind && (pattern.subject === undefined || pattern.subject === event.subject);

/** How an event is written in `triggeredByEvent` and in lists: "kind" or "kind:subject". */
export const eventLabel = (event: BusEventLike) => (event.subject === undefined ? event.kind : `${event.kind}:${event.subject}`);

export const patternsOf = (trigger: EventTrigger): MatchPattern[] =>
  (Array.isArray(trigger.eventKind) ? trigger.eventKind : [trigger.eventKind]).map(parsePattern);

/** The kinds a trigger listens to, each once: what max_pending_per_event_kind counts. */
export const kindsOf = (trigger: EventTrigger): string[] => [...new Set(patternsOf(trigger).map((p) => p.kind))];

export interface Sequenced {
  /** The event's position in the log: later events have larger numbers. */
  seq: number;
}

/**
 * The events that fire an item created at `createdSeq`, or null while it waits: with `any` the
 * first matching event after its creation; with `all` the first match of every pattern, the last
 * of which fires it. `firstMatch` finds the first event after a position that matches a pattern.
 */
export function satisfiedBy<E extends BusEventLike & Sequenced>(
  trigger: EventTrigger,
  createdSeq: number,
  firstMatch: (pattern: MatchPattern, afterSeq: number) => E | undefined,
): { firing: E; used: E[] } | null {
  const found = patternsOf(trigger).map((p) => firstMatch(p, createdSeq));
  if ((trigger.matchMode ?? 'any') === 'any') {
    const earliest = found.filter((e): e is E => e !== undefined).sort((a, b) => a.seq - b.seq)[0];
    return earliest ? { firing: earliest, used: [earliest] } : null;
  }
  if (found.some((e) => e === undefined)) return null;
  const used = found as E[];
  const firing = used.reduce((last, e) => (e.seq > last.seq ? e : last));
  return { firing, used };
}
