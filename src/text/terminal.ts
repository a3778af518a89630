/**
 * Text a model wrote (a goal, a summary, an error) reaches a terminal in `orca show`, a toast, a
 * note or a tool title. Raw, its control characters are commands to that terminal: ESC [2J clears
 * the screen, U+009B is a one-byte CSI, U+202E turns the rest of a line backwards. These functions
 * make such text printable: every character a terminal would act on is shown as a visible stand-in
 * instead, so the reader sees that it was there. The plan file keeps the text exactly.
 *
 * - C0 controls (U+0000–U+001F) and DEL as their Unicode control pictures: ESC → ␛, NUL → ␀, CR → ␍.
 *   A newline stays; CR LF becomes a newline; a tab becomes two spaces.
 * - C1 controls (U+0080–U+009F) and the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069) as `[U+009B]`: no picture exists for them, and brackets read as text in markdown
 *   too (notes are rendered as markdown, where `<…>` would read as a tag).
 */
const UNSAFE = /\r\n|[\t\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** U+2400 CONTROL PICTURES: U+2400 + code for C0, U+2421 for DEL. */
const CONTROL_PICTURES = 0x2400;
const DEL_PICTURE = '\u2421';

function visible(match: string): string {
  if (match === '\r\n') return '\n';
  if (match === '\t') return '  ';
  const code = match.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(CONTROL_PICTURES + code);
  if (code === 0x7f) return DEL_PICTURE;
  return `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** `text` safe to print to a terminal: its lines kept, every control and bidi character shown visibly. Idempotent. */
export function forTerminal(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** forTerminal on one line, for a title or a table cell: newlines become spaces. */
export function forTerminalLine(text: string): string {
  return forTerminal(text).replace(/\n/g, ' ');
}
