import { readJournal, type JournalEntry } from '../persistence/journal.js';
import { shortTime, truncate } from './format.js';
import { usageText } from '../usage/format.js';

/** The plan's journal, one line per entry: events with their source, states entered, reconciliations. */
export function historyLines(journalFile: string): string[] {
  const entries = readJournal(journalFile);
  if (entries.length === 0) return ['History', '  (no journal yet)'];
  return [`History (${entries.length} entries)`, ...entries.map((e) => `  ${shortTime(e.at)}  ${entryText(e)}`)];
}

function entryText(entry: JournalEntry): string {
  switch (entry.kind) {
    case 'event':
      return `event      ${entry.event.type} from ${entry.source}${eventDetail(entry.event)}`;
    case 'state':
      return `state      ${entry.actor} → ${entry.state}`;
    case 'turn':
      return `turn       ${entry.role}${entry.correction ? ' (correction)' : ''} ${entry.agent}${entry.step_id ? ` for step ${entry.step_id}` : ''}: ${usageText(entry.usage)}`;
    case 'reconcile':
      return `reconcile  ${entry.role} session ${entry.session_id}${entry.idempotency_key ? ` (${entry.idempotency_key})` : ''}: ${entry.decision}${entry.detail ? ` — ${entry.detail}` : ''}`;
    case 'protocol':
      return `protocol   ${entry.agent}${entry.model ? ` (${entry.model})` : ''} uses the text protocol from now on: structured output refused in session ${entry.session_id} — ${truncate(entry.reason, 100)}`;
    default:
      return `unknown    ${truncate(JSON.stringify(entry), 100)}`;
  }
}

/** The few fields a reader wants from an event, e.g. `: step s1, "use the v2 API"`. */
function eventDetail(event: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof event.stepId === 'string') parts.push(`step ${event.stepId}`);
  if (typeof event.attempt === 'number') parts.push(`attempt ${event.attempt}`);
  for (const key of ['text', 'message', 'error', 'guidance'] as const) {
    if (typeof event[key] === 'string') parts.push(`"${truncate(event[key], 80)}"`);
  }
  if (Array.isArray(event.answers)) parts.push(`answers ${truncate(JSON.stringify(event.answers), 80)}`);
  return parts.length ? `: ${parts.join(', ')}` : '';
}
