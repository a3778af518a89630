import type { HitlQuestion } from '../machines/types.js';
import type { QuestionAsker } from './native-question/asker.js';
import { DIALOG_TEXT_WIDTH, dialogRows } from './dialog-rows.js';

/**
 * A long text shown in OpenCode's question dialog one page at a time, before the decision itself.
 * The 1.18.33 TUI gives a question's text no scroll area and, at 80x24, lets the dialog take every
 * row: a text longer than the screen pushes the options off it and cannot be read whole. So the
 * text goes in pages that each fit, a dialog per page (Next, Back, or straight to the decision),
 * and the decision's own question stays short enough to keep its options on screen.
 */

/**
 * Rows of text a page may take at 80x24, its heading row included (checked in the real TUI in
 * tmux): a single question's dialog has no tabs, but each option takes two rows (its description
 * row stays, empty), so three options, "Type your own answer", the frame and the footer leave 11.
 */
export const PAGE_ROWS = 11;

export const PAGE_OPTIONS = { next: 'Next page', decide: 'To the decision', back: 'Previous page' } as const;

/**
 * Splits `text` into pages of at most `rows` dialog rows. Blocks (separated by blank lines) stay
 * whole when they fit on a page; a longer block breaks between its lines, and a line longer than a
 * page breaks between its words.
 */
export function paginate(text: string, rows = PAGE_ROWS, width = DIALOG_TEXT_WIDTH): string[] {
  const pages: string[][] = [];
  let page: string[] = [];
  let used = 0;
  const flush = () => {
    while (page.at(-1) === '') page.pop();
    if (page.length) pages.push(page);
    page = [];
    used = 0;
  };
  const put = (line: string) => {
    const need = dialogRows(line, width);
    if (used + need > rows) flush();
    if (line === '' && used === 0) return; // no page starts with a blank line
    page.push(line);
    used += need;
  };
  for (const block of text.split(/\n{2,}/)) {
    const lines = block.split('\n').flatMap((line) => splitLong(line, rows, width));
    const need = lines.reduce((n, line) => n + dialogRows(line, width), 0);
    // A block starts a fresh page when it does not fit in what is left of this one, unless what is
    // left is most of a page and the block is longer than a page anyway (then it flows on).
    const left = rows - used - 1;
    if (used > 0 && need > left && (need <= rows || left < rows / 2)) flush();
    if (used > 0) put('');
    for (const line of lines) put(line);
  }
  flush();
  return pages.map((lines) => lines.join('\n'));
}

/** A line that would not fit on one page, cut between words into pieces that do. */
function splitLong(line: string, rows: number, width: number): string[] {
  if (dialogRows(line, width) <= rows) return [line];
  const pieces: string[] = [];
  let piece = '';
  for (const word of line.split(' ')) {
    for (const part of word.length > width ? (word.match(new RegExp(`.{1,${width}}`, 'g')) ?? [word]) : [word]) {
      const next = piece ? `${piece} ${part}` : part;
      if (dialogRows(next, width) > rows) {
        pieces.push(piece);
        piece = part;
      } else piece = next;
    }
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** The dialog of page `index` of `pages`, headed with where the reader is. */
export function pageQuestion(title: string, pages: readonly string[], index: number): HitlQuestion {
  const last = index === pages.length - 1;
  const options = [
    { label: last ? PAGE_OPTIONS.decide : PAGE_OPTIONS.next },
    ...(last ? [] : [{ label: PAGE_OPTIONS.decide }]),
    ...(index > 0 ? [{ label: PAGE_OPTIONS.back }] : []),
  ];
  return {
    header: `Page ${index + 1}/${pages.length}`.slice(0, 30),
    question: `${headingRow(`Page ${index + 1} of ${pages.length} · ${title}`)}\n${pages[index]}`,
    options,
    custom: false,
  };
}

/** The heading on one row: cut with "…" rather than wrapped, so the page keeps its rows. */
const headingRow = (text: string) => (text.length <= DIALOG_TEXT_WIDTH ? text : `${text.slice(0, DIALOG_TEXT_WIDTH - 1)}…`);

export type ReadOutcome = { kind: 'read'; pages: number } | { kind: 'dismissed' } | { kind: 'unavailable'; reason: string };

/**
 * Shows `pages` in the dialog until the human goes on to the decision (from the last page, or
 * straight from any page). A typed answer counts as Next: the dialog always offers to type one.
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
