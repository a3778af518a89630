import { entryText, isNoise } from '../notices/journal-words.js';
import { readJournal } from '../persistence/journal.js';
import { shortTime } from './format.js';

/** The words of one entry, for whoever reads the history one entry at a time. */
export { entryText } from '../notices/journal-words.js';

/** The plan's journal, one line per entry in plain words: decisions, planner and step reports, states entered. */
export function historyLines(journalFile: string): string[] {
  const entries = readJournal(journalFile).filter((e) => !isNoise(e));
  if (entries.length === 0) return ['History', '  (no journal yet)'];
  return [`History (${entries.length} entries)`, ...entries.map((e) => `  ${shortTime(e.at)}  ${entryText(e)}`)];
}

/** The final states of the step chart: a step whose chart reached one has a duration. */
const STEP_FINAL_STATES = new Set(['completed', 'replanned', 'stopped']);

/** How long each finished step took, from the first state its chart entered to its final one (the journal's times). */
export function stepDurations(journalFile: string): Map<string, number> {
  const spans = new Map<string, { first: number; last: number; state: string }>();
  for (const entry of readJournal(journalFile)) {
    if (entry.kind !== 'state' || !entry.actor.startsWith('step:')) continue;
    const id = entry.actor.slice('step:'.length);
    const at = Date.parse(entry.at);
    if (Number.isNaN(at)) continue;
    const span = spans.get(id);
    if (span) Object.assign(span, { last: at, state: entry.state });
    else spans.set(id, { first: at, last: at, state: entry.state });
  }
  return new Map([...spans].filter(([, span]) => STEP_FINAL_STATES.has(span.state)).map(([id, { first, last }]) => [id, last - first]));
}

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 4 min". */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
