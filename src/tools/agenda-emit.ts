import { z } from 'zod';
import { KIND_OR_SUBJECT } from '../agenda/schema.js';
import { agendaOp, ownerSession, queuedNote, type AgendaOrca } from './agenda-shared.js';

/**
 * `agenda` op emit: an event on the agenda's bus; pending items waiting for it fire. Costs no model
 * call; a session may emit a limited number per hour (seed 002's agenda_emit).
 */
export function agendaEmitOp(orca: AgendaOrca) {
  return agendaOp({
    args: {
      kind: z.string().regex(KIND_OR_SUBJECT),
      message: z.string().max(10_000),
    },
    expected: {
      kind: 'an event kind like "tests.failed", or "kind:subject" like "deploy.done:prod" (no spaces)',
      message: 'a string of at most 10,000 characters: what happened',
    },
    async run({ kind, message }, ctx) {
      const outcome = await orca.agenda.request({ op: 'emit', kind, message, sessionId: await ownerSession(orca, ctx), source: 'tool' });
      if (outcome.status === 'queued') return queuedNote(outcome);
      if (outcome.reply.op !== 'emit' || !outcome.reply.event) throw new Error('the agenda recorded no event');
      const { eventId, event, at } = outcome.reply.event;
      return JSON.stringify({ emitted: event, eventId, at });
    },
  });
}
