import type { PluginInput } from '@opencode-ai/plugin';
import { quote } from '../../text/quote.js';

/** The generic request methods of the hey-api client behind every v1 SDK group. */
type RawClient = {
  get(options: { url: string; query?: Record<string, unknown> }): Promise<{ data?: unknown; error?: unknown }>;
  post(options: { url: string; query?: Record<string, unknown> }): Promise<{ data?: unknown; error?: unknown }>;
};

/**
 * Rejects every open question request of one session: GET /question, then POST /question/:id/reject
 * for each. OpenCode 1.18 leaves a question open (and its dialog on screen) when its session is
 * aborted (https://github.com/anomalyco/opencode/issues/46163), so an abandoned ask must close it
 * itself. The v1 client has no question API; this uses the hey-api client the SDK groups share (an
 * internal field), so it goes through the same in-process fetch and auth as every other call.
 * Returns how many were rejected; throws when the raw client is missing or a call fails.
 */
export async function rejectOpenQuestions(client: PluginInput['client'], directory: string, sessionId: string): Promise<number> {
  const raw = (client.session as unknown as { _client?: RawClient })._client;
  if (typeof raw?.get !== 'function' || typeof raw.post !== 'function') {
    throw new Error('Expected the v1 SDK client to expose its request client (_client); cannot close the question.');
  }
  const listed = await raw.get({ url: '/question', query: { directory } });
  if (!Array.isArray(listed.data)) throw new Error(`Expected GET /question to return a list, got ${quote(listed.error ?? listed.data)}`);
  const open = (listed.data as Array<{ id?: unknown; sessionID?: unknown }>).filter((q) => q.sessionID === sessionId && typeof q.id === 'string');
  for (const q of open) {
    const res = await raw.post({ url: `/question/${encodeURIComponent(q.id as string)}/reject`, query: { directory } });
    if (res.error) throw new Error(`Expected POST /question/${q.id}/reject to succeed: ${quote(res.error)}`);
  }
  return open.length;
}
