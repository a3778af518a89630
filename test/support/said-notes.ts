/**
 * Orca's notes as a session shows them. Notes held while another is being said go out together in the
 * next turn, a blank line between them (src/notices/session-notes.ts: a step's note and the outcome
 * right after it are often one text). The note that starts with `start`: from there to the end of its
 * text (a note held after it may follow), or undefined.
 */
export function findNote(texts: readonly string[], start: string): string | undefined {
  for (const text of texts) {
    if (text.startsWith(start)) return text;
    const at = text.indexOf(`\n\n${start}`);
    if (at >= 0) return text.slice(at + 2);
  }
  return undefined;
}
