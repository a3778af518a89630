/**
 * A model's text on one line, at most `max` characters: whitespace folded, and when it is longer,
 * cut at the last word that fits, never inside a word or a `code span` (an unclosed backtick's span is
 * left out whole), with an ellipsis. Where one word alone is longer than `max`, that word is cut.
 */
export function cutLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  let kept = flat.slice(0, max - 1);
  // Inside a word: back to the space before it (the next character is not a space).
  if (flat[max - 1] !== ' ') {
    const space = kept.lastIndexOf(' ');
    if (space > 0) kept = kept.slice(0, space);
  }
  // An odd number of backticks opens a span the cut would split: leave it out whole.
  if ((kept.match(/`/g)?.length ?? 0) % 2 === 1) kept = kept.slice(0, kept.lastIndexOf('`'));
  kept = kept.replace(/[\s,;:([{-]+$/, '');
  return `${kept || flat.slice(0, max - 1)}…`;
}
