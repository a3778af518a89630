import { z } from 'zod';
import { KIND_OR_SUBJECT } from '../agenda/schema.js';
import { agendaOp, type AgendaOrca } from './agenda-shared.js';

/** `agenda` op events: the latest events on the agenda's bus, oldest first (seed 002's agenda_events). */
export function agendaEventsOp(orca: Pick<AgendaOrca, 'agenda'>) {
  return agendaOp({
    args: {
      kind: z.string().regex(KIND_OR_SUBJECT).optional(),
      limit: z.number().int().min(1).max(200).optional(),
    },
    expected: {
      kind: 'only events of this kind, or kind:subject, like "tests.failed"',
      limit: 'an integer from 1 to 200: how many of the latest (default 20)',
    },
    async run({ kind, limit = 20 }) {
      const events = orca.agenda.events({ limit, ...(kind ? { kindFilter: kind } : {}) });
      return JSON.stringify({ count: events.length, events }, null, 2);
    },
  });
}
