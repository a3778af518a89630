import { describe, expect, it } from 'vitest';
import { notePortsWith, RESTORE_TEXT } from '../../src/opencode/session-notes.js';
import { QUESTION_AGENT_ID, QUESTION_MODEL } from '../../src/hitl/native-question/index.js';

/** A v1 client with what restore uses: the session's messages, the sessions' status, prompt. */
function fakeClient(users: Array<{ agent: string; model: { providerID: string; modelID: string } }>, status: Record<string, { type: string }>) {
  const prompts: unknown[] = [];
  const client = {
    session: {
      messages: async () => ({ data: users.map((info) => ({ info: { role: 'user', ...info }, parts: [] })) }),
      status: async () => ({ data: status }),
      prompt: async (input: unknown) => {
        prompts.push(input);
        return { data: {} };
      },
    },
  };
  return { client: client as never, prompts };
}

const own = { agent: 'orca', model: { providerID: 'anthropic', modelID: 'claude' } };
const hitl = { agent: QUESTION_AGENT_ID, model: { ...QUESTION_MODEL } };

describe("putting a session's agent and model back after a note", () => {
  it('should post the hidden message with the last own agent and model when the session is idle', async () => {
    const { client, prompts } = fakeClient([own, hitl], { ses_1: { type: 'idle' } });
    await notePortsWith(client, '/p').restore('ses_1');
    expect(prompts).toEqual([
      expect.objectContaining({ body: { agent: 'orca', model: own.model, noReply: true, parts: [{ type: 'text', text: RESTORE_TEXT, synthetic: true }] } }),
    ]);
  });

  it('should post nothing once a new turn runs in the session: the message would land after the user\'s and read as their last words', async () => {
    const { client, prompts } = fakeClient([own, hitl], { ses_1: { type: 'busy' } });
    await notePortsWith(client, '/p').restore('ses_1');
    expect(prompts).toEqual([]);
  });

  it('should post nothing when the last turn was the session\'s own', async () => {
    const { client, prompts } = fakeClient([hitl, own], {});
    await notePortsWith(client, '/p').restore('ses_1');
    expect(prompts).toEqual([]);
  });
});
