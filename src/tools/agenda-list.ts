import { z } from 'zod';
import { nextDue } from '../agenda/describe.js';
import { defineTool } from './define-tool.js';
import { agendaToolError, itemJson, type AgendaOrca } from './agenda-shared.js';

const STATUSES = ['active', 'all', 'pending', 'running', 'executed', 'failed', 'cancelled', 'expired'] as const;

export function agendaListTool(orca: Pick<AgendaOrca, 'agenda'>) {
  return defineTool({
    name: 'agenda_list',
    description:
      "List the project's agenda items, oldest first: by default the active ones (pending or running), with their trigger, action, reason, next due time and last result; whether the agenda is paused.",
    args: {
      status: z.enum(STATUSES).optional().describe('Which items: active (default), all, or one status.'),
      limit: z.number().int().min(1).max(200).optional().describe('At most this many, the most recent (default 50).'),
    },
    expected: {
      status: `one of ${STATUSES.join(', ')}`,
      limit: 'an integer from 1 to 200',
    },
    async execute({ status = 'active', limit = 50 }) {
      try {
        const items = orca.agenda.list({ status });
        const shown = items.slice(Math.max(0, items.length - limit));
        return JSON.stringify(
          {
            paused: orca.agenda.paused,
            total: items.length,
            next_due: nextDue(items),
            ...(shown.length < items.length ? { note: `the ${shown.length} most recent of ${items.length}` } : {}),
            items: shown.map(itemJson),
          },
          null,
          2,
        );
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
