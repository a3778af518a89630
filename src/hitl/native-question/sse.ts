import { QUESTION_MODEL_ID } from './ids.js';

/** One streamed assistant turn of the question model: a `question` tool call, or text that ends the run. */
export type ModelTurn =
  | { kind: 'tool_call'; callId: string; name: string; arguments: unknown }
  | { kind: 'text'; text: string };

/**
 * The OpenAI chat-completions SSE stream for one turn, as @ai-sdk/openai-compatible parses it:
 * role chunk, content or one tool call, finish_reason, a usage chunk, then [DONE].
 */
export function sseEvents(turn: ModelTurn, id: string, created = Math.floor(Date.now() / 1000)): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created, model: QUESTION_MODEL_ID, choices, ...extra });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);

  const events = [delta({ role: 'assistant', content: '' })];
  if (turn.kind === 'text') {
    events.push(delta({ content: turn.text }), delta({}, 'stop'));
  } else {
    const call = { index: 0, id: turn.callId, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.arguments) } };
    events.push(delta({ tool_calls: [call] }), delta({}, 'tool_calls'));
  }
  events.push(chunk([], { usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }), '[DONE]');
  return events;
}

/** The whole SSE body: each event as a `data:` line followed by a blank line. */
export function sseBody(turn: ModelTurn, id: string, created?: number): string {
  return sseEvents(turn, id, created)
    .map((data) => `data: ${data}\n\n`)
    .join('');
}
