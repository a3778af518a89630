import type { JournalEntry } from '../persistence/journal.js';

/** The journal as a timeline: one item per entry, newest last, the latest `limit` of them. */
export interface TimelineItem {
  at: string;
  kind: 'event' | 'state' | 'reconcile' | 'coercion' | 'unknown';
  /** The actor for states ("plan", "step:s1"), the source for events (tool, question, cli, child, …). */
  who: string;
  title: string;
  detail?: string;
}

export interface TimelineView {
  total: number;
  items: TimelineItem[];
}

export const TIMELINE_LIMIT = 400;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function timelineOf(entries: readonly JournalEntry[], limit = TIMELINE_LIMIT): TimelineView {
  return { total: entries.length, items: entries.slice(-limit).map(itemOf) };
}

function itemOf(entry: JournalEntry): TimelineItem {
  switch (entry.kind) {
    case 'event': {
      const detail = eventDetail(entry.event);
      return { at: entry.at, kind: 'event', who: entry.source, title: entry.event.type, ...(detail ? { detail } : {}) };
    }
    case 'state':
      return { at: entry.at, kind: 'state', who: entry.actor, title: `→ ${entry.state}` };
    case 'reconcile': {
      const key = entry.idempotency_key ? ` (${entry.idempotency_key})` : '';
      return { at: entry.at, kind: 'reconcile', who: entry.role, title: `session ${entry.session_id}${key}: ${entry.decision}`, ...(entry.detail ? { detail: entry.detail } : {}) };
    }
    case 'coercion': {
      const step = entry.step_id ? ` for step ${entry.step_id}` : '';
      return { at: entry.at, kind: 'coercion', who: entry.agent, title: `answer${step} accepted with slips forgiven`, detail: clip(entry.coerced.join('; '), 400) };
    }
    default: {
      const unknown = entry as { at?: unknown };
      return { at: typeof unknown.at === 'string' ? unknown.at : '', kind: 'unknown', who: '', title: clip(JSON.stringify(entry), 160) };
    }
  }
}

/** The few fields a reader wants from an event: its step, attempt, text and answers. */
function eventDetail(event: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof event.stepId === 'string') parts.push(`step ${event.stepId}`);
  if (typeof event.attempt === 'number') parts.push(`attempt ${event.attempt}`);
  for (const key of ['text', 'message', 'error', 'guidance'] as const) {
    const value = event[key];
    if (typeof value === 'string') parts.push(`${key}: ${clip(value.replace(/\s+/g, ' '), 200)}`);
  }
  if (Array.isArray(event.answers)) parts.push(`answers ${clip(JSON.stringify(event.answers), 200)}`);
  const output = event.output as { type?: unknown; summary?: unknown; error?: unknown } | undefined;
  if (output && typeof output === 'object' && typeof output.type === 'string') {
    const said = typeof output.summary === 'string' ? output.summary : typeof output.error === 'string' ? output.error : '';
    parts.push(`${output.type}${said ? `: ${clip(said.replace(/\s+/g, ' '), 200)}` : ''}`);
  }
  return parts.join(' · ');
}
