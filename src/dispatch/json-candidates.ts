/** Where in a reply a JSON candidate was found, in the order they are tried. */
export type CandidateSource = 'tag' | 'fence' | 'whole' | 'scan';

export interface JsonCandidate {
  readonly via: CandidateSource;
  readonly value: unknown;
}

export interface CandidateSearch {
  readonly candidates: JsonCandidate[];
  /** No tag, fence or whole-text JSON, and the first `{` never closes: the reply was probably cut off. */
  readonly truncated: boolean;
}

const TAGGED = [
  /<(output|json|result|response|answer|tool_call|function_call)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi,
  /<\|(tool_call)\|>([\s\S]*?)<\|\/tool_call\|>/gi,
  /\[(TOOL_CALL)\]([\s\S]*?)\[\/TOOL_CALL\]/gi,
];
const FENCE = /```[\w-]*[^\S\n]*\n?([\s\S]*?)```/g;

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

/** The JSON values in the text, most deliberate first: tags, fences, the whole text, then a brace scan. */
export function findJsonCandidates(text: string): CandidateSearch {
  const candidates: JsonCandidate[] = [];
  const add = (via: CandidateSource, value: unknown): void => {
    const inner = unwrapToolCall(value);
    if (inner !== undefined) candidates.push({ via, value: inner });
    candidates.push({ via, value });
  };

  for (const pattern of TAGGED)
    for (const match of text.matchAll(pattern)) {
      const body = unfence(match[2] ?? '');
      const whole = parseJson(body);
      if (whole !== undefined) add('tag', whole);
      else for (const value of scanObjects(body).objects) add('tag', value);
    }
  for (const match of text.matchAll(FENCE)) {
    const value = parseJson(match[1] ?? '');
    if (value !== undefined) add('fence', value);
  }
  const whole = parseJson(text);
  if (whole !== undefined) add('whole', whole);
  const deliberate = candidates.length;
  const scan = scanObjects(text);
  for (const value of scan.objects) add('scan', value);
  return { candidates, truncated: deliberate === 0 && scan.truncated };
}

/** Bounds the work on long replies full of braces that are not JSON (code, templates). */
const MAX_SCAN_STARTS = 1000;

/**
 * Top-level `{…}` objects that parse as JSON, found by matching braces outside strings. When a
 * balanced span is not JSON (prose in braces) or never closes, the scan resumes just inside it.
 */
export function scanObjects(text: string): { objects: unknown[]; truncated: boolean } {
  const objects: unknown[] = [];
  let from = text.indexOf('{');
  const truncated = from !== -1 && matchingBrace(text, from) === -1;
  for (let starts = 0; from !== -1 && starts < MAX_SCAN_STARTS; starts++) {
    const end = matchingBrace(text, from);
    const value = end === -1 ? undefined : parseJson(text.slice(from, end + 1));
    if (value !== undefined) objects.push(value);
    from = text.indexOf('{', value !== undefined ? end + 1 : from + 1);
  }
  return { objects, truncated };
}

/** Index of the `}` closing the `{` at `start`, or -1; braces inside strings do not count. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return i;
  }
  return -1;
}

/** A JSON object or array, or undefined; scalars are never a model's structured answer. */
function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function unfence(text: string): string {
  const fenced = /^\s*```[\w-]*[^\S\n]*\n?([\s\S]*?)```\s*$/.exec(text);
  return fenced ? (fenced[1] ?? '') : text;
}

/**
 * The arguments of a tool call the model wrote as text, e.g. `{"name": "StructuredOutput",
 * "arguments": {…}}`, or the `{"function": …}` and `{"tool_call": …}` wrappers (seed 001).
 */
function unwrapToolCall(value: unknown): unknown {
  if (!isRecord(value)) return undefined;
  if (isRecord(value.function)) return unwrapToolCall(value.function);
  if (isRecord(value.tool_call)) return unwrapToolCall(value.tool_call);
  if (typeof value.name !== 'string') return undefined;
  const args = value.arguments ?? value.parameters ?? value.input;
  return typeof args === 'string' ? parseJson(args) : isRecord(args) ? args : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
