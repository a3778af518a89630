import { describeItem, nextDue } from '../describe.js';
import { continueCommand, firingPlan } from '../firing-plan.js';
import type { AgendaRuntime } from '../runtime.js';

/**
 * The agenda's slash commands (docs/design.md, "Tools and commands"), answered in
 * command.execute.before like the gate commands: no model turn (plugin.ts installs them with the
 * gate commands' registerNoteCommand). /agenda-resume is the human's way
 * to resume a paused agenda (no tool offers it, and an agenda item may not run it).
 */
export const AGENDA_COMMANDS = {
  agenda: 'List the agenda: pending and running items (/agenda all: every item)',
  'agenda-clear': 'Cancel every pending agenda item: /agenda-clear [reason]',
  'agenda-pause': 'Pause the agenda: nothing fires until /agenda-resume',
  'agenda-resume': 'Resume the paused agenda; what came due meanwhile fires now',
} as const;

export type AgendaCommand = keyof typeof AGENDA_COMMANDS;
export const isAgendaCommand = (name: string): name is AgendaCommand => name in AGENDA_COMMANDS;

const MAX_LISTED = 30;

/** What an agenda command uses: the project's agenda and the log. */
export interface AgendaCommandDeps {
  agenda: Pick<AgendaRuntime, 'list' | 'paused' | 'request'>;
  log(level: 'info', message: string): void;
  /** The project: /agenda reads there what became of the plans the items' firings started. */
  directory?: string;
}

/** The plans the items' firings started that were interrupted (nothing runs them), and how to go on. */
function interruptedLines(orca: AgendaCommandDeps): string[] {
  if (orca.directory === undefined) return [];
  const directory = orca.directory;
  const lines = orca.agenda.list({ status: 'all' }).flatMap((item) => {
    const plan = firingPlan(directory, item);
    if (plan?.now !== 'interrupted') return [];
    const when = item.lastFiredAt ? ` fired ${item.lastFiredAt}` : '';
    return [`- ${item.agendaId}${when} → ${plan.words}; resume it: ask Orca to continue plan ${plan.planId}, or run ${continueCommand(item.agendaId)}`];
  });
  return lines.length > 0 ? ['Plans the agenda started that were interrupted:', ...lines] : [];
}

/** Run an agenda command; returns the text to show. Throws with what went wrong. */
export async function runAgendaCommand(orca: AgendaCommandDeps, name: AgendaCommand, rawArguments: string): Promise<string> {
  const args = rawArguments.trim();
  switch (name) {
    case 'agenda': {
      const all = args === 'all';
      const items = orca.agenda.list({ status: all ? 'all' : 'active' });
      const paused = orca.agenda.paused ? ' It is PAUSED: nothing fires until /agenda-resume.' : '';
      const interrupted = interruptedLines(orca);
      if (items.length === 0) return [`Orca agenda: no ${all ? '' : 'pending '}items.${paused}`, ...interrupted].join('\n');
      const next = nextDue(items.filter((i) => i.status === 'pending'));
      const shown = items.slice(-MAX_LISTED);
      return [
        `Orca agenda: ${items.length} ${all ? '' : 'pending '}item(s)${next ? `, next due ${next}` : ''}.${paused}`,
        ...(shown.length < items.length ? [`(the ${shown.length} most recent)`] : []),
        ...shown.map((i) => `- ${describeItem(i)}`),
        ...interrupted,
      ].join('\n');
    }
    case 'agenda-clear': {
      const outcome = await orca.agenda.request({ op: 'clear', ...(args ? { reason: args } : { reason: 'cleared with /agenda-clear' }) });
      if (outcome.status === 'queued') return `Orca agenda: /agenda-clear is queued for the process that runs the agenda.`;
      const cleared = outcome.reply.op === 'clear' ? outcome.reply.items : [];
      orca.log('info', `agenda: /agenda-clear cancelled ${cleared.length} item(s)`);
      return cleared.length === 0 ? 'Orca agenda: nothing pending to cancel.' : `Orca agenda: cancelled ${cleared.length} item(s): ${cleared.map((i) => i.agendaId).join(', ')}.`;
    }
    case 'agenda-pause': {
      const outcome = await orca.agenda.request({ op: 'pause' });
      orca.log('info', 'agenda: paused with /agenda-pause');
      return outcome.status === 'queued' ? 'Orca agenda: the pause is queued for the process that runs the agenda.' : 'Orca agenda: paused. Nothing fires until /agenda-resume.';
    }
    case 'agenda-resume': {
      // Counted before resuming: the tick it starts may fire them at once.
      const due = orca.agenda.list().filter((i) => i.status === 'pending' && i.nextDueAt !== null && Date.parse(i.nextDueAt) <= Date.now()).length;
      const outcome = await orca.agenda.request({ op: 'resume' });
      orca.log('info', 'agenda: resumed with /agenda-resume');
      if (outcome.status === 'queued') return 'Orca agenda: the resume is queued for the process that runs the agenda.';
      return `Orca agenda: resumed.${due > 0 ? ` ${due} item(s) came due while it was paused and fire now.` : ''}`;
    }
  }
}
