/**
 * A worktree slot's OpenCode instance takes seconds to be ready for its first model request (its
 * tools, its location services); a step that finds it ready starts at once. The main instance warms
 * a slot made ahead by running one turn there of this hidden agent, whose "model" is an in-process
 * function that answers every request with one short text: no request leaves OpenCode. Installed
 * only in a slot's (passive) instance.
 */
export const WARMUP_AGENT_ID = 'orca-warmup';
export const WARMUP_PROVIDER_ID = 'orca-warmup';
const WARMUP_MODEL_ID = 'warm';
const REPLY = 'ready';

/** The part of OpenCode's config (as the `config` hook receives it) this module writes. */
export interface WarmupConfigTarget {
  provider?: unknown;
  agent?: unknown;
  enabled_providers?: unknown;
}

export function registerWarmup(cfg: WarmupConfigTarget): void {
  if (!isRecord(cfg.provider)) cfg.provider = {};
  (cfg.provider as Record<string, unknown>)[WARMUP_PROVIDER_ID] = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Orca worktree warm-up (no model)',
    options: { baseURL: 'http://orca-warmup.invalid/v1', apiKey: 'orca-warmup', fetch: warmupFetch },
    models: { [WARMUP_MODEL_ID]: { name: 'Orca warm-up (no model)', tool_call: false, cost: { input: 0, output: 0 }, limit: { context: 1_000_000, output: 64 } } },
  };
  const enabled = cfg.enabled_providers;
  if (Array.isArray(enabled) && !enabled.includes(WARMUP_PROVIDER_ID)) enabled.push(WARMUP_PROVIDER_ID);
  if (!isRecord(cfg.agent)) cfg.agent = {};
  (cfg.agent as Record<string, unknown>)[WARMUP_AGENT_ID] = {
    mode: 'subagent',
    hidden: true,
    description: 'Orca: gets a worktree slot ready (no model involved)',
    model: `${WARMUP_PROVIDER_ID}/${WARMUP_MODEL_ID}`,
    prompt: 'Reply with one word. This agent is answered in process, not by a language model.',
    permission: { '*': 'deny' },
  };
}

/** The provider's `options.fetch`: one text turn for any chat completion, streamed or not. */
export async function warmupFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!/\/chat\/completions(\?|$)/.test(url)) return Response.json({ error: { message: `orca-warmup serves only chat completions, not ${url}` } }, { status: 404 });
  const raw = init?.body != null ? await new Response(init.body).text() : '';
  const stream = !/"stream"\s*:\s*false/.test(raw);
  const id = `chatcmpl-orca-warmup-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  if (!stream) {
    return Response.json({ id, object: 'chat.completion', created, model: WARMUP_MODEL_ID, choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }], usage });
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ id, object: 'chat.completion.chunk', created, model: WARMUP_MODEL_ID, choices, ...extra });
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: REPLY }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], { usage }),
    '[DONE]',
  ];
  return new Response(events.map((data) => `data: ${data}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The part of OpenCode's v1 client warming a slot uses. */
export interface WarmupClient {
  session: {
    create(options: { body: { title: string }; query: { directory: string } }): Promise<{ data?: { id: string } | undefined; error?: unknown }>;
    prompt(options: { path: { id: string }; query: { directory: string }; body: { agent: string; parts: Array<{ type: 'text'; text: string }> } }): Promise<{ error?: unknown }>;
    delete(options: { path: { id: string }; query: { directory: string } }): Promise<{ error?: unknown }>;
  };
}

/**
 * Warms the OpenCode instance of a slot's folder with one in-process turn in a session made for it,
 * deleted after (so it never lingers in a session list).
 */
export function warmSlotWith(client: WarmupClient) {
  return async (directory: string): Promise<void> => {
    const created = await client.session.create({ body: { title: 'Orca: getting a worktree slot ready' }, query: { directory } });
    const id = created.data?.id;
    if (!id) throw new Error(`OpenCode made no session in ${directory} to warm it: ${JSON.stringify(created.error)}`);
    try {
      const res = await client.session.prompt({ path: { id }, query: { directory }, body: { agent: WARMUP_AGENT_ID, parts: [{ type: 'text', text: 'ready?' }] } });
      if (res.error) throw new Error(`the warm-up turn in ${directory} failed: ${JSON.stringify(res.error)}`);
    } finally {
      await client.session.delete({ path: { id }, query: { directory } });
    }
  };
}
