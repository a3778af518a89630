import { prepareCreated } from './create.js';
import type { DueFiring } from './due.js';
import { AgendaInputError, AgendaStateError } from './errors.js';
import type { BusEmittedLine, StoreEvent } from './events.js';
import type { AgendaLimits } from './limits.js';
import { eventLabel, parsePattern } from './matching.js';
import { checkEmit, sessionOf } from './rails.js';
import type { InProcessAction } from './schema.js';
import type { AgendaReader, ItemRecord } from './store.js';

/**
 * emit, cancel and schedule run in the plugin process and cost no model call: their whole effect
 * is lines of the log, which the scheduler appends in the same write as `agenda.started` and
 * `agenda.executed`. Each effect line names the firing that caused it, so a torn write can be
 * reconciled by looking for it.
 */

export interface InProcessContext {
  reader: AgendaReader;
  limits: AgendaLimits;
  nowMs: number;
  record: ItemRecord;
  due: DueFiring;
  newAgendaId: (nowMs: number) => string;
  newEventId: (nowMs: number) => string;
}

export interface InProcessEffect {
  lines: StoreEvent[];
  result: string;
}

/** The lines an in-process action writes; throws (BLOCKED by a rail, or a state error) when it cannot run. */
export function inProcessEffect(action: InProcessAction, ctx: InProcessContext): InProcessEffect {
  const { reader, limits, nowMs, record, due } = ctx;
  const cause = { agendaId: record.created.agendaId, firing: due.firing };
  const at = new Date(nowMs).toISOString();
  switch (action.type) {
    case 'emit': {
      const session = sessionOf(record.created);
      checkEmit(reader, session, limits, nowMs);
      const { kind, subject } = parsePattern(action.kind);
      const line: BusEmittedLine = {
        type: 'bus.emitted',
        at,
        eventId: ctx.newEventId(nowMs),
        kind,
        ...(subject !== undefined ? { subject } : {}),
        message: action.message,
        ...(session !== undefined ? { sessionId: session } : {}),
        source: 'action',
        ...cause,
        depth: due.depth + 1,
      };
      return { lines: [line], result: `emitted ${eventLabel(line)}` };
    }
    case 'cancel': {
      const target = reader.item(action.scheduleId);
      if (!target) throw new AgendaInputError(`cancel: ${action.scheduleId} does not exist (/agenda or orca agenda lists the items)`);
      if (target.snapshot.value !== 'pending') {
        throw new AgendaStateError(`cancel: ${action.scheduleId} is ${String(target.snapshot.value)}; only a pending item can be cancelled`);
      }
      return {
        lines: [{ type: 'agenda.cancelled', at, agendaId: action.scheduleId, reason: action.reason, cause }],
        result: `cancelled ${action.scheduleId}`,
      };
    }
    case 'schedule': {
      const created = prepareCreated(
        reader,
        {
          trigger: action.trigger,
          action: action.action,
          reason: action.reason,
          createdBy: `agenda:${record.created.agendaId}`,
          ...(record.created.sessionId !== undefined ? { sessionId: record.created.sessionId } : {}),
          depth: due.depth + 1,
          cause,
        },
        limits,
        nowMs,
        ctx.newAgendaId(nowMs),
      );
      return { lines: [created], result: `scheduled ${created.agendaId}` };
    }
  }
}

/** After a torn write: did this firing's effect reach the log? */
export function effectRecorded(reader: AgendaReader, record: ItemRecord, firing: number): boolean {
  const id = record.created.agendaId;
  const caused = (c?: { agendaId: string; firing: number }) => c?.agendaId === id && c.firing === firing;
  switch (record.created.action.type) {
    case 'emit':
      return reader.bus().some((e) => e.agendaId === id && e.firing === firing);
    case 'schedule':
      return reader.items().some((r) => caused(r.created.cause));
    case 'cancel': {
      const target = reader.item(record.created.action.scheduleId);
      return target?.lines.some((l) => l.type === 'agenda.cancelled' && caused(l.cause)) ?? false;
    }
    default:
      return false;
  }
}
