import { posix } from 'node:path';

/**
 * Just enough Markdown to check the docs' links: the headings' anchors as GitHub makes them, and the
 * targets of inline links, both outside fenced code blocks and code spans.
 */

/** What a link may point at: which files exist, and the anchors of a Markdown file (undefined: not Markdown). */
export interface Site {
  exists(path: string): boolean;
  anchors(path: string): ReadonlySet<string> | undefined;
}

export interface Link {
  line: number;
  target: string;
}

/** The lines outside fenced code blocks, numbered from 1. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === null && opener) fence = opener;
    else if (fence !== null && opener && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
    else if (fence === null) out.push({ line: index + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every heading's anchor; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** The targets of inline links `[text](target)`, code spans left out. */
export function links(markdown: string): Link[] {
  const out: Link[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/``.*?``/g, '').replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ line, target: match[1]! });
  }
  return out;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** The repository path a relative link of `from` points at (`#…` alone: `from` itself); null for a URL. */
export function resolveLink(from: string, target: string): { path: string; anchor: string | undefined } | null {
  if (EXTERNAL.test(target)) return null;
  const [file = '', anchor] = target.split('#', 2);
  const path = file === '' ? from : posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(file)));
  return { path: path.replace(/\/$/, ''), anchor };
}

/** What is wrong with a link of `from` to `target`, or null when it resolves (URLs are not followed). */
export function linkProblem(from: string, target: string, site: Site): string | null {
  const resolved = resolveLink(from, target);
  if (resolved === null) return null;
  const { path, anchor } = resolved;
  if (target.startsWith('/')) return `${target}: a link from the repository root; write it relative to ${from}`;
  if (path.startsWith('../') || path === '..') return `${target}: outside the repository`;
  if (!site.exists(path)) return `${target}: no file ${path}`;
  if (anchor === undefined || anchor === '') return null;
  const headings = site.anchors(path);
  if (headings === undefined) return `${target}: ${path} is not a Markdown file, so it has no #${anchor}`;
  return headings.has(anchor) ? null : `${target}: ${path} has no heading whose anchor is #${anchor}`;
}

/** Every link of a Markdown file that does not resolve, as `path:line: problem`. */
export function brokenLinks(path: string, markdown: string, site: Site): string[] {
  return links(markdown).flatMap(({ line, target }) => {
    const problem = linkProblem(path, target, site);
    return problem === null ? [] : [`${path}:${line}: ${problem}`];
  });
}
