import { describe, expect, it } from 'vitest';
import { toolTitlesFromClient, type ToolPart } from '../../src/opencode/tool-title.js';

/** A v1 client with the request client its session group shares, recording PATCH bodies. */
function fakeClient(parts: unknown[] = []) {
  const patched: unknown[] = [];
  const _client = {
    get: async () => ({ data: { parts } }),
    patch: async (options: { body?: unknown }) => {
      patched.push(options.body);
      return { data: {} };
    },
  };
  return { client: { session: { _client } } as never, patched };
}

const part: ToolPart = { id: 'prt_1', sessionID: 'ses_1', messageID: 'msg_1', type: 'tool', tool: 'orca_ask_planner', state: { status: 'running', input: {} } };

describe('the tool title over the client', () => {
  it('should set the progress lines in the input and the first as the title, on one line, with no control or bidi character', async () => {
    const { client, patched } = fakeClient();
    const withInput = { ...part, state: { ...part.state, input: { message: 'm' } } };
    await toolTitlesFromClient(client, '/p').show(withInput, ['plan_X · \x1b[31ms1\u009b\u202E 0/1\ndone', '▶ s1\x1b[2J (coder)\nrunning']);
    expect(patched).toEqual([
      {
        ...part,
        state: {
          status: 'running',
          input: { message: 'm', progress: 'plan_X · ␛[31ms1[U+009B][U+202E] 0/1 done\n▶ s1␛[2J (coder) running' },
          title: 'plan_X · ␛[31ms1[U+009B][U+202E] 0/1 done',
        },
      },
    ]);
  });

  it('should give the part back the input it was found with, in the state it is in now', async () => {
    const stored = { ...part, state: { status: 'error', input: { message: 'm', progress: 'plan_X · 0/1 done' }, error: 'Tool execution aborted' } };
    const { client, patched } = fakeClient([stored]);
    const found = { ...part, state: { ...part.state, input: { message: 'm' } } };
    await toolTitlesFromClient(client, '/p').restore(found);
    expect(patched).toEqual([{ ...stored, state: { status: 'error', input: { message: 'm' }, error: 'Tool execution aborted' } }]);
  });

  it('should take the progress title back with the progress entry: no title left saying "0/1 done" once the lines are gone', async () => {
    // Still running as the call ends: the last lines shown are on it, input and title alike.
    const stored = { ...part, state: { status: 'running', input: { message: 'm', progress: 'plan_X · 0/1 done\n▶ s1 (coder) running' }, title: 'plan_X · 0/1 done' } };
    const { client, patched } = fakeClient([stored]);
    await toolTitlesFromClient(client, '/p').restore({ ...part, state: { ...part.state, input: { message: 'm' } } });
    expect(patched).toEqual([{ ...stored, state: { status: 'running', input: { message: 'm' } } }]);
    // A part found with a title of its own gets that one back.
    const titled = fakeClient([stored]);
    await toolTitlesFromClient(titled.client, '/p').restore({ ...part, state: { ...part.state, input: { message: 'm' }, title: 'plan plan_X' } });
    expect(titled.patched).toEqual([{ ...stored, state: { status: 'running', input: { message: 'm' }, title: 'plan plan_X' } }]);
  });

  it('should leave a part alone whose input is the one it was found with', async () => {
    const { client, patched } = fakeClient([part]);
    await toolTitlesFromClient(client, '/p').restore(part);
    expect(patched).toEqual([]);
  });
});
