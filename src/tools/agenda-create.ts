import { z } from 'zod';
import { describeAction, describeTrigger } from '../agenda/describe.js';
import { agendaOp, itemJson, ownerSession, queuedNote, type AgendaOrca } from './agenda-shared.js';

const TRIGGER_TYPES = ['time', 'event', 'cron'] as const;
const ACTION_TYPES = ['plan', 'resume', 'command', 'emit', 'cancel', 'schedule'] as const;

/** Every trigger and action in full: what a model that guessed a shape wrong reads back (the tool's description names the usual ones). */
export const TRIGGER_EXPECTED =
  'an object: {"type":"time","executeAt":ISO 8601} | {"type":"cron","expression":"0 2 * * *","timezone"?:"Europe/Paris"} | ' +
  '{"type":"event","eventKind":"kind" or "kind:subject" or a list,"matchMode"?:"any"|"all","expiresAt"?}; Orca emits ' +
  'plan.created|approved|completed|failed|rejected, step.completed|failed, gate.waiting with the plan_id as subject';
export const ACTION_EXPECTED =
  'an object: {"type":"plan","message"} (a new plan, for the user\'s approval) | {"type":"resume","plan_id","message"?} | ' +
  '{"type":"command","command":"/name","arguments"?} | {"type":"emit","kind","message"} | {"type":"cancel","scheduleId","reason"} | ' +
  '{"type":"schedule","trigger","action","reason"}';

/** A command action's session defaults to the user's: the model does not know session ids. */
function withSession(action: unknown, sessionId: string): unknown {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return action;
  const a = action as Record<string, unknown>;
  if (a.type === 'command' && a.sessionId === undefined) return { ...a, sessionId };
  if (a.type === 'schedule') return { ...a, action: withSession(a.action, sessionId) };
  return action;
}

/** `agenda` op create: schedule an action on a trigger, for the user's session (seed 002's agenda_create). */
export function agendaCreateOp(orca: AgendaOrca) {
  return agendaOp({
    args: {
      trigger: z.looseObject({ type: z.enum(TRIGGER_TYPES) }),
      action: z.looseObject({ type: z.enum(ACTION_TYPES) }),
      reason: z.string().regex(/\S/).max(1000),
    },
    expected: {
      trigger: TRIGGER_EXPECTED,
      action: ACTION_EXPECTED,
      reason: 'a non-empty string of at most 1000 characters: why this is scheduled, in the user\'s words',
    },
    async run(args, ctx) {
      const owner = await ownerSession(orca, ctx);
      const outcome = await orca.agenda.request({
        op: 'create',
        trigger: args.trigger,
        action: withSession(args.action, owner),
        reason: args.reason,
        createdBy: ctx.sessionID,
        sessionId: owner,
      });
      if (outcome.status === 'queued') return queuedNote(outcome);
      if (outcome.reply.op !== 'create') throw new Error(`unexpected reply ${outcome.reply.op}`);
      const item = outcome.reply.item;
      return JSON.stringify({
        scheduled: true,
        ...itemJson(item),
        summary: `${item.agendaId}: ${describeTrigger(item.trigger, item.nextDueAt)} → ${describeAction(item.action)}`,
        tell_user: 'Answer the user with what was scheduled: its agendaId, when it fires and what it does; /agenda lists it, /agenda-clear or agenda op cancel removes it.',
      }, null, 2);
    },
  });
}
