import type { HitlQuestion } from '../machines/types.js';
import type { QuestionAsker } from './native-question/asker.js';
import { DIALOG_TEXT_WIDTH, dialogRows } from './dialog-rows.js';

/**
 * A long text shown in OpenCode's question dialog one page at a time, before the decision itself.
 * The 1.18.33 TUI gives a question's text no scroll area and, at 80x24, lets the dialog take every
 * row: a text longer than the screen pushes the options off it and cannot be read whole
 * (https://github.com/anomalyco/opencode/issues/11367). So the text goes in pages that each fit, a
 * dialog per page (Next, Back, or straight to the decision), and the decision's own question stays
 * short enough to keep its options on screen.
 */

/**
 * Rows of text a page may take at 80x24, its heading row included (checked in the real TUI in
 * tmux): a single question's dialog has no tabs, but each option takes two rows (its description
 * row stays, empty), so three options, "Type your own answer", the frame and the footer leave 11.
 */
export const PAGE_ROWS = 11;

/** The same three options on every page, in the same order, so a digit means the same everywhere. */
export const PAGE_OPTIONS = { next: 'Next page', last: 'Next: the decision', back: 'Previous page', decide: 'To the decision' } as const;

/**
 * Splits `text` into pages of at most `rows` rows of `width` columns. Lines are wrapped at words
 * here, as the TUI would wrap them, so a page fills to its last row. A block (blocks are separated
 * by blank lines) that fits on a page but not in what is left of this one starts the next page; a
 * longer block flows on from here.
 */
export function paginate(text: string, rows = PAGE_ROWS, width = DIALOG_TEXT_WIDTH): string[] {
  const pages: string[][] = [];
  let page: string[] = [];
  const flush = () => {
    if (page.length) pages.push(page);
    page = [];
  };
  for (const block of text.split(/\n{2,}/)) {
    const lines = block.split('\n').flatMap((line) => wrapRows(line, width));
    const left = rows - page.length - (page.length ? 1 : 0);
    if (page.length && lines.length > left && (lines.length <= rows || left < 3)) flush();
    if (page.length) page.push('');
    for (const line of lines) {
      if (page.length >= rows) flush();
      page.push(line);
    }
  }
  flush();
  return pages.map((lines) => lines.join('\n'));
}

/** `line` as the rows it takes at `width` columns: wrapped between words, a longer word cut. */
export function wrapRows(line: string, width = DIALOG_TEXT_WIDTH): string[] {
  const out: string[] = [];
  let row = '';
  for (const word of line.split(' ')) {
    for (const part of word.length > width ? (word.match(new RegExp(`.{1,${width}}`, 'g')) ?? [word]) : [word]) {
      if (row && row.length + 1 + part.length > width) {
        out.push(row);
        row = part;
      } else row = row ? `${row} ${part}` : part;
    }
  }
  out.push(row);
  return out;
}

/** The dialog of page `index` of `pages`, headed with where the reader is. */
export function pageQuestion(title: string, pages: readonly string[], index: number): HitlQuestion {
  const last = index === pages.length - 1;
  return {
    header: `Page ${index + 1}/${pages.length}`.slice(0, 30),
    question: `${headingRow(`Page ${index + 1} of ${pages.length} · ${title}`)}\n${pages[index]}`,
    options: [{ label: last ? PAGE_OPTIONS.last : PAGE_OPTIONS.next }, { label: PAGE_OPTIONS.back }, { label: PAGE_OPTIONS.decide }],
    custom: false,
  };
}

/** The heading on one row: cut with "…" rather than wrapped, so the page keeps its rows. */
const headingRow = (text: string) => (text.length <= DIALOG_TEXT_WIDTH ? text : `${text.slice(0, DIALOG_TEXT_WIDTH - 1)}…`);

export type ReadOutcome = { kind: 'read'; pages: number } | { kind: 'dismissed' } | { kind: 'unavailable'; reason: string };

/**
 * Shows `pages` in the dialog until the human goes on to the decision (from the last page, or
 * straight from any page). Previous page on the first page shows it again. A typed answer counts
 * as Next: the dialog always offers to type one.
 */
export async function showPages(
  asker: QuestionAsker,
  { callerSessionId, title, heading, pages, signal }: { callerSessionId: string; title: string; heading: string; pages: readonly string[]; signal: AbortSignal },
): Promise<ReadOutcome> {
  let index = 0;
  while (index < pages.length) {
    const asked = await asker.ask({ callerSessionId, title, questions: [pageQuestion(heading, pages, index)], signal });
    if (asked.kind !== 'answered') return asked.kind === 'dismissed' ? { kind: 'dismissed' } : asked;
    const choice = asked.answers[0]?.[0];
    if (choice === PAGE_OPTIONS.decide) break;
    index = choice === PAGE_OPTIONS.back ? Math.max(0, index - 1) : index + 1;
  }
  return { kind: 'read', pages: pages.length };
}
