import { entryText, isNoise } from '../notices/journal-words.js';
import type { JournalEntry } from '../persistence/journal.js';

/**
 * The journal as a timeline, in the words of `orca show`'s history (notices/journal-words.ts): one item per
 * entry it shows, newest last, the latest `limit` of them.
 */
export interface TimelineItem {
  at: string;
  /** The entry's kind (the page styles each kind); "unknown" for a kind this version does not know. */
  kind: JournalEntry['kind'] | 'unknown';
  text: string;
}

export interface TimelineView {
  /** The entries the timeline shows, the latest `limit` of which are in `items`. */
  total: number;
  items: TimelineItem[];
}

export const TIMELINE_LIMIT = 400;
/** Every kind the journal has: a kind added there fails to compile until the page knows it. */
const KINDS: Record<JournalEntry['kind'], true> = { event: true, state: true, reconcile: true, turn: true, protocol: true, coercion: true, rewind: true };

export function timelineOf(entries: readonly JournalEntry[], limit = TIMELINE_LIMIT): TimelineView {
  const shown = entries.filter((entry) => !isNoise(entry));
  return { total: shown.length, items: shown.slice(-limit).map(itemOf) };
}

function itemOf(entry: JournalEntry): TimelineItem {
  const { at, kind } = entry as { at?: unknown; kind?: unknown };
  return { at: typeof at === 'string' ? at : '', kind: typeof kind === 'string' && Object.hasOwn(KINDS, kind) ? (kind as JournalEntry['kind']) : 'unknown', text: entryText(entry) };
}
