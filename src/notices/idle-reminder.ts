import { nextDue } from '../agenda/describe.js';
import type { AgendaItemView } from '../agenda/view.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import type { Toast } from './toasts.js';

/**
 * The agenda's reminder on `session.idle` (docs/design.md, "Hooks"): when a person's session (a
 * root session, not the child sessions Orca runs turns in) goes idle while one of its plans waits
 * on a human or agenda items of it (or of nobody's, from the CLI) are pending, a toast says so, at
 * most once per `everyMs`.
 */

export const REMIND_EVERY_MS = 5 * 60_000;

export interface IdleReminderDeps {
  plans: () => PlanSummary[];
  items: () => AgendaItemView[];
  show: (toast: Toast) => void;
  /** Whether the session is a root session (OpenCode's sessions: no parent). */
  isRoot: (sessionID: string) => Promise<boolean>;
  now?: () => number;
  everyMs?: number;
}

/** The reminder for a session, or null when nothing waits. Pure. */
export function reminderFor(sessionID: string, plans: PlanSummary[], items: AgendaItemView[]): Toast | null {
  const waiting = plans.filter((p) => p.caller_session_id === sessionID && p.waiting_for !== null);
  const pending = items.filter((i) => i.status === 'pending' && (i.sessionId === undefined || i.sessionId === sessionID));
  if (waiting.length === 0 && pending.length === 0) return null;
  const parts = waiting.slice(0, 3).map((p) => `${p.plan_id} waits for ${p.waiting_for}`);
  if (waiting.length > 3) parts.push(`${waiting.length - 3} more plan(s) wait`);
  if (pending.length > 0) {
    const next = nextDue(pending);
    parts.push(`${pending.length} agenda item(s) pending${next ? `, next due ${next}` : ''}`);
  }
  return { title: 'Orca: waiting for you', message: parts.join(' · '), variant: waiting.length > 0 ? 'warning' : 'info' };
}

/** Returns the event handler: hand it every OpenCode event (the plugin's `event` hook). */
export function createIdleReminder({ plans, items, show, isRoot, now = Date.now, everyMs = REMIND_EVERY_MS }: IdleReminderDeps) {
  const last = new Map<string, number>();
  return async function onEvent(event: { type: string; properties?: unknown }): Promise<void> {
    if (event.type !== 'session.idle') return;
    const sessionID = (event.properties as { sessionID?: unknown } | undefined)?.sessionID;
    if (typeof sessionID !== 'string') return;
    const at = now();
    if (at - (last.get(sessionID) ?? -Infinity) < everyMs) return;
    const toast = reminderFor(sessionID, plans(), items());
    if (!toast || !(await isRoot(sessionID))) return;
    last.set(sessionID, at);
    show(toast);
  };
}
