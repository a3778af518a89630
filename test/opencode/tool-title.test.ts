import { describe, expect, it } from 'vitest';
import { toolTitlesFromClient, type ToolPart } from '../../src/opencode/tool-title.js';

/** A v1 client with the request client its session group shares, recording PATCH bodies. */
function fakeClient(parts: unknown[] = []) {
  const patched: unknown[] = [];
  const _client = {
    get: async () => ({ data: { info: { time: { created: 1, completed: 2 } }, parts } }),
    patch: async (options: { body?: unknown }) => {
      patched.push(options.body);
      return { data: {} };
    },
  };
  return { client: { session: { _client } } as never, patched };
}

/**
 * A message OpenCode answers in turns: each GET answers the next of `reads` (the last one again
 * after), `onRead` running first; everything read and written is recorded in order.
 */
function scriptedMessage(reads: { completed: boolean; part: unknown }[], onRead: (n: number) => void = () => {}) {
  const log: string[] = [];
  const patched: unknown[] = [];
  let n = 0;
  const _client = {
    get: async () => {
      onRead(n);
      const read = reads[Math.min(n++, reads.length - 1)]!;
      log.push(`GET ${(read.part as ToolPart).state.status}${read.completed ? ' completed' : ''}`);
      return { data: { info: { time: read.completed ? { created: 1, completed: 2 } : { created: 1 } }, parts: [read.part] } };
    },
    patch: async (options: { body?: unknown }) => {
      log.push(`PATCH ${(options.body as ToolPart).state.status}`);
      patched.push(options.body);
      return { data: {} };
    },
  };
  return { client: { session: { _client } } as never, patched, log };
}

const live = () => new AbortController().signal;
const escaped = () => AbortSignal.abort();
const fastPoll = { everyMs: 1, forMs: 200 };

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
    await toolTitlesFromClient(client, '/p').restore(found, live());
    expect(patched).toEqual([{ ...stored, state: { status: 'error', input: { message: 'm' }, error: 'Tool execution aborted' } }]);
  });

  it('should take the progress title back with the progress entry: no title left saying "0/1 done" once the lines are gone', async () => {
    // Still running as the call ends: the last lines shown are on it, input and title alike.
    const stored = { ...part, state: { status: 'running', input: { message: 'm', progress: 'plan_X · 0/1 done\n▶ s1 (coder) running' }, title: 'plan_X · 0/1 done' } };
    const { client, patched } = fakeClient([stored]);
    await toolTitlesFromClient(client, '/p').restore({ ...part, state: { ...part.state, input: { message: 'm' } } }, live());
    expect(patched).toEqual([{ ...stored, state: { status: 'running', input: { message: 'm' } } }]);
    // A part found with a title of its own gets that one back.
    const titled = fakeClient([stored]);
    await toolTitlesFromClient(titled.client, '/p').restore({ ...part, state: { ...part.state, input: { message: 'm' }, title: 'plan plan_X' } }, live());
    expect(titled.patched).toEqual([{ ...stored, state: { status: 'running', input: { message: 'm' }, title: 'plan plan_X' } }]);
  });

  it('should leave a part alone whose input is the one it was found with', async () => {
    const { client, patched } = fakeClient([part]);
    await toolTitlesFromClient(client, '/p').restore(part, live());
    expect(patched).toEqual([]);
  });

  describe('after Esc (the turn aborted), OpenCode ends the call itself: 250 ms later it reads the part and writes it aborted', () => {
    const sent = { ...part, state: { ...part.state, input: { message: 'm' } } };
    const shown = { ...part, state: { status: 'running', input: { message: 'm', progress: 'plan_X · 0/1 done' }, title: 'plan_X · 0/1 done', time: { start: 5 } } };
    const ended = { ...part, state: { status: 'error', input: { message: 'm', progress: 'plan_X · 0/1 done' }, title: 'plan_X · 0/1 done', error: 'Tool execution aborted', metadata: { interrupted: true }, time: { start: 5, end: 9 } } };

    it('should write nothing while OpenCode has not ended the turn, then put input and title back in the state OpenCode left', async () => {
      const message = scriptedMessage([
        { completed: false, part: shown },
        { completed: false, part: shown },
        { completed: true, part: ended },
      ]);
      await toolTitlesFromClient(message.client, '/p', fastPoll).restore(sent, escaped());
      // A write while it runs would be lost under OpenCode's end, or make the part running again for good.
      expect(message.log).toEqual(['GET running', 'GET running', 'GET error completed', 'PATCH error']);
      expect(message.patched).toEqual([{ ...ended, state: { status: 'error', input: { message: 'm' }, error: 'Tool execution aborted', metadata: { interrupted: true }, time: { start: 5, end: 9 } } }]);
    });

    it('should end the call as OpenCode ends an aborted one when it is running once the turn ended (a write of Orca\'s landed after OpenCode\'s end)', async () => {
      const message = scriptedMessage([{ completed: true, part: shown }]);
      const before = Date.now();
      await toolTitlesFromClient(message.client, '/p', fastPoll).restore(sent, escaped());
      expect(message.log).toEqual(['GET running completed', 'PATCH error']);
      const written = message.patched[0] as ToolPart;
      expect(written.state).toEqual({ status: 'error', input: { message: 'm' }, error: 'Tool execution aborted', metadata: { interrupted: true }, time: { start: 5, end: expect.any(Number) } });
      expect((written.state.time as { end: number }).end).toBeGreaterThanOrEqual(before);
    });

    it('should not write a part it read running when Esc came during the read: it waits for OpenCode\'s end like after Esc', async () => {
      const turn = new AbortController();
      const message = scriptedMessage(
        [
          { completed: false, part: shown },
          { completed: true, part: ended },
        ],
        (n) => n === 0 && turn.abort(),
      );
      await toolTitlesFromClient(message.client, '/p', fastPoll).restore(sent, turn.signal);
      expect(message.log).toEqual(['GET running', 'GET error completed', 'PATCH error']);
    });

    it('should leave a part alone whose input and title are what the model sent once the turn ended', async () => {
      const message = scriptedMessage([{ completed: true, part: { ...ended, state: { ...ended.state, input: { message: 'm' }, title: undefined } } }]);
      await toolTitlesFromClient(message.client, '/p', fastPoll).restore(sent, escaped());
      expect(message.patched).toEqual([]);
    });

    it('should fail, writing nothing, when OpenCode has not ended the turn within the bound', async () => {
      const message = scriptedMessage([{ completed: false, part: shown }]);
      await expect(toolTitlesFromClient(message.client, '/p', { everyMs: 5, forMs: 30 }).restore(sent, escaped())).rejects.toThrow(
        'OpenCode had not ended the aborted turn\'s message msg_1 after 0.03 s',
      );
      expect(message.patched).toEqual([]);
    });
  });
});
