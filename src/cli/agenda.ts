import { describeAction, describeEvent, describeTrigger, nextDue } from '../agenda/describe.js';
import { AgendaInputError } from '../agenda/errors.js';
import { continueCommand, firingPlan, type FiringPlan } from '../agenda/firing-plan.js';
import { agendaHolder, agendaLeaseHeld } from '../agenda/lease.js';
import { readAgenda } from '../agenda/runtime.js';
import type { AgendaItemView } from '../agenda/view.js';
import { changeAgenda, type ChangeOutcome } from './agenda-change.js';
import type { CommandContext } from './command.js';
import { RefusedError, UsageError } from '../request-errors.js';
import { shortTime, table, truncate } from './format.js';
import { println } from './io.js';
import { errorMessage } from '../errors.js';

export const AGENDA_SUBCOMMANDS = ['list', 'events', 'show', 'continue', 'cancel', 'clear', 'pause', 'resume'] as const;
/** The subcommands that take an agendaId. */
const WITH_ID = ['show', 'continue', 'cancel'];

/** `orca agenda [list|events|show <id>|continue <id>|cancel <id>|clear|pause|resume]`: the project's agenda from a shell. */
export async function agendaCommand({ io, project, args, options }: CommandContext): Promise<number> {
  const [sub = 'list', id] = args;
  if (!(AGENDA_SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(`orca agenda takes one of ${AGENDA_SUBCOMMANDS.join(', ')}, got "${truncate(sub, 40)}" (orca --help).`);
  }
  if (!WITH_ID.includes(sub) && id !== undefined) throw new UsageError(`orca agenda ${sub} takes no argument (orca --help).`);
  if (WITH_ID.includes(sub) && id === undefined) throw new UsageError(`orca agenda ${sub} needs an agendaId (orca agenda lists them).`);
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
    case 'show':
      return show(io, project, id!);
    case 'continue':
      return continuePlan(io, project, id!);
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
  // A plan an item started may have stopped midway (its server killed) long after the firing ended: say so, and how to go on.
  const stopped = agenda
    .list({ status: 'all' })
    .map((item) => ({ item, plan: firingPlan(project, item) }))
    .filter((x): x is { item: AgendaItemView; plan: FiringPlan } => x.plan?.now === 'interrupted');
  if (stopped.length > 0) {
    lines.push('', 'Plans the agenda started that were interrupted (nothing runs them):');
    for (const { item, plan } of stopped) lines.push(`  ${firingLine(item, plan)}; resume with: ${continueCommand(item.agendaId)}`);
  }
  lines.push(runner(project));
  for (const p of agenda.problems) lines.push(`warning: events.jsonl line ${p.line} skipped: ${p.reason}`);
  println(io.stdout, ...lines);
  return 0;
}

/** "agn_… fired 2030-01-07 10:02:00Z → plan_… interrupted at step s2 (nothing runs it)" */
function firingLine(item: AgendaItemView, plan: FiringPlan): string {
  const when = item.lastFiredAt ? ` fired ${shortTime(item.lastFiredAt)}` : '';
  const firing = item.trigger.type === 'cron' ? ` (firing ${item.firings})` : '';
  return `${item.agendaId}${firing}${when} → ${plan.words}`;
}

function itemOf(project: string, agendaId: string): AgendaItemView {
  try {
    return readAgenda(project).get(agendaId);
  } catch (error) {
    if (error instanceof AgendaInputError) throw new RefusedError(errorMessage(error));
    throw error;
  }
}

/** `orca agenda show <agendaId>`: the item in full, and what became of the plan its last firing started. */
function show(io: CommandContext['io'], project: string, agendaId: string): number {
  const item = itemOf(project, agendaId);
  const plan = firingPlan(project, item);
  const lines = [
    `Agenda item ${item.agendaId}`,
    `  status   ${item.status}${item.late ? ' (last firing late)' : ''}`,
    `  trigger  ${describeTrigger(item.trigger, item.nextDueAt)}`,
    `  action   ${describeAction(item.action)}`,
    `  reason   ${truncate(item.reason, 200)}`,
    `  created  ${shortTime(item.createdAt)} by ${item.createdBy}${item.depth > 0 ? ` (cascade hop ${item.depth})` : ''}`,
    `  firings  ${item.firings}${item.lastFiredAt ? `, the last at ${shortTime(item.lastFiredAt)}` : ''}`,
    ...(item.lastResult ? [`  result   ${truncate(item.lastResult, 300)}`] : []),
    ...(item.lastError ? [`  error    ${truncate(item.lastError, 300)}`] : []),
    ...(item.cancelReason ? [`  cancelled: ${truncate(item.cancelReason, 200)}`] : []),
  ];
  if (plan) {
    lines.push(`  plan now ${plan.words}`);
    if (plan.now === 'interrupted') {
      lines.push(`  resume   ${continueCommand(item.agendaId)} (a resume firing, now: the plan goes on from its saved state; or ask Orca in OpenCode to continue plan ${plan.planId})`);
    } else if (plan.now === 'waiting') {
      lines.push(`  answer   orca show ${plan.planId} says how (orca decide ${plan.planId} …)`);
    }
  }
  println(io.stdout, ...lines);
  return 0;
}

/**
 * `orca agenda continue <agendaId>`: resume the plan the item's last firing started, interrupted
 * midway, by the plans' own resume path: an agenda `resume` item due now, which the server running
 * the agenda fires at once (as orca_ask_planner with the plan_id would), or the next server at start.
 */
async function continuePlan(io: CommandContext['io'], project: string, agendaId: string): Promise<number> {
  const item = itemOf(project, agendaId);
  const plan = firingPlan(project, item);
  if (!plan) throw new RefusedError(`${agendaId} started no plan (${describeAction(item.action)}): nothing to continue.`);
  if (plan.now !== 'interrupted') {
    const why: Record<Exclude<FiringPlan['now'], 'interrupted'>, string> = {
      waiting: `it waits for a decision, not for a resume: orca show ${plan.planId} says how to answer it`,
      running: 'a server runs it now',
      idle: 'nothing of it is in flight',
      finished: 'it has finished',
      missing: 'it cannot be read',
    };
    throw new RefusedError(`${plan.words}: nothing to continue (${why[plan.now]}).`);
  }
  const outcome = await changeAgenda(project, {
    op: 'create',
    trigger: { type: 'time', executeAt: new Date().toISOString() },
    action: { type: 'resume', plan_id: plan.planId },
    reason: `continue ${plan.planId}, interrupted after firing ${item.firings} of ${agendaId} (orca agenda continue)`,
    createdBy: 'cli',
  });
  if (outcome.where === 'queued') {
    println(io.stdout, `queued as ${outcome.id}: the server running the agenda has not taken it within 5 s; it resumes ${plan.planId} when it does`);
    return 0;
  }
  const created = outcome.reply.op === 'create' ? outcome.reply.item.agendaId : '';
  println(
    io.stdout,
    outcome.where === 'server'
      ? `${created} resumes ${plan.planId} now in the running server, from its saved state; orca agenda show ${created} says where it stops next`
      : `${created} resumes ${plan.planId} from its saved state when an OpenCode server starts on this project (none runs the agenda now); orca agenda show ${created} says where it stops`,
  );
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
