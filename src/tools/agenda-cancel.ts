import { z } from 'zod';
import { agendaOp, itemJson, queuedNote, type AgendaOrca } from './agenda-shared.js';

/** `agenda` op cancel: a pending item, by its agendaId; a running firing finishes first (seed 002's agenda_cancel). */
export function agendaCancelOp(orca: Pick<AgendaOrca, 'agenda'>) {
  return agendaOp({
    args: {
      agendaId: z.string().regex(/^agn_[0-9A-HJKMNP-TV-Z]{26}$/),
      reason: z.string().max(1000).optional(),
    },
    expected: {
      agendaId: 'an agendaId: "agn_" followed by 26 ULID characters, as op list shows them',
      reason: 'a string of at most 1000 characters: why it is cancelled',
    },
    async run({ agendaId, reason }) {
      const outcome = await orca.agenda.request({ op: 'cancel', agendaId, ...(reason ? { reason } : {}) });
      if (outcome.status === 'queued') return queuedNote(outcome);
      if (outcome.reply.op !== 'cancel') throw new Error(`unexpected reply ${outcome.reply.op}`);
      return JSON.stringify({ cancelled: true, ...itemJson(outcome.reply.item), ...(reason ? { cancelReason: reason } : {}) }, null, 2);
    },
  });
}
