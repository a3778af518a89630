import { dueCronSlot, nextFiring } from './cron.js';
import { eventLabel, satisfiedBy } from './matching.js';
import type { AgendaReader, BusRecord, ItemRecord } from './store.js';

/**
 * Which pending items are due now, derived from the log alone: a time item once its time has
 * come, a cron item once its next slot has come, an event item once the bus events since its
 * creation satisfy its trigger. Nothing to remember between ticks, so what came due while no
 * server ran (or while the agenda was paused) is due at the next tick, and marked late.
 */

export interface DueFiring {
  agendaId: string;
  /** The firing this run will be (1 for one-shot items). */
  firing: number;
  /** When it was due (time and cron triggers), ISO 8601. */
  dueAt?: string;
  /** It runs at least `lateAfterMs` after it was due. */
  late: boolean;
  /** Cron slots that passed since the last firing, when more than one: they fire once, now. */
  missed?: number;
  triggeredByEvent?: string;
  /** The cascade depth it runs at: its own, or that of the events that fired it if deeper. */
  depth: number;
  /** When it became due (ms): its due time, or the time of the event that fired it. */
  since: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function dueFiringOf(record: ItemRecord, reader: AgendaReader, nowMs: number, lateAfterMs: number): DueFiring | null {
  if (record.snapshot.value !== 'pending') return null;
  const { created } = record;
  const trigger = created.trigger;
  const base = { agendaId: created.agendaId, firing: record.snapshot.context.firing + 1, depth: created.depth };
  switch (trigger.type) {
    case 'time': {
      const at = Date.parse(trigger.executeAt);
      return at <= nowMs ? { ...base, dueAt: iso(at), late: nowMs - at >= lateAfterMs, since: at } : null;
    }
    case 'cron': {
      const due = dueCronSlot(trigger, cronAnchor(record), nowMs);
      if (!due) return null;
      const late = nowMs - due.firstDueAt >= lateAfterMs;
      return { ...base, dueAt: iso(due.dueAt), late, ...(due.slots > 1 ? { missed: due.slots } : {}), since: due.firstDueAt };
    }
    case 'event': {
      const fired = firedBeforeExpiry(record, reader);
      if (!fired) return null;
      const at = Date.parse(fired.firing.at);
      return {
        ...base,
        late: nowMs - at >= lateAfterMs,
        since: at,
        triggeredByEvent: eventLabel(fired.firing),
        depth: Math.max(created.depth, ...fired.used.map((e) => e.depth)),
      };
    }
  }
}

/** Due firings in the order they came due (creation order between equals): a wave runs the earliest first. */
export function dueFirings(reader: AgendaReader, nowMs: number, lateAfterMs: number): DueFiring[] {
  return reader
    .items()
    .flatMap((r) => dueFiringOf(r, reader, nowMs, lateAfterMs) ?? [])
    .sort((a, b) => a.since - b.since);
}

/** Pending event items past their expiresAt that no event fired in time. */
export function expiring(reader: AgendaReader, nowMs: number): string[] {
  return reader
    .items()
    .filter((r) => {
      const t = r.created.trigger;
      return r.snapshot.value === 'pending' && t.type === 'event' && t.expiresAt !== undefined && Date.parse(t.expiresAt) <= nowMs;
    })
    .filter((r) => !firedBeforeExpiry(r, reader))
    .map((r) => r.created.agendaId);
}

/** The events that fire an event item, if they came before it expired. */
function firedBeforeExpiry(record: ItemRecord, reader: AgendaReader): { firing: BusRecord; used: BusRecord[] } | null {
  const trigger = record.created.trigger;
  if (trigger.type !== 'event') return null;
  const fired = satisfiedBy(trigger, record.seq, (p, after) => reader.firstMatch(p, after));
  if (!fired) return null;
  return trigger.expiresAt === undefined || Date.parse(fired.firing.at) < Date.parse(trigger.expiresAt) ? fired : null;
}

/** A cron item's next firing is counted from the slot of its last one, or from its creation. */
const cronAnchor = (record: ItemRecord) => Date.parse(record.snapshot.context.dueAt ?? record.created.at);

/** When a pending item is next due, for lists (null for event items and finished ones). */
export function nextDueAt(record: ItemRecord): string | null {
  if (record.snapshot.value !== 'pending') return null;
  const trigger = record.created.trigger;
  if (trigger.type === 'time') return trigger.executeAt;
  if (trigger.type === 'cron') {
    const next = nextFiring(trigger, cronAnchor(record));
    return next === null ? null : iso(next);
  }
  return null;
}
