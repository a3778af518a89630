import { describe, expect, it } from 'vitest';
import { toolTitlesFromClient, type ToolPart } from '../../src/opencode/tool-title.js';

/** A v1 client with the request client its session group shares, recording PATCH bodies. */
function fakeClient() {
  const patched: unknown[] = [];
  const _client = {
    get: async () => ({ data: { parts: [] } }),
    patch: async (options: { body?: unknown }) => {
      patched.push(options.body);
      return { data: {} };
    },
  };
  return { client: { session: { _client } } as never, patched };
}

const part: ToolPart = { id: 'prt_1', sessionID: 'ses_1', messageID: 'msg_1', type: 'tool', tool: 'orca_ask_planner', state: { status: 'running', input: {} } };

describe('the tool title over the client', () => {
  it('should set a title with no control or bidi character, on one line', async () => {
    const { client, patched } = fakeClient();
    await toolTitlesFromClient(client, '/p').setTitle(part, 'plan_X · \x1b[31ms1\u009b\u202E (coder)\nrunning');
    expect(patched).toEqual([{ ...part, state: { status: 'running', input: {}, title: 'plan_X · ␛[31ms1[U+009B][U+202E] (coder) running' } }]);
  });
});
