import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { agendaToolError, itemJson, queuedNote, type AgendaOrca } from './agenda-shared.js';

export function agendaCancelTool(orca: Pick<AgendaOrca, 'agenda'>) {
  return defineTool({
    name: 'agenda_cancel',
    description: 'Cancel a pending agenda item by its agendaId (agenda_list shows them). A running firing finishes first.',
    args: {
      agendaId: z.string().regex(/^agn_[0-9A-HJKMNP-TV-Z]{26}$/).describe('The item, as agenda_list or agenda_create returned it.'),
      reason: z.string().max(1000).optional().describe('Why it is cancelled.'),
    },
    expected: {
      agendaId: 'an agendaId: "agn_" followed by 26 ULID characters, as listed by agenda_list',
      reason: 'a string of at most 1000 characters',
    },
    async execute({ agendaId, reason }) {
      try {
        const outcome = await orca.agenda.request({ op: 'cancel', agendaId, ...(reason ? { reason } : {}) });
        if (outcome.status === 'queued') return queuedNote(outcome);
        if (outcome.reply.op !== 'cancel') throw new Error(`unexpected reply ${outcome.reply.op}`);
        return JSON.stringify({ cancelled: true, ...itemJson(outcome.reply.item), ...(reason ? { cancelReason: reason } : {}) }, null, 2);
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
