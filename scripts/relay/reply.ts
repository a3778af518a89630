// Reading what the person acting as the model or the human wrote: a reply file becomes a
// ScriptedReply (streamed back by the scripted model's wire code), an answer file becomes the
// answers of a question or permission dialog. A file that does not parse says why; the relay
// then waits for a corrected one.
import type { ScriptedReply } from '../../test/support/openai-wire.js';
import { PERMISSION_REPLIES, type QuestionRequest } from './render.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const TOOL_LINE = /^TOOL[ \t]+([A-Za-z0-9_.:-]+)[ \t]*$/;

/**
 * A reply file: optional text, then any number of blocks
 *
 *     TOOL read
 *     {"filePath": "src/stats.js"}
 *
 * each a tool call whose arguments are the JSON object on the lines up to the next TOOL line
 * (a ```json fence around it is allowed; no lines means `{}`). `offered`, when given, are the
 * tool names the request offered: a call to any other is refused here rather than by OpenCode.
 */
export function parseReply(source: string, offered?: readonly string[]): Parsed<ScriptedReply> {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const starts = lines.flatMap((line, i) => (TOOL_LINE.test(line) ? [i] : []));
  const text = lines.slice(0, starts[0] ?? lines.length).join('\n').trim();
  const toolCalls: { name: string; arguments: unknown }[] = [];
  for (const [k, start] of starts.entries()) {
    const name = TOOL_LINE.exec(lines[start]!)![1]!;
    const body = unfence(lines.slice(start + 1, starts[k + 1] ?? lines.length).join('\n').trim());
    if (offered && !offered.includes(name)) {
      return { ok: false, error: `TOOL ${name}: the request offered no such tool; offered: ${offered.join(', ') || '(none)'}` };
    }
    let args: unknown = {};
    if (body) {
      try {
        args = JSON.parse(body);
      } catch (error) {
        return { ok: false, error: `TOOL ${name}: expected one JSON object of arguments on the lines after it, but ${(error as Error).message}` };
      }
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { ok: false, error: `TOOL ${name}: expected a JSON object of arguments, got ${Array.isArray(args) ? 'an array' : typeof args}` };
    }
    toolCalls.push({ name, arguments: args });
  }
  if (!text && toolCalls.length === 0) return { ok: false, error: 'the reply is empty: write text, or TOOL blocks' };
  return { ok: true, value: { ...(text ? { text } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) } };
}

function unfence(body: string): string {
  const fenced = /^(`{3,})[\w-]*\n([\s\S]*)\n\1$/.exec(body);
  return fenced ? fenced[2]!.trim() : body;
}

/** Non-empty lines, comments (`#` first) skipped. */
const answerLines = (source: string) =>
  source
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/**
 * An answer file for a question dialog: one line per question, in order. A line is an option's
 * number or label (any case), or free text; for a question with `multiple`, labels are
 * separated by `|`. The result is what POST /question/:id/reply takes: one array per question.
 */
export function parseAnswers(source: string, request: Pick<QuestionRequest, 'questions'>): Parsed<string[][]> {
  const lines = answerLines(source);
  const wanted = request.questions.length;
  if (lines.length !== wanted) {
    return { ok: false, error: `expected ${wanted} answer line${wanted === 1 ? '' : 's'} (one per question), got ${lines.length}` };
  }
  const answers = request.questions.map((question, i) => {
    const parts = question.multiple ? lines[i]!.split('|').map((p) => p.trim()).filter(Boolean) : [lines[i]!];
    return parts.map((part) => optionLabel(part, question.options ?? []));
  });
  return { ok: true, value: answers };
}

function optionLabel(answer: string, options: readonly { label: string }[]): string {
  if (/^\d+$/.test(answer)) {
    const option = options[Number(answer) - 1];
    if (option) return option.label;
  }
  return options.find((o) => o.label.toLowerCase() === answer.toLowerCase())?.label ?? answer;
}

export type PermissionAnswer = { reply: (typeof PERMISSION_REPLIES)[number]; message?: string };

/** An answer file for a permission dialog: `once`, `always`, `reject` (or 1–3); other text rejects with it. */
export function parsePermissionAnswer(source: string): Parsed<PermissionAnswer> {
  const line = answerLines(source).join(' ');
  if (!line) return { ok: false, error: 'the answer is empty: write once, always or reject' };
  const byNumber = /^[123]$/.test(line) ? PERMISSION_REPLIES[Number(line) - 1] : undefined;
  const byName = PERMISSION_REPLIES.find((r) => r === line.toLowerCase());
  const reply = byNumber ?? byName;
  return { ok: true, value: reply ? { reply } : { reply: 'reject', message: line } };
}
