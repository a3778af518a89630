import type { PluginInput } from '@opencode-ai/plugin';
import { opencodeVersionWords } from '../config/supported-opencode.js';
import { errorMessage } from '../errors.js';
import { quote } from '../text/quote.js';

/** The generic request method of the hey-api client behind every v1 SDK group. */
type RawClient = { get(options: { url: string }): Promise<{ data?: unknown; error?: unknown }> };

/** How long the start-up check waits for the server's answer before it says it could not tell. */
export const VERSION_TIMEOUT_MS = 30_000;

/**
 * The version of the OpenCode server the plugin runs in: `GET /global/health` (`{healthy, version}`, in 1.18.3
 * as in 1.18.33) through the plugin's own client, to the server it runs in (its own port, or in process when
 * it serves none): nothing leaves the machine. The v1 client has no health call: this uses the hey-api client
 * its groups share (an internal field, as src/hitl/native-question/open-questions.ts does). Throws when it
 * cannot tell.
 */
export async function serverVersion(client: PluginInput['client']): Promise<string> {
  const raw = (client.app as unknown as { _client?: RawClient } | undefined)?._client;
  if (typeof raw?.get !== 'function') throw new Error('the v1 SDK client exposes no request client (_client)');
  const res = await raw.get({ url: '/global/health' });
  const version = (res.data as { version?: unknown } | undefined)?.version;
  if (typeof version !== 'string') throw new Error(`GET /global/health answered ${quote(res.error ?? res.data)}`);
  return version;
}

/**
 * Says in the log which OpenCode runs Orca, and warns when it is outside the versions Orca supports
 * (src/config/supported-opencode.ts): a warning, never a refusal. Off the start-up path: the plugin does not
 * wait for it, and it never throws (a server that does not answer within `timeoutMs` is a warning too).
 */
export async function logOpencodeVersion(
  client: PluginInput['client'],
  log: (level: 'info' | 'warn', message: string) => void,
  { timeoutMs = VERSION_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from GET /global/health within ${timeoutMs} ms`)), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
    });
    const version = await Promise.race([serverVersion(client), timeout]);
    const words = opencodeVersionWords(version);
    if (words.supported) log('info', `OpenCode ${version}: ${words.summary}`);
    else log('warn', `OpenCode ${version}: ${words.summary}. ${words.advice}`);
  } catch (error) {
    log('warn', `could not tell which OpenCode version runs Orca: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
