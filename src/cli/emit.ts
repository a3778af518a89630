import { changeAgenda } from './agenda-change.js';
import type { CommandContext } from './command.js';
import { UsageError } from '../request-errors.js';
import { println } from './io.js';

/**
 * `orca emit <kind> [--message text]`: an event on the agenda's bus from a shell (CI, a git hook).
 * A server running the agenda records it and fires what waits for it within a second. With no
 * server running, the event is recorded in the log all the same (it happened): the items it
 * satisfies fire when a server starts, marked late, unless they expired before the event.
 */
export async function emitCommand({ io, project, args, options }: CommandContext): Promise<number> {
  const kind = args[0];
  if (kind === undefined) throw new UsageError('orca emit needs an event kind, like tests.failed or deploy.done:prod (orca --help).');
  const outcome = await changeAgenda(project, { op: 'emit', kind, message: options.message ?? '', source: 'cli' });
  if (outcome.where === 'queued') {
    println(io.stdout, `queued as ${outcome.id}: the server running the agenda has not taken it within 5 s; it applies when it does`);
    return 0;
  }
  const event = outcome.reply.op === 'emit' ? outcome.reply.event : null;
  const what = event ? `${event.event} (${event.eventId})` : kind;
  println(
    io.stdout,
    outcome.where === 'server'
      ? `emitted ${what}: delivered to the running server`
      : `emitted ${what}: recorded in .opencode/agenda/events.jsonl; no server runs the agenda, so the items it fires run when one starts (marked late)`,
  );
  return 0;
}
