import { parse as parseJsonc, printParseErrorCode, visit, type ParseError } from 'jsonc-parser';

/** Where in a reply a JSON object was written: in a tag, in a fence, as the whole reply, or in prose. */
export type CandidateSource = 'tag' | 'fence' | 'whole' | 'scan';

/** One top-level `{…}` of the reply and how it reads. */
export interface JsonCandidate {
  readonly via: CandidateSource;
  /** Its span in the text searched: `text.slice(start, end)` is the object. */
  readonly start: number;
  readonly end: number;
  /**
   * What it may mean, in the order tried: for a tool call written as text, its arguments and then
   * the object itself; otherwise the object. Empty when it is not JSON (see `error`).
   */
  readonly readings: readonly unknown[];
  /** The JSONC leniency it needed, e.g. `JSONC: comments removed`. */
  readonly tolerated: readonly string[];
  /** Why it is not JSON, even as JSONC: `comma expected at line 3, column 5 of the object`. */
  readonly error?: string;
}

export interface CandidateSearch {
  /** The top-level objects in text order (the last MAX_CANDIDATES of them): the last one is the answer. */
  readonly candidates: JsonCandidate[];
  /** The text ends inside an object that never closes: the reply was probably cut off. */
  readonly truncated: boolean;
}

const TAGGED = [
  /<(output|json|result|response|answer|tool_call|function_call)\b[^>]*>([\s\S]*?)<\/\1\s*>/dgi,
  /<\|(tool_call)\|>([\s\S]*?)<\|\/tool_call\|>/dgi,
  /\[(TOOL_CALL)\]([\s\S]*?)\[\/TOOL_CALL\]/dgi,
];
const FENCE = /```[\w-]*[^\S\n]*\n?([\s\S]*?)```/dg;

/** Removes reasoning and chat-template noise that often surrounds the answer. */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  // Some templates put the opening tag in the prompt, so only the closing tag is emitted.
  const orphanClose = /<\/(think|thinking)\s*>/i.exec(out);
  if (orphanClose) out = out.slice(orphanClose.index + orphanClose[0].length);
  // A reply cut off while still thinking has no answer in it.
  out = out.replace(/^\s*<(think|thinking)\b[^>]*>[\s\S]*$/i, '');
  return out.replace(/<\/?assistant\b[^>]*>|<\|assistant\|>/gi, '');
}

/**
 * Every top-level JSON object in the text with its position, found by one scan that matches
 * braces outside strings and comments. An object is found once wherever it was written (a fence or
 * a tag only names where it was), and an object inside another (a step inside a plan) is never a
 * candidate of its own. A `{` that does not open JSON (prose, code: `{curly}`, `{ key: 1 }`) is
 * skipped and the scan goes on just inside it; one that opens JSON (`{` then a `"` key) is a
 * candidate even when it turns out not to be JSON, so a broken answer is named, not a nested part of it.
 * The scan is linear: a candidate's span is matched once and the scan resumes after it; it stops
 * at an object that never closes (`truncated`), since everything after is inside it. Only the last
 * MAX_CANDIDATES objects are parsed, so a long reply full of JSON costs no more than its length.
 */
export function findJsonCandidates(text: string): CandidateSearch {
  const spans: { start: number; end: number }[] = [];
  let truncated = false;
  for (let from = text.indexOf('{'); from !== -1; ) {
    if (!opensJson(text, from)) {
      from = text.indexOf('{', from + 1);
      continue;
    }
    const end = matchingBrace(text, from);
    if (end === -1) {
      truncated = true;
      break;
    }
    spans.push({ start: from, end: end + 1 });
    from = text.indexOf('{', end + 1);
  }
  const places = wrappers(text);
  const blank = { before: text.length - text.trimStart().length, after: text.trimEnd().length };
  const candidates = spans.slice(-MAX_CANDIDATES).map((span): JsonCandidate => {
    const place = places.find((p) => p.start <= span.start && span.end <= p.end);
    const via = place?.via ?? (span.start === blank.before && span.end === blank.after ? 'whole' : 'scan');
    return { via, ...span, ...readObject(text.slice(span.start, span.end)) };
  });
  return { candidates, truncated };
}

