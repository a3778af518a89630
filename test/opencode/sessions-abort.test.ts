// Our sessions port over the v1 client, when the turn's signal aborts a prompt: OpenCode's turn in
// the session is aborted, and the prompt rejects with what its model requests had cost.
import { describe, expect, it } from 'vitest';
import { PromptAbortedError } from '../../src/opencode/prompt-aborted-error.js';
import { sessionsFromClient } from '../../src/opencode/sessions.js';
import { createUsageMeter } from '../../src/opencode/usage-meter.js';
import { usageOfError } from '../../src/machines/turn.js';

const tokens = (input: number) => ({ input, output: 10, reasoning: 0, cache: { read: 0, write: 0 } });
const assistant = (id: string, input: number, cost: number, created = Date.now()) => ({ id, parentID: 'msg_u1', sessionID: 'ses_c', role: 'assistant', tokens: tokens(input), cost, time: { created } });
const updated = (info: ReturnType<typeof assistant>) => ({ type: 'message.updated', properties: { info } });

/** The v1 client's session calls a prompt uses; `answer` settles the blocking prompt. */
function client(answer: (options: { signal?: AbortSignal }) => Promise<unknown>) {
  const aborted: string[] = [];
  const session = {
    prompt: answer,
    abort: async (options: { path: { id: string } }) => (aborted.push(options.path.id), { data: true }),
  };
  return { client: { session } as never, aborted };
}

describe('sessionsFromClient prompt, aborted', () => {
  it('should abort the session and reject with what its model requests had cost, the one in flight included', async () => {
    const meter = createUsageMeter();
    const fake = client(({ signal }) => new Promise((_resolve, reject) => signal!.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')), { once: true })));
    const sessions = sessionsFromClient(fake.client, '/project', undefined, meter);
    const controller = new AbortController();
    const prompt = sessions.prompt({ sessionID: 'ses_c', agent: 'coder', text: 'do it', signal: controller.signal });
    meter.observe(updated(assistant('msg_1', 600, 0.002))); // a read
    meter.observe(updated(assistant('msg_2', 0, 0))); // the answer, streaming when the turn is stopped
    const reason = new Error('plan released');
    controller.abort(reason);
    const error = await prompt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptAbortedError);
    expect(error).toMatchObject({ sessionId: 'ses_c', cause: reason });
    expect(usageOfError(error)).toEqual({ turns: 1, model_calls: 2, input: 600, output: 20, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0.002 });
    expect(fake.aborted).toEqual(['ses_c']);
  });

  it('should reject with the reply\'s cost when the reply came as the signal aborted', async () => {
    const meter = createUsageMeter();
    const controller = new AbortController();
    const fake = client(async () => {
      controller.abort(new Error('Esc'));
      return { data: { info: assistant('msg_1', 300, 0.001), parts: [{ type: 'text', text: 'done' }] } };
    });
    const error = await sessionsFromClient(fake.client, '/project', undefined, meter)
      .prompt({ sessionID: 'ses_c', agent: 'coder', text: 'do it', signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptAbortedError);
    expect(usageOfError(error)).toMatchObject({ turns: 1, model_calls: 1, input: 300, cost: 0.001 });
  });
});
