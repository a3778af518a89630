import { defineTool } from './define-tool.js';
import { agendaToolError, queuedNote, type AgendaOrca } from './agenda-shared.js';

export function agendaPauseTool(orca: Pick<AgendaOrca, 'agenda'>) {
  return defineTool({
    name: 'agenda_pause',
    description:
      'Pause the agenda: nothing fires until a human resumes it with /agenda-resume or `orca agenda resume` (no agent can). Use it when scheduled work misbehaves.',
    args: {},
    expected: {},
    async execute() {
      try {
        const outcome = await orca.agenda.request({ op: 'pause' });
        if (outcome.status === 'queued') return queuedNote(outcome);
        return JSON.stringify({ paused: true, note: 'Tell the user the agenda is paused; only they can resume it (/agenda-resume).' });
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
