import { describe, expect, it, vi } from 'vitest';
import { forMarkdown, isRestoreMessage, notePortsWith, RESTORE_TEXT, RESTORE_WAIT_MS, sessionNotes, TURN_START_WAIT_MS, type NotePorts } from '../../src/notices/session-notes.js';
import { NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL } from '../../src/hitl/native-question/index.js';

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
/** The composition root's speaker: the question dialog's stand-in. */
const speaker = { agent: QUESTION_AGENT_ID, model: QUESTION_MODEL, prefix: NOTE_PREFIX };

describe("putting a session's agent and model back after a note", () => {
  it('should post the hidden message with the last own agent and model when the session is idle', async () => {
    const { client, prompts } = fakeClient([own, hitl], { ses_1: { type: 'idle' } });
    await notePortsWith(client, '/p', speaker).restore('ses_1', () => true);
    expect(prompts).toEqual([
      expect.objectContaining({ body: { agent: 'orca', model: own.model, noReply: true, parts: [{ type: 'text', text: RESTORE_TEXT, synthetic: true }] } }),
    ]);
  });

  it('should post nothing once a new turn runs in the session: the message would land after the user\'s and read as their last words', async () => {
    const { client, prompts } = fakeClient([own, hitl], { ses_1: { type: 'busy' } });
    await notePortsWith(client, '/p', speaker).restore('ses_1', () => true);
    expect(prompts).toEqual([]);
  });

  it('should post nothing when a turn started while it read the session (not evented as busy yet): its message would be that turn\'s last', async () => {
    const { client, prompts } = fakeClient([own, hitl], { ses_1: { type: 'idle' } });
    await notePortsWith(client, '/p', speaker).restore('ses_1', () => false);
    expect(prompts).toEqual([]);
  });

  it('should post nothing when the last turn was the session\'s own', async () => {
    const { client, prompts } = fakeClient([hitl, own], {});
    await notePortsWith(client, '/p', speaker).restore('ses_1', () => true);
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
    await notePortsWith(client, '/p', speaker).post('ses_1', `Orca: step s1 failed: ${EVIL}`);
    const text = (prompts[0] as { body: { parts: Array<{ text: string }> } }).body.parts[0]!.text;
    expect(text).toContain('Orca: step s1 failed: ␛[31mred');
    expect(text).not.toMatch(UNSAFE);
  });
});

