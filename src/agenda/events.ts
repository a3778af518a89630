import { z } from 'zod';
import type { AgendaItemEvent } from '../machines/agenda-item.machine.js';
import { isAgendaId, isEventId } from './ids.js';
import { actionSchema, KIND, triggerSchema } from './schema.js';

/**
 * The lines of `.opencode/agenda/events.jsonl` (StoreEvent, discriminated on `type`): the six
 * of the original agenda plugin (created, cancelled, executed, failed, expired, bus.emitted) plus
 * `agenda.started`, written before an action runs. Every line carries `at` (ISO 8601).
 * An item's lines are the events of its statechart (agenda-item.machine.ts).
 */

const at = z.iso.datetime({ offset: true });
const agendaId = z.string().refine(isAgendaId, 'expected an agendaId ("agn_" + 26 ULID characters)');
const firing = z.number().int().min(1);
/** How many cascade hops led here: 0 for what a human, a model or Orca did, parent + 1 for what an item did. */
const depth = z.number().int().min(0);
/** The firing of the item whose `schedule` or `cancel` action wrote this line. */
const cause = z.object({ agendaId, firing });

export const createdLineSchema = z.object({
  type: z.literal('agenda.created'),
  at,
  agendaId,
  trigger: triggerSchema,
  action: actionSchema,
  reason: z.string(),
  /** Who created it: a session id, "cli", or "agenda:<agendaId>" for a `schedule` action. */
  createdBy: z.string().min(1),
  /** The session the item belongs to, for max_pending_per_session (a command action's sessionId wins). */
  sessionId: z.string().min(1).optional(),
  depth,
  cause: cause.optional(),
});

export const startedLineSchema = z.object({
  type: z.literal('agenda.started'),
  at,
  agendaId,
  firing,
  /** The time this firing was due (time and cron triggers). */
  dueAt: at.optional(),
  /** It ran well after it was due: the server was down or the agenda paused. */
  late: z.boolean().optional(),
  /** Cron slots that passed since the last firing, when more than one (no server ran, or paused): this one firing stands for them all. */
  missed: z.number().int().min(2).optional(),
  /** The bus event that fired it: `kind` or `kind:subject`. */
  triggeredByEvent: z.string().optional(),
  depth,
});

export const executedLineSchema = z.object({
  type: z.literal('agenda.executed'),
  at,
  agendaId,
  firing,
  result: z.string(),
  triggeredByEvent: z.string().optional(),
  actualSessionId: z.string().optional(),
  /** The plan a `plan` action created, or a `resume` action continued. */
  planId: z.string().optional(),
  /** Written at start-up for a firing that was started before a crash, from what the reconcile port found. */
  reconciled: z.boolean().optional(),
});

export const failedLineSchema = z.object({
  type: z.literal('agenda.failed'),
  at,
  agendaId,
  firing,
  error: z.string(),
  triggeredByEvent: z.string().optional(),
  reconciled: z.boolean().optional(),
});

export const cancelledLineSchema = z.object({
  type: z.literal('agenda.cancelled'),
  at,
  agendaId,
  reason: z.string(),
  cause: cause.optional(),
});
export const expiredLineSchema = z.object({ type: z.literal('agenda.expired'), at, agendaId });

export const busEmittedLineSchema = z.object({
  type: z.literal('bus.emitted'),
  at,
  eventId: z.string().refine(isEventId, 'expected an eventId ("evt_" + 26 ULID characters)'),
  kind: z.string().regex(KIND),
  /** What the event is about: a plan_id for Orca's lifecycle events. */
  subject: z.string().min(1).optional(),
  message: z.string(),
  /** The session that emitted it (the agenda tool's emit, or the session of an emitting item). */
  sessionId: z.string().min(1).optional(),
  source: z.enum(['tool', 'action', 'cli', 'orca']),
  /** The item whose `emit` action sent it, and that firing. */
  agendaId: agendaId.optional(),
  firing: firing.optional(),
  depth,
});

export const storeEventSchema = z.discriminatedUnion('type', [
  createdLineSchema,
  startedLineSchema,
  executedLineSchema,
  failedLineSchema,
  cancelledLineSchema,
  expiredLineSchema,
  busEmittedLineSchema,
]);

export type CreatedLine = z.infer<typeof createdLineSchema>;
export type StartedLine = z.infer<typeof startedLineSchema>;
export type ExecutedLine = z.infer<typeof executedLineSchema>;
export type FailedLine = z.infer<typeof failedLineSchema>;
export type CancelledLine = z.infer<typeof cancelledLineSchema>;
export type ExpiredLine = z.infer<typeof expiredLineSchema>;
export type BusEmittedLine = z.infer<typeof busEmittedLineSchema>;
export type StoreEvent = z.infer<typeof storeEventSchema>;
/** The lines that move an existing item: the events of its statechart. */
export type ItemLine = StartedLine | ExecutedLine | FailedLine | CancelledLine | ExpiredLine;

/** Every stored item line is an event the item's chart takes (a schema change that breaks this fails the build). */
export type ItemLinesFitTheChart = ItemLine extends AgendaItemEvent ? true : never;
const itemLinesFitTheChart: ItemLinesFitTheChart = true;
void itemLinesFitTheChart;
