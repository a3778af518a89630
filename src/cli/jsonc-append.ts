import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

/*
 * Appending to a JSONC document while touching nothing else: comments stay with the items they
 * follow, trailing-comma style and indentation are kept. jsonc-parser's modify() does not do this
 * on its own: it reformats the previous item and moves that item's trailing comment onto the new one.
 */

/** `text` with `value` appended to the top-level array `key`; undefined when `key` is not an array. */
export function appendToArray(text: string, key: string, value: unknown): string | undefined {
  const array = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, [key]);
  return array?.type === 'array' ? appendItem(text, array, JSON.stringify(value)) : undefined;
}

/** `text` with the property `key: value` added at the end of the top-level object. */
export function addProperty(text: string, key: string, value: unknown): string {
  const root = parseTree(text, [], { allowTrailingComma: true });
  if (root?.type !== 'object') throw new Error('Expected a JSON object at the top level.');
  return appendItem(text, root, `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
}

function appendItem(text: string, container: Node, item: string): string {
  const items = container.children ?? [];
  const last = items.at(-1);
  if (!last) {
    const [open, close] = container.type === 'array' ? ['[', ']'] : ['{ ', ' }'];
    return text.slice(0, container.offset) + open + item + close + text.slice(container.offset + container.length);
  }
  const lastEnd = last.offset + last.length;
  if (!text.slice(container.offset, items[0]!.offset).includes('\n')) return insert(text, [[lastEnd, `, ${item}`]]);
  // One item per line: the new one goes on its own line, after the last item's line and its comment.
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', last.offset) + 1))![0];
  const { comma, lineEnd } = restOfLine(text, lastEnd);
  return comma
    ? insert(text, [[lineEnd, `${eol}${indent}${item},`]])
    : insert(text, [[lastEnd, ','], [lineEnd, `${eol}${indent}${item}`]]);
}

/** After an item: whether a comma follows it, and where the comments on its line end. */
function restOfLine(text: string, from: number): { comma: boolean; lineEnd: number } {
  // Blanks, commas and comments up to the line break (a block comment may span lines).
  const rest = /^(?:[ \t]+|,|\/\/[^\r\n]*|\/\*[\s\S]*?\*\/)*/.exec(text.slice(from))![0].replace(/[ \t]+$/, '');
  return { comma: rest.replace(/\/\/[^\r\n]*|\/\*[\s\S]*?\*\//g, '').includes(','), lineEnd: from + rest.length };
}

/** Apply insertions, given in increasing offset order, from the end so offsets stay valid. */
function insert(text: string, edits: Array<[offset: number, content: string]>): string {
  return edits.reduceRight((t, [offset, content]) => t.slice(0, offset) + content + t.slice(offset), text);
}
