import { z } from 'zod';
import { KIND_OR_SUBJECT } from '../agenda/schema.js';
import { defineTool } from './define-tool.js';
import { agendaToolError, type AgendaOrca } from './agenda-shared.js';

export function agendaEventsTool(orca: Pick<AgendaOrca, 'agenda'>) {
  return defineTool({
    name: 'agenda_events',
    description: "The latest events on the agenda's bus, oldest first: kind (and subject), message, source and time.",
    args: {
      limit: z.number().int().min(1).max(200).optional().describe('How many of the latest events (default 20).'),
      kindFilter: z.string().regex(KIND_OR_SUBJECT).optional().describe('Only events matching this kind, or kind:subject.'),
    },
    expected: {
      limit: 'an integer from 1 to 200',
      kindFilter: 'an event kind like "tests.failed", or "kind:subject"',
    },
    async execute({ limit = 20, kindFilter }) {
      try {
        const events = orca.agenda.events({ limit, ...(kindFilter ? { kindFilter } : {}) });
        return JSON.stringify({ count: events.length, events }, null, 2);
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
