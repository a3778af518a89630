import { describe, expect, it } from 'vitest';
import { forMarkdown, notePortsWith, RESTORE_TEXT } from '../../src/notices/session-notes.js';
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

describe('control characters in a note', () => {
  /** What a model could write to take over a terminal: a colour, NUL, BEL, a one-byte CSI, a right-to-left override. */
  const EVIL = '\x1b[31mred\x00\x07\u009b2J\u202Eevil';
  const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

  it('should show them visibly in the note as the TUI gets it (notes and slash-command replies)', () => {
    expect(forMarkdown(`Orca: plan failed: ${EVIL}`)).toBe('Orca: plan failed: ␛[31mred␀␇[U+009B]2J[U+202E]evil');
  });

  it('should post a note with none of them', async () => {
    const { client, prompts } = fakeClient([], {});
    await notePortsWith(client, '/p').post('ses_1', `Orca: step s1 failed: ${EVIL}`);
    const text = (prompts[0] as { body: { parts: Array<{ text: string }> } }).body.parts[0]!.text;
    expect(text).toContain('Orca: step s1 failed: ␛[31mred');
    expect(text).not.toMatch(UNSAFE);
  });
});
