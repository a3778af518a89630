import type { Action, Trigger } from './schema.js';
import type { AgendaItemView, BusEventView } from './view.js';

/** Items and events in words, one line each: /agenda, the CLI, compaction and reminders say them the same way. */

const one = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export function describeTrigger(trigger: Trigger, nextDueAt: string | null = null): string {
  switch (trigger.type) {
    case 'time':
      return `at ${trigger.executeAt}`;
    case 'cron':
      return `cron "${trigger.expression}"${trigger.timezone ? ` (${trigger.timezone})` : ''}${nextDueAt ? `, next ${nextDueAt}` : ''}`;
    case 'event': {
      const kinds = Array.isArray(trigger.eventKind) ? trigger.eventKind : [trigger.eventKind];
      const mode = kinds.length > 1 ? (trigger.matchMode === 'all' ? 'all of ' : 'any of ') : '';
      return `on ${mode}${kinds.join(', ')}${trigger.expiresAt ? ` until ${trigger.expiresAt}` : ''}`;
    }
  }
}

export function describeAction(action: Action): string {
  switch (action.type) {
    case 'plan':
      return `start a plan: "${one(action.message, 80)}"`;
    case 'resume':
      return `resume ${action.plan_id}${action.message ? `: "${one(action.message, 60)}"` : ''}`;
    case 'command':
      return `run /${action.command.replace(/^\//, '')}${action.arguments ? ` ${one(action.arguments, 40)}` : ''} in ${action.sessionId}`;
    case 'emit':
      return `emit ${action.kind}`;
    case 'cancel':
      return `cancel ${action.scheduleId}`;
    case 'schedule':
      return `schedule (${describeTrigger(action.trigger)} → ${describeAction(action.action)})`;
  }
}

/** "agn_… pending · at 2030-… → start a plan: "…" · nightly checks" */
export function describeItem(item: AgendaItemView): string {
  const outcome = item.lastError ? ` · last error: ${one(item.lastError, 120)}` : item.lastResult ? ` · last: ${one(item.lastResult, 120)}` : '';
  return `${item.agendaId} ${item.status}${item.late ? ' (late)' : ''} · ${describeTrigger(item.trigger, item.nextDueAt)} → ${describeAction(item.action)} · ${one(item.reason, 80)}${outcome}`;
}

export function describeEvent(event: BusEventView): string {
  return `${event.at} ${event.event} (${event.source}${event.agendaId ? ` ${event.agendaId}` : ''})${event.message ? `: ${one(event.message, 120)}` : ''}`;
}

/** The earliest next due time among pending items, or null. */
export function nextDue(items: AgendaItemView[]): string | null {
  return items.map((i) => i.nextDueAt).filter((t): t is string => t !== null).sort()[0] ?? null;
}
