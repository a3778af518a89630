// Turns a scripted reply into what an OpenAI-compatible chat-completions endpoint sends:
// SSE `chat.completion.chunk`s when streaming, one `chat.completion` object otherwise.

export type ScriptedToolCall = { name: string; arguments: unknown; id?: string };

export type ScriptedReply = {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Wait this long before answering (on top of the server's `latencyMs`). */
  delayMs?: number;
  /** What the usage chunk reports (default: 100 prompt tokens and a count derived from the reply). */
  usage?: ScriptedUsage;
  /** Answer with this HTTP error instead of a completion (a provider refusing the request). */
  httpError?: { status: number; message: string };
};

/** An OpenAI usage block: cached tokens are part of prompt_tokens, reasoning tokens part of completion_tokens. */
export type ScriptedUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
};

const MODEL = 'fake-model';

// The prefix keeps ids unique across scripted-model instances that serve one session (restarts).
export function completionId(prefix: string, sequence: number): string {
  return `chatcmpl-${prefix}-${sequence}`;
}

/** The SSE `data:` payloads for a streamed reply, ending with the usage chunk and [DONE]. */
export function streamChunks(reply: ScriptedReply, id: string): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL, choices, ...extra });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finish }]);

  const out = [delta({ role: 'assistant', content: '' })];
  if (reply.text) out.push(delta({ content: reply.text }));
  toolCallsOf(reply, id).forEach((call, index) => out.push(delta({ tool_calls: [{ index, ...call }] })));
  out.push(delta({}, finishReason(reply)));
  out.push(chunk([], { usage: usage(reply) }));
  out.push('[DONE]');
  return out;
}

/** A non-streaming `chat.completion` body. */
export function completionBody(reply: ScriptedReply, id: string): unknown {
  const calls = toolCallsOf(reply, id);
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: finishReason(reply),
      },
    ],
    usage: usage(reply),
  };
}

function toolCallsOf(reply: ScriptedReply, id: string) {
  return (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${id.replace(/\W/g, '_')}_${i}`,
    type: 'function' as const,
    function: { name: call.name, arguments: argumentsJson(call.arguments) },
  }));
}

// A script may pass arguments already serialised; never double-encode them.
function argumentsJson(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

function finishReason(reply: ScriptedReply): 'tool_calls' | 'stop' {
  return reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

// Token counts only need to be plausible unless a script sets them: OpenCode shows them and sums cost from them.
function usage(reply: ScriptedReply) {
  if (reply.usage) {
    const { prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens } = reply.usage;
    return {
      prompt_tokens,
      completion_tokens,
      total_tokens: prompt_tokens + completion_tokens,
      ...(cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens } } : {}),
      ...(reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens } } : {}),
    };
  }
  const completion = Math.max(1, Math.ceil((reply.text ?? '').length / 4) + (reply.toolCalls?.length ?? 0) * 10);
  return { prompt_tokens: 100, completion_tokens: completion, total_tokens: 100 + completion };
}
