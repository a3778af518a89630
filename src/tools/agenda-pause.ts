import { agendaOp, queuedNote, type AgendaOrca } from './agenda-shared.js';

/**
 * `agenda` op pause: nothing fires until a human resumes it with /agenda-resume or `orca agenda
 * resume`; no operation resumes it (seed 002's agenda_pause).
 */
export function agendaPauseOp(orca: Pick<AgendaOrca, 'agenda'>) {
  return agendaOp({
    args: {},
    expected: {},
    async run() {
      const outcome = await orca.agenda.request({ op: 'pause' });
      if (outcome.status === 'queued') return queuedNote(outcome);
      return JSON.stringify({ paused: true, note: 'Tell the user the agenda is paused; only they can resume it (/agenda-resume).' });
    },
  });
}
