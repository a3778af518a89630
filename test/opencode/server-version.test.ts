import type { PluginInput } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import { logOpencodeVersion, serverVersion } from '../../src/opencode/server-version.js';

type Answer = { data?: unknown; error?: unknown };

/** The plugin's v1 client as far as the check uses it: the hey-api request client its groups share. */
function clientAnswering(answer: (url: string) => Promise<Answer>): { client: PluginInput['client']; urls: string[] } {
  const urls: string[] = [];
  const raw = { get: ({ url }: { url: string }) => (urls.push(url), answer(url)) };
  return { client: { app: { _client: raw }, session: { _client: raw } } as unknown as PluginInput['client'], urls };
}
const healthy = (version: string) => async () => ({ data: { healthy: true, version } });

async function logged(client: PluginInput['client'], options?: { timeoutMs?: number }) {
  const lines: Array<[string, string]> = [];
  await logOpencodeVersion(client, (level, message) => lines.push([level, message]), options);
  return lines;
}

describe("the start-up log's OpenCode version", () => {
  it('should ask the server itself, GET /global/health through the plugin client', async () => {
    const { client, urls } = clientAnswering(healthy('1.18.33'));
    expect(await serverVersion(client)).toBe('1.18.33');
    expect(urls).toEqual(['/global/health']);
  });

  it('should say the version as info inside the range', async () => {
    expect(await logged(clientAnswering(healthy('1.18.33')).client)).toEqual([['info', 'OpenCode 1.18.33: supported (1.18.3 … 1.18.33)']]);
    expect(await logged(clientAnswering(healthy('1.18.3')).client)).toEqual([['info', 'OpenCode 1.18.3: supported (1.18.3 … 1.18.33)']]);
  });

  it('should warn below and above the range, and for what is not a version', async () => {
    expect(await logged(clientAnswering(healthy('1.17.20')).client)).toEqual([
      ['warn', 'OpenCode 1.17.20: older than the versions Orca supports (1.18.3 … 1.18.33). Orca may not work on it (a warning, not a refusal): update OpenCode to 1.18.3 or later, up to 1.18.33'],
    ]);
    expect(await logged(clientAnswering(healthy('1.19.0')).client)).toEqual([
      ['warn', 'OpenCode 1.19.0: newer than the versions Orca supports (1.18.3 … 1.18.33). Orca is not tested on it and may not work there (a warning, not a refusal); 1.18.33 is the newest OpenCode it is tested with'],
    ]);
    expect(await logged(clientAnswering(healthy('dev')).client)).toEqual([
      ['warn', 'OpenCode dev: not a version Orca can compare with the ones it supports (1.18.3 … 1.18.33). Orca cannot tell whether it works there (a warning, not a refusal)'],
    ]);
  });

  it('should warn, never throw, when the server cannot say', async () => {
    const said = async (answer: (url: string) => Promise<Answer>) => (await logged(clientAnswering(answer).client, { timeoutMs: 50 }))[0];
    expect(await said(async () => ({ error: { name: 'NotFound' } }))).toEqual(['warn', 'could not tell which OpenCode version runs Orca: GET /global/health answered {"name":"NotFound"}']);
    expect(await said(async () => ({ data: '<html>' }))).toEqual(['warn', 'could not tell which OpenCode version runs Orca: GET /global/health answered "<html>"']);
    expect(await said(() => Promise.reject(new Error('socket hang up')))).toEqual(['warn', 'could not tell which OpenCode version runs Orca: socket hang up']);
    // A request that never ends (one accepted while the server starts can hang): the check gives up, the plugin never waited.
    expect(await said(() => new Promise<Answer>(() => {}))).toEqual(['warn', 'could not tell which OpenCode version runs Orca: no answer from GET /global/health within 50 ms']);
    expect(await logged({ app: {} } as unknown as PluginInput['client'])).toEqual([['warn', 'could not tell which OpenCode version runs Orca: the v1 SDK client exposes no request client (_client)']]);
  });
});
