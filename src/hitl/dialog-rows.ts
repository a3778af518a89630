import type { HitlQuestion } from '../machines/types.js';

/**
 * The room OpenCode 1.18.33's question dialog gives a question's text in the TUI at 80x24 (the
 * smallest common terminal; checked in the real TUI in tmux): its text is 69 columns wide, words
 * wrap, and the text has no scroll area, so a question that takes more rows than are left pushes
 * its options off the screen (https://github.com/anomalyco/opencode/issues/11367).
 */
export const DIALOG_TEXT_WIDTH = 69;

/**
 * Rows for a gate's question (two questions, so a tab row, three options with a description line
 * each, and "Type your own answer"): 14 rows of frame and options leave 10 for the question.
 */
export const APPROVAL_QUESTION_LINES = 10;

/** How many rows `text` takes in the dialog: its words wrapped greedily at `width`, as the TUI does. */
export function dialogRows(text: string, width = DIALOG_TEXT_WIDTH): number {
  let rows = 0;
  for (const line of text.split('\n')) {
    let used = 0;
    rows += 1;
    for (const word of line.split(' ')) {
      const length = word.length;
      if (used > 0 && used + 1 + length > width) {
        rows += 1 + Math.floor(Math.max(0, length - 1) / width);
        used = length % width || width;
      } else if (used === 0 && length > width) {
        // A word longer than a row is broken where the row ends.
        rows += Math.floor((length - 1) / width);
        used = length % width || width;
      } else used += (used > 0 ? 1 : 0) + length;
    }
  }
  return rows;
}

/**
 * What to press to type an answer. OpenCode 1.18.33's dialog offers typing as one more numbered
 * option, "Type your own answer", whose text field opens only at its digit (or Enter on it): keys
 * typed before are lost (checked in tmux at 80x24). A text-only question (no options) has it as 1.
 */
export const typingKeys = (digit: number) => `Press ${digit === 1 ? 'Enter (or 1)' : digit}, type your answer, then Enter.`;

/** A question that only takes typed words (no options, typing allowed), with the keys that open its field. */
export function withTypingKeys<Q extends HitlQuestion>(q: Q): Q {
  return q.options.length === 0 && q.custom !== false ? { ...q, question: `${q.question}\n${typingKeys(1)}` } : q;
}
