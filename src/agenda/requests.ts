import { z } from 'zod';
import type { Agenda } from './agenda.js';
import { AgendaBlockedError, AgendaInputError, AgendaStateError } from './errors.js';
import type { AgendaItemView, BusEventView } from './view.js';
import { errorMessage } from '../errors.js';

/**
 * What tools, slash commands and the CLI ask of the agenda that changes it: one union, so the
 * same request runs on the Agenda this process holds or travels through the inbox to the process
 * that holds it (see inbox.ts). Reads never travel: they read the log.
 */

const text = z.string().max(20_000);

export const agendaRequest = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('create'),
    trigger: z.unknown(),
    action: z.unknown(),
    reason: text,
    createdBy: z.string().min(1).max(200),
    sessionId: z.string().min(1).max(200).optional(),
  }),
  z.object({ op: z.literal('cancel'), agendaId: z.string().max(200), reason: text.optional() }),
  z.object({ op: z.literal('clear'), reason: text.optional() }),
  z.object({ op: z.literal('pause') }),
  z.object({ op: z.literal('resume') }),
  z.object({
    op: z.literal('emit'),
    kind: z.string().max(400),
    message: text,
    sessionId: z.string().min(1).max(200).optional(),
    source: z.enum(['tool', 'cli']),
  }),
  z.object({ op: z.literal('publish'), kind: z.string().max(100), subject: z.string().max(200), message: text, depth: z.number().int().min(0) }),
]);

export type AgendaRequest = z.infer<typeof agendaRequest>;

export type AgendaReply =
  | { op: 'create' | 'cancel'; item: AgendaItemView }
  | { op: 'clear'; items: AgendaItemView[] }
  | { op: 'pause' | 'resume'; paused: boolean }
  | { op: 'emit' | 'publish'; event: BusEventView | null };

/** A refusal as it travels between processes: its class name, its message, and a rail's rule. */
export interface AgendaFailure {
  name: string;
  message: string;
  rule?: string;
}

/** Run a request on the agenda this process holds; throws what the agenda throws. */
export function applyRequest(agenda: Agenda, request: AgendaRequest): AgendaReply {
  switch (request.op) {
    case 'create': {
      const { op, ...item } = request;
      return { op, item: agenda.create(item) };
    }
    case 'cancel':
      return { op: 'cancel', item: agenda.cancel(request.agendaId, request.reason) };
    case 'clear':
      return { op: 'clear', items: agenda.clear(request.reason) };
    case 'pause':
      agenda.pause();
      return { op: 'pause', paused: true };
    case 'resume':
      agenda.resume();
      return { op: 'resume', paused: false };
    case 'emit':
      return { op: 'emit', event: agenda.emit(request.kind, request.message, { ...(request.sessionId ? { sessionId: request.sessionId } : {}), source: request.source }) };
    case 'publish':
      return { op: 'publish', event: agenda.publish(request.kind, request.subject, request.message, { depth: request.depth }) };
  }
}

export function toAgendaFailure(error: unknown): AgendaFailure {
  const name = error instanceof Error ? error.name : 'Error';
  return { name, message: errorMessage(error), ...(error instanceof AgendaBlockedError ? { rule: error.rule } : {}) };
}

/** The error again, on the side that asked: a BLOCKED refusal stays an AgendaBlockedError. */
export function fromAgendaFailure(failure: AgendaFailure): Error {
  if (failure.name === 'AgendaBlockedError' && failure.rule) {
    const why = failure.message.replace(/^BLOCKED \[[^\]]*\]: /, '');
    return new AgendaBlockedError(failure.rule, why);
  }
  const ErrorClass = failure.name === 'AgendaStateError' ? AgendaStateError : failure.name === 'AgendaInputError' ? AgendaInputError : Error;
  const error = new ErrorClass(failure.message);
  if (ErrorClass === Error) error.name = failure.name;
  return error;
}
