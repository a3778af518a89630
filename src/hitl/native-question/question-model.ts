import { decodeQuestionPayload } from './payload.js';
import { sseBody, type ModelTurn } from './sse.js';

/** A user message part that starts with this is a note the in-process model says back as its reply (hitl/commands.ts, notices/session-notes.ts). */
export const NOTE_PREFIX = 'orca-hitl note:';

/** The text turn that ends the child session's run once the question tool has its result. */
export const DONE_TEXT = 'Answer recorded.';

type Message = { role?: unknown; content?: unknown };

/**
 * What the in-process question model says next, from the chat-completions request body alone:
 * after a tool result, a short text turn (the run ends); else a `question` call built from the
 * payload in the system messages (the prompt's `system`, see asker.ts); a request without a
 * payload gets a text turn naming the problem.
 */
export function nextTurn(body: unknown, callId: string): ModelTurn {
  const messages: Message[] = Array.isArray((body as { messages?: unknown })?.messages) ? (body as { messages: Message[] }).messages : [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return { kind: 'text', text: DONE_TEXT };
  const user = [...messages].reverse().find((m) => m.role === 'user');
  // A slash command's confirmation or Orca's note for a session: said back verbatim, no question.
  const note = user ? noteOf(user.content) : undefined;
  if (note !== undefined) return { kind: 'text', text: note };
  const userText = user ? textOf(user.content) : '';
  const system = messages.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n');
  const payload = decodeQuestionPayload(system);
  if (payload instanceof Error) return { kind: 'text', text: `orca-hitl: no question asked. ${payload.message}` };
  return { kind: 'tool_call', callId, name: 'question', arguments: { questions: payload.questions } };
}

/** The note a message carries: its text, or the one text part, that starts with NOTE_PREFIX (the command's own words may come first). */
export function noteOf(content: unknown): string | undefined {
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.map((p: unknown) => textOf([p])) : [];
  const note = texts.find((t) => t.startsWith(NOTE_PREFIX));
  return note === undefined ? undefined : note.slice(NOTE_PREFIX.length).trim();
}

/** Message content is a string or an array of parts; this joins the text parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: unknown) => (typeof p === 'string' ? p : typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('');
}

let sequence = 0;

/**
 * The provider's `options.fetch`: answers every chat-completions request in process, so no
 * request leaves OpenCode and no model is involved. Anything else gets a 404 that says so.
 */
export async function questionModelFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!/\/chat\/completions(\?|$)/.test(url)) {
    return Response.json({ error: { message: `orca-hitl serves only chat completions, not ${url}` } }, { status: 404 });
  }
  const raw = init?.body != null ? await new Response(init.body).text() : input instanceof Request ? await input.text() : '';
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = {};
  }
  const id = `chatcmpl-orca-hitl-${Date.now().toString(36)}-${++sequence}`;
  const turn = nextTurn(body, `call_orca_hitl_${Date.now().toString(36)}_${sequence}`);
  if ((body as { stream?: unknown }).stream === false) return Response.json(completion(turn, id));
  return new Response(sseBody(turn, id), { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

function completion(turn: ModelTurn, id: string): unknown {
  const message =
    turn.kind === 'text'
      ? { role: 'assistant', content: turn.text }
      : { role: 'assistant', content: null, tool_calls: [{ id: turn.callId, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.arguments) } }] };
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'question',
    choices: [{ index: 0, message, finish_reason: turn.kind === 'text' ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}