describe('notes posted close together', () => {
  /** Ports whose note turns end when the test says, recording each call in order. */
  function ports() {
    const calls: string[] = [];
    const ends: Array<() => void> = [];
    const port: NotePorts = {
      post: (sessionId, text) => {
        calls.push(`post ${sessionId}: ${text}`);
        return new Promise<void>((resolve) => ends.push(resolve));
      },
      restore: async (sessionId) => void calls.push(`restore ${sessionId}`),
    };
    return { port, calls, endTurn: () => ends.shift()!() };
  }
  const status = (type: string) => ({ type: 'session.status', properties: { sessionID: 'ses_1', status: { type } } });

  it('should post those held while the session was busy as one note once it is idle', async () => {
    const { port, calls, endTurn } = ports();
    const notes = sessionNotes(port, () => {});
    notes.observe(status('busy'));
    notes.post('ses_1', 'Orca: s1 done');
    notes.post('ses_1', 'Orca: s2 done');
    expect(calls).toEqual([]);
    notes.observe(status('idle'));
    await vi.waitFor(() => expect(calls).toEqual(['post ses_1: Orca: s1 done\n\nOrca: s2 done']));
    endTurn();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toBe('restore ses_1');
  });

  it("should hold a note said once a turn starts (a command's, before its busy status is evented) until that turn's end", async () => {
    const { port, calls } = ports();
    const notes = sessionNotes(port, () => {});
    await notes.turnStarting('ses_1'); // /orca-resume: the plan it follows says its approval document at once
    notes.post('ses_1', 'Orca: plan waits for your approval');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
    notes.observe(status('busy'));
    notes.observe(status('idle'));
    await vi.waitFor(() => expect(calls).toEqual(['post ses_1: Orca: plan waits for your approval']));
  });

  it(`should post it after ${TURN_START_WAIT_MS} ms when the turn that started evented no status at all`, async () => {
    vi.useFakeTimers();
    try {
      const { port, calls } = ports();
      const notes = sessionNotes(port, () => {});
      await notes.turnStarting('ses_1');
      notes.post('ses_1', 'Orca: s1 done');
      await vi.advanceTimersByTimeAsync(TURN_START_WAIT_MS - 1);
      expect(calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toEqual(['post ses_1: Orca: s1 done']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('should never post a note while the one before is being said: it follows once that turn is over', async () => {
    const { port, calls, endTurn } = ports();
    const notes = sessionNotes(port, () => {});
    notes.post('ses_1', 'Orca: s1 done');
    notes.observe(status('busy')); // the note's own turn
    notes.post('ses_1', 'Orca: s2 done');
    notes.post('ses_1', 'Orca: s3 done');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual(['post ses_1: Orca: s1 done']);
    endTurn();
    notes.observe(status('idle'));
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toBe('post ses_1: Orca: s2 done\n\nOrca: s3 done');
    endTurn();
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls[2]).toBe('restore ses_1');
  });
});

describe("putting the session's model back after a command, with a turn starting meanwhile", () => {
  const status = (type: string) => ({ type: 'session.status', properties: { sessionID: 'ses_1', status: { type } } });

  /** A restore port that records what `quiet` says once the test lets its reads finish. */
  function slowRestore() {
    const answers: boolean[] = [];
    let finish: () => void = () => {};
    const port: NotePorts = {
      post: async () => {},
      restore: async (_sessionId, quiet) => {
        await new Promise<void>((resolve) => (finish = resolve));
        answers.push(quiet());
      },
    };
    return { port, answers, finish: () => finish() };
  }

  it('should tell the restore to post nothing when a command or message starts a turn before it posts', async () => {
    const { port, answers, finish } = slowRestore();
    const notes = sessionNotes(port, () => {});
    notes.restoreAfterTurn('ses_1'); // /orca-pause's turn
    notes.observe(status('busy'));
    notes.observe(status('idle')); // its turn is over: the restore starts reading
    notes.turnStarting('ses_1'); // /orca-resume, typed at once
    finish();
    await vi.waitFor(() => expect(answers).toEqual([false]));
  });

  it('should let it post when no turn started', async () => {
    const { port, answers, finish } = slowRestore();
    const notes = sessionNotes(port, () => {});
    notes.restoreAfterTurn('ses_1');
    notes.observe(status('idle'));
    notes.turnStarting('ses_2'); // another session's turn
    finish();
    await vi.waitFor(() => expect(answers).toEqual([true]));
  });
});

describe('a turn starting while the restore posts', () => {
  const status = (type: string) => ({ type: 'session.status', properties: { sessionID: 'ses_1', status: { type } } });

  /** A restore port past its reads (quiet said yes), whose post the test lets land. */
  function postingRestore() {
    const events: string[] = [];
    let land: () => void = () => {};
    const port: NotePorts = {
      post: async () => {},
      restore: async (_sessionId, quiet) => {
        if (!quiet()) return;
        events.push('posting');
        await new Promise<void>((resolve) => (land = resolve));
        events.push('landed');
      },
    };
    return { port, events, land: () => land() };
  }

  it("should go on only once the restore's message landed, so the new turn's message comes after it", async () => {
    const { port, events, land } = postingRestore();
    const notes = sessionNotes(port, () => {});
    notes.restoreAfterTurn('ses_1');
    notes.observe(status('idle'));
    await vi.waitFor(() => expect(events).toEqual(['posting']));
    const started = notes.turnStarting('ses_1').then(() => events.push('turn goes on'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['posting']);
    land();
    await started;
    expect(events).toEqual(['posting', 'landed', 'turn goes on']);
    // No restore on its way: nothing to wait for.
    await notes.turnStarting('ses_1');
  });

  it(`should not wait more than ${RESTORE_WAIT_MS} ms for a restore that never lands`, async () => {
    vi.useFakeTimers();
    try {
      const { port, events } = postingRestore();
      const notes = sessionNotes(port, () => {});
      notes.restoreAfterTurn('ses_1');
      notes.observe(status('idle'));
      await vi.waitFor(() => expect(events).toEqual(['posting']));
      let goneOn = false;
      const started = notes.turnStarting('ses_1').then(() => (goneOn = true));
      await vi.advanceTimersByTimeAsync(RESTORE_WAIT_MS - 1);
      expect(goneOn).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await started;
      expect(goneOn).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("should know the restore's own message, which must not wait for itself", () => {
    expect(isRestoreMessage([{ type: 'text', text: RESTORE_TEXT }])).toBe(true);
    expect(isRestoreMessage([{ type: 'text', text: 'SCENARIO:free make config errors readable' }, { type: 'file' }])).toBe(false);
  });
});

describe('a note that must be read before a question (say)', () => {
  const status = (type: string) => ({ type: 'session.status', properties: { sessionID: 'ses_1', status: { type } } });

  it('should resolve only once the note is in the session, after the busy turn and its own', async () => {
    let endTurn = () => {};
    const said: string[] = [];
    const notes = sessionNotes(
      { post: (_id, text) => new Promise<void>((resolve) => ((endTurn = resolve), said.push(text))), restore: async () => {} },
      () => {},
    );
    notes.observe(status('busy')); // Orca's own turn, right after its call returned
    let done: boolean | undefined;
    void notes.say('ses_1', 'Orca: plan plan_1 waits for your approval').then((ok) => (done = ok));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(said).toEqual([]);
    notes.observe(status('idle'));
    await vi.waitFor(() => expect(said).toHaveLength(1));
    expect(done).toBeUndefined();
    endTurn();
    await vi.waitFor(() => expect(done).toBe(true));
  });

  it('should resolve false when the note could not be posted (logged), so the caller shows it another way', async () => {
    const logs: string[] = [];
    const notes = sessionNotes({ post: async () => Promise.reject(new Error('session gone')), restore: async () => {} }, (_l, m) => void logs.push(m));
    expect(await notes.say('ses_1', 'the plan')).toBe(false);
    expect(logs).toEqual(['posting the note "the plan" for session ses_1 failed (session gone)']);
  });
});
