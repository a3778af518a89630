import { z } from 'zod';
import { describeAction, describeTrigger } from '../agenda/describe.js';
import { defineTool } from './define-tool.js';
import { agendaToolError, itemJson, ownerSession, queuedNote, type AgendaOrca } from './agenda-shared.js';

export const AGENDA_CREATE_DESCRIPTION = `Schedule work on the project's agenda: an action that runs at a time, on a cron schedule, or when events happen. Use it when the user asks for recurring or follow-up work, then tell the user what you scheduled (its agendaId, when it fires, what it does).
trigger (one of):
- {"type":"time","executeAt":"2030-06-01T09:00:00Z"} — once, at an ISO 8601 time with Z or an offset;
- {"type":"cron","expression":"0 2 * * *","timezone":"Europe/Paris"} — recurring (5 cron fields; timezone optional, default UTC);
- {"type":"event","eventKind":"plan.completed:plan_…" | ["tests.failed","deploy.done"],"matchMode":"any"|"all","expiresAt":"…"} — when events are emitted after now ("kind" matches any subject, "kind:subject" only that one). Orca emits plan.created, plan.approved, plan.completed, plan.failed, plan.rejected, step.completed, step.failed and gate.waiting with the plan_id as subject.
action (one of):
- {"type":"plan","message":"…"} — start a new plan from this request; it waits for the user's approval before any step runs;
- {"type":"resume","plan_id":"plan_…","message":"…"} — continue a plan (message optional);
- {"type":"command","command":"/name","arguments":"…"} — run a slash command in the user's session (Orca's approval and decision commands are refused);
- {"type":"emit","kind":"…","message":"…"} — emit an event (no model call);
- {"type":"cancel","scheduleId":"agn_…","reason":"…"} — cancel another item;
- {"type":"schedule","trigger":{…},"action":{…},"reason":"…"} — create another item when this one fires.
A refusal by a safety rail reads "BLOCKED [rule]: why": tell the user, do not work around it.`;

const TRIGGER_TYPES = ['time', 'event', 'cron'] as const;
const ACTION_TYPES = ['plan', 'resume', 'command', 'emit', 'cancel', 'schedule'] as const;

/** A command action's session defaults to the user's: the model does not know session ids. */
function withSession(action: unknown, sessionId: string): unknown {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return action;
  const a = action as Record<string, unknown>;
  if (a.type === 'command' && a.sessionId === undefined) return { ...a, sessionId };
  if (a.type === 'schedule') return { ...a, action: withSession(a.action, sessionId) };
  return action;
}

export function agendaCreateTool(orca: AgendaOrca) {
  return defineTool({
    name: 'agenda_create',
    description: AGENDA_CREATE_DESCRIPTION,
    args: {
      trigger: z.looseObject({ type: z.enum(TRIGGER_TYPES) }).describe('When it fires: a time, cron or event trigger (see the tool description).'),
      action: z.looseObject({ type: z.enum(ACTION_TYPES) }).describe('What it does: a plan, resume, command, emit, cancel or schedule action (see the tool description).'),
      reason: z.string().regex(/\S/).max(1000).describe('Why, in the user\'s words: shown in lists and reminders.'),
    },
    expected: {
      trigger: `an object whose "type" is one of ${TRIGGER_TYPES.join(', ')}`,
      action: `an object whose "type" is one of ${ACTION_TYPES.join(', ')}`,
      reason: 'a non-empty string of at most 1000 characters: why this is scheduled',
    },
    async execute(args, ctx) {
      try {
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
          tell_user: 'Say what was scheduled, when it fires, and that /agenda lists it and /agenda-clear or agenda_cancel removes it.',
        }, null, 2);
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
