import { z } from 'zod';
import { KIND_OR_SUBJECT } from '../agenda/schema.js';
import { defineTool } from './define-tool.js';
import { agendaToolError, ownerSession, queuedNote, type AgendaOrca } from './agenda-shared.js';

export function agendaEmitTool(orca: AgendaOrca) {
  return defineTool({
    name: 'agenda_emit',
    description:
      'Emit an event on the agenda\'s bus ("tests.failed", or "kind:subject" like "deploy.done:prod"); pending items waiting for it fire. Costs no model call. Each session may emit a limited number per hour.',
    args: {
      kind: z.string().regex(KIND_OR_SUBJECT).describe('The event: dotted words, optionally ":subject".'),
      message: z.string().max(10_000).describe('What happened, for the items it fires and agenda_events.'),
    },
    expected: {
      kind: 'an event kind like "tests.failed", or "kind:subject" like "deploy.done:prod" (no spaces)',
      message: 'a string of at most 10,000 characters',
    },
    async execute({ kind, message }, ctx) {
      try {
        const outcome = await orca.agenda.request({ op: 'emit', kind, message, sessionId: await ownerSession(orca, ctx), source: 'tool' });
        if (outcome.status === 'queued') return queuedNote(outcome);
        if (outcome.reply.op !== 'emit' || !outcome.reply.event) throw new Error('the agenda recorded no event');
        const { eventId, event, at } = outcome.reply.event;
        return JSON.stringify({ emitted: event, eventId, at });
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
