import type { AgendaItemStatus } from '../machines/agenda-item.machine.js';
import { nextDueAt } from './due.js';
import { statusOf } from './fold.js';
import { eventLabel } from './matching.js';
import type { Action, Trigger } from './schema.js';
import type { BusRecord, ItemRecord } from './store.js';

/** What lists, tools and the CLI show of an item and of a bus event: plain JSON, no snapshot. */

export interface AgendaItemView {
  agendaId: string;
  status: AgendaItemStatus;
  trigger: Trigger;
  action: Action;
  reason: string;
  createdBy: string;
  sessionId?: string;
  createdAt: string;
  depth: number;
  /** Firings started so far. */
  firings: number;
  /** When it is next due (time and cron items still pending). */
  nextDueAt: string | null;
  /** When the last firing started (absent before the first). */
  lastFiredAt?: string;
  /** The last firing ran late. */
  late: boolean;
  lastResult: string | null;
  lastError: string | null;
  planId: string | null;
  cancelReason: string | null;
}

export function itemView(record: ItemRecord): AgendaItemView {
  const { created } = record;
  const c = record.snapshot.context;
  return {
    agendaId: created.agendaId,
    status: statusOf(record.snapshot),
    trigger: created.trigger,
    action: created.action,
    reason: created.reason,
    createdBy: created.createdBy,
    ...(created.sessionId !== undefined ? { sessionId: created.sessionId } : {}),
    createdAt: created.at,
    depth: created.depth,
    firings: c.firing,
    nextDueAt: nextDueAt(record),
    ...(c.startedAt !== null ? { lastFiredAt: c.startedAt } : {}),
    late: c.late,
    lastResult: c.lastResult,
    lastError: c.lastError,
    planId: c.planId,
    cancelReason: c.cancelReason,
  };
}

export interface BusEventView {
  eventId: string;
  at: string;
  /** "kind" or "kind:subject", as triggers match it. */
  event: string;
  kind: string;
  subject?: string;
  message: string;
  source: BusRecord['source'];
  sessionId?: string;
  agendaId?: string;
}

export function busView(e: BusRecord): BusEventView {
  return {
    eventId: e.eventId,
    at: e.at,
    event: eventLabel(e),
    kind: e.kind,
    ...(e.subject !== undefined ? { subject: e.subject } : {}),
    message: e.message,
    source: e.source,
    ...(e.sessionId !== undefined ? { sessionId: e.sessionId } : {}),
    ...(e.agendaId !== undefined ? { agendaId: e.agendaId } : {}),
  };
}
