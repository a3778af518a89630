import { describeAction, describeEvent, describeTrigger, nextDue } from '../agenda/describe.js';
import { agendaHolder, agendaLeaseHeld } from '../agenda/lease.js';
import { readAgenda } from '../agenda/runtime.js';
import { changeAgenda, type ChangeOutcome } from './agenda-change.js';
import type { CommandContext } from './command.js';
import { UsageError } from '../request-errors.js';
import { shortTime, table, truncate } from './format.js';
import { println } from './io.js';

export const AGENDA_SUBCOMMANDS = ['list', 'events', 'cancel', 'clear', 'pause', 'resume'] as const;

/** `orca agenda [list|events|cancel <id>|clear|pause|resume]`: the project's agenda from a shell. */
export async function agendaCommand({ io, project, args, options }: CommandContext): Promise<number> {
  const [sub = 'list', id] = args;
  if (!(AGENDA_SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`orca agenda takes one of ${AGENDA_SUBCOMMANDS.join(', ')}, got "${truncate(sub, 40)}" (orca --help).`);
  }
  if (sub !== 'cancel' && id !== undefined) throw new UsageError(`orca agenda ${sub} takes no argument (orca --help).`);
  if (options.message !== undefined && sub !== 'cancel' && sub !== 'clear') throw new UsageError(`orca agenda ${sub} does not take --message (orca --help).`);
  const reason = options.message?.trim() || undefined;
  switch (sub) {
    case 'list':
      return list(io, project);
    case 'events': {
      const events = readAgenda(project).events({ limit: 50 });
      if (events.length === 0) println(io.stdout, 'No events on the agenda bus.');
      else println(io.stdout, ...events.map(describeEvent));
      return 0;
    }
    case 'cancel': {
      if (id === undefined) throw new UsageError('orca agenda cancel needs an agendaId (orca agenda lists them).');
      const outcome = await changeAgenda(project, { op: 'cancel', agendaId: id, reason: reason ?? 'cancelled with orca agenda cancel' });
      return report(io, outcome, `cancelled ${id}`);
    }
    case 'clear': {
      const outcome = await changeAgenda(project, { op: 'clear', reason: reason ?? 'cleared with orca agenda clear' });
      const count = outcome.where !== 'queued' && outcome.reply.op === 'clear' ? outcome.reply.items.length : 0;
      return report(io, outcome, `cancelled ${count} pending item(s)`);
    }
    case 'pause':
      return report(io, await changeAgenda(project, { op: 'pause' }), 'paused: nothing fires until orca agenda resume or /agenda-resume');
    case 'resume':
      return report(io, await changeAgenda(project, { op: 'resume' }), 'resumed: what came due meanwhile fires now, marked late');
  }
  return 2;
}

function list(io: CommandContext['io'], project: string): number {
  const agenda = readAgenda(project);
  const items = agenda.list();
  const lines: string[] = [];
  if (agenda.paused) lines.push('The agenda is PAUSED: nothing fires until orca agenda resume or /agenda-resume.');
  if (items.length === 0) lines.push('No pending agenda items.');
  else {
    lines.push(
      ...table(
        ['AGENDA ID', 'STATUS', 'TRIGGER', 'ACTION', 'REASON'],
        items.map((i) => [i.agendaId, i.status, truncate(describeTrigger(i.trigger, i.nextDueAt), 60), truncate(describeAction(i.action), 50), truncate(i.reason, 40)]),
      ),
    );
    const next = nextDue(items);
    if (next) lines.push(`next due: ${shortTime(next)}`);
  }
  lines.push(runner(project));
  for (const p of agenda.problems) lines.push(`warning: events.jsonl line ${p.line} skipped: ${p.reason}`);
  println(io.stdout, ...lines);
  return 0;
}

/** Who runs the agenda now: triggers fire only while a server does. */
export function runner(project: string): string {
  if (!agendaLeaseHeld(project)) return 'No OpenCode server runs this agenda now: items fire when one starts (late ones marked late).';
  const holder = agendaHolder(project);
  return `Run by an OpenCode server${holder ? ` (pid ${holder.pid} on ${holder.host}, since ${shortTime(holder.since)})` : ''}.`;
}

function report(io: CommandContext['io'], outcome: ChangeOutcome, done: string): number {
  switch (outcome.where) {
    case 'server':
      println(io.stdout, `${done}: applied by the running server`);
      return 0;
    case 'here':
      println(io.stdout, `${done} (no server runs the agenda: written to .opencode/agenda; the next server reads it)`);
      return 0;
    case 'queued':
      println(io.stdout, `queued as ${outcome.id}: the server running the agenda has not taken it within 5 s; it applies when it does`);
      return 0;
  }
}