/** Only the last objects are read: a reply's answer is its last, the earlier ones are kept to be counted and tested. */
const MAX_CANDIDATES = 100;

type Place = { via: 'tag' | 'fence'; start: number; end: number };

/** The bodies of tags and fences, tags first: a candidate inside one was written there. */
function wrappers(text: string): Place[] {
  const places: Place[] = [];
  for (const pattern of TAGGED)
    for (const match of text.matchAll(pattern)) {
      const body = match.indices?.[2];
      if (body) places.push({ via: 'tag', start: body[0], end: body[1] });
    }
  for (const match of text.matchAll(FENCE)) {
    const body = match.indices?.[1];
    if (body) places.push({ via: 'fence', start: body[0], end: body[1] });
  }
  return places;
}

/**
 * Whether the `{` at `start` opens a JSON object worth reading: the next thing after blanks and
 * comments is a key. An empty `{}` is prose ("returns {} when empty"), never an answer.
 */
function opensJson(text: string, start: number): boolean {
  let i = start + 1;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text.startsWith('//', i)) {
      const eol = text.indexOf('\n', i);
      if (eol === -1) return false;
      i = eol + 1;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) return false;
      i = close + 2;
    } else return text[i] === '"';
  }
}

/** Index of the `}` closing the `{` at `start`, or -1; braces in strings and comments do not count. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '/' && text[i + 1] === '/') {
      const eol = text.indexOf('\n', i);
      if (eol === -1) return -1;
      i = eol;
    } else if (char === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) return -1;
      i = close + 1;
    } else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return i;
  }
  return -1;
}

type Reading = Pick<JsonCandidate, 'readings' | 'tolerated' | 'error'>;

/** The object as JSON, else as JSONC (comments, trailing commas), else why it is neither. */
function readObject(source: string): Reading {
  let value: unknown;
  let tolerated: string[] = [];
  try {
    value = JSON.parse(source);
  } catch {
    const errors: ParseError[] = [];
    value = parseJsonc(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
    const [first] = errors;
    if (first) return { readings: [], tolerated: [], error: `${words(printParseErrorCode(first.error))} at ${lineAndColumn(source, first.offset)} of the object` };
    tolerated = jsoncSlips(source);
  }
  const args = unwrapToolCall(value);
  return { readings: args === undefined ? [value] : [args, value], tolerated };
}

/** What JSONC leniency a source that JSON.parse refused needed. */
function jsoncSlips(source: string): string[] {
  let comments = false;
  let trailingComma = false;
  let afterComma = false;
  const value = () => void (afterComma = false);
  const close = () => {
    if (afterComma) trailingComma = true;
    afterComma = false;
  };
  visit(
    source,
    {
      onComment: () => void (comments = true),
      onSeparator: (char) => void (afterComma = char === ','),
      onObjectProperty: value,
      onLiteralValue: value,
      onObjectBegin: value,
      onArrayBegin: value,
      onObjectEnd: close,
      onArrayEnd: close,
    },
    { allowTrailingComma: true },
  );
  return [...(comments ? ['JSONC: comments removed'] : []), ...(trailingComma ? ['JSONC: trailing commas removed'] : [])];
}

/** `CommaExpected` → `comma expected`. */
const words = (code: string) => code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

function lineAndColumn(source: string, offset: number): string {
  const before = source.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * The arguments of a tool call the model wrote as text, e.g. `{"name": "StructuredOutput",
 * "arguments": {…}}`, or the `{"function": …}` and `{"tool_call": …}` wrappers some models write.
 */
function unwrapToolCall(value: unknown): unknown {
  if (!isRecord(value)) return undefined;
  if (isRecord(value.function)) return unwrapToolCall(value.function);
  if (isRecord(value.tool_call)) return unwrapToolCall(value.tool_call);
  if (typeof value.name !== 'string') return undefined;
  const args = value.arguments ?? value.parameters ?? value.input;
  if (isRecord(args)) return args;
  if (typeof args !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
