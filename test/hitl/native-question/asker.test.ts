import { describe, expect, it } from 'vitest';
import { questionAskerFor } from '../../../src/hitl/native-question/asker.js';
import type { QuestionSessions } from '../../../src/hitl/native-question/client-sessions.js';
import { decodeQuestionPayload } from '../../../src/hitl/native-question/payload.js';
import type { HitlQuestion } from '../../../src/machines/types.js';

const QUESTIONS: HitlQuestion[] = [
  { header: 'Plan approval', question: 'Approve?', options: [{ label: 'Approve' }, { label: 'Reject' }], custom: false },
  { header: 'Context', question: 'Anything to add?', options: [], custom: true },
];

type PartState = Record<string, unknown>;

/**
 * A fake OpenCode: sessions with parents, and a prompt whose question part the test drives.
 * `script` decides what the run does: show a part, then settle with a final state.
 */
function fakeOpenCode(script: {
  listed?: boolean | undefined;
  /** State of the question part while the run is open (undefined: the question never appears). */
  open?: PartState;
  /** Final part state and run result; undefined keeps the run going until aborted. */
  end?: { part?: PartState; error?: string };
  promptThrows?: string;
}) {
  const log: string[] = [];
  const parents: Record<string, string | undefined> = { root: undefined, child: 'root', grandchild: 'child' };
  const parts = new Map<string, PartState>();
  const finish = new Map<string, (r: { error?: string }) => void>();
  let created = 0;
  const sessions: QuestionSessions = {
    async questionModelListed() {
      log.push('listed?');
      return 'listed' in script ? script.listed : true;
    },
    async parentOf(id) {
      if (!(id in parents)) throw new Error(`no session ${id}`);
      return parents[id];
    },
    async create({ parentID, title }) {
      const id = `q${++created}`;
      parents[id] = parentID;
      log.push(`create ${id} under ${parentID}: ${title}`);
      return id;
    },
    prompt({ sessionID, text, system }) {
      if (text.includes('orca-hitl-question')) throw new Error('the payload must not be in the visible message');
      log.push(`prompt ${sessionID}: ${(decodeQuestionPayload(system) as { questions: unknown[] }).questions.length} questions`);
      if (script.promptThrows) return Promise.reject(new Error(script.promptThrows));
      return new Promise((resolve) => {
        finish.set(sessionID, resolve);
        setTimeout(() => {
          if (script.open) parts.set(sessionID, script.open);
          if (script.end) {
            if (script.end.part) parts.set(sessionID, script.end.part);
            resolve(script.end.error ? { error: script.end.error } : {});
          }
        }, 5);
      });
    },
    async messages(id) {
      const part = parts.get(id);
      return [{ info: { role: 'user' }, parts: [] }, { info: { role: 'assistant' }, parts: part ? [{ type: 'tool', tool: 'question', state: part }] : [] }];
    },
    async abort(id) {
      log.push(`abort ${id}`);
      parts.set(id, { status: 'error', error: 'Tool execution aborted' });
      finish.get(id)?.({ error: 'MessageAbortedError: Aborted' });
    },
  };
  return { sessions, log };
}

const ask = (sessions: QuestionSessions, signal = new AbortController().signal, caller = 'grandchild') =>
  questionAskerFor(sessions, { startTimeoutMs: 200, pollMs: 5 }).ask({ callerSessionId: caller, questions: QUESTIONS, title: 'Orca: approve', signal });

describe('question asker', () => {
  it('should ask from a new child of the root and return one answer array per question', async () => {
    const fake = fakeOpenCode({ open: { status: 'running' }, end: { part: { status: 'completed', metadata: { answers: [['Approve'], ['ship it']] } } } });
    expect(await ask(fake.sessions)).toEqual({ kind: 'answered', answers: [['Approve'], ['ship it']], sessionId: 'q1' });
    expect(fake.log).toEqual(['listed?', 'create q1 under root: Orca: approve', 'prompt q1: 2 questions']);
  });

  it('should return dismissed when the human dismisses the dialog', async () => {
    const fake = fakeOpenCode({ open: { status: 'running' }, end: { part: { status: 'error', error: 'The user dismissed this question' } } });
    expect(await ask(fake.sessions)).toEqual({ kind: 'dismissed', sessionId: 'q1' });
  });

  it('should return unavailable without opening a session when the model is not listed', async () => {
    const fake = fakeOpenCode({ listed: false });
    const outcome = await ask(fake.sessions);
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/registerQuestionChannel/) });
    expect(fake.log).toEqual(['listed?']);
  });

  it('should still ask when it cannot tell whether the model is listed', async () => {
    const fake = fakeOpenCode({ listed: undefined, open: { status: 'running' }, end: { part: { status: 'completed', metadata: { answers: [['Approve'], []] } } } });
    expect((await ask(fake.sessions)).kind).toBe('answered');
  });

  it('should return unavailable with the run error when the run ends without a question', async () => {
    const fake = fakeOpenCode({ end: { error: 'ProviderModelNotFoundError: orca-hitl/question' } });
    const outcome = await ask(fake.sessions);
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/no question tool part.*ProviderModelNotFoundError/) });
  });

  it('should return unavailable when the prompt call itself fails', async () => {
    const fake = fakeOpenCode({ promptThrows: 'socket hang up' });
    expect(await ask(fake.sessions)).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/socket hang up/) });
  });

  it('should give up and stop the session when no question appears in time (a provider retried forever)', async () => {
    const fake = fakeOpenCode({});
    const started = Date.now();
    const outcome = await ask(fake.sessions);
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/no question appeared in session q1 within 200 ms/) });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.log).toContain('abort q1');
  });

  it('should wait for the human as long as it takes once the question is shown', async () => {
    const fake = fakeOpenCode({ open: { status: 'running' } });
    const controller = new AbortController();
    const pending = ask(fake.sessions, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 400)); // twice the start timeout
    expect(fake.log).not.toContain('abort q1');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('should abort the child session (and so its dialog) when the signal aborts, then reject with the reason', async () => {
    const fake = fakeOpenCode({ open: { status: 'running' } });
    const controller = new AbortController();
    const pending = ask(fake.sessions, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort(new Error('caller cancelled'));
    await expect(pending).rejects.toThrow('caller cancelled');
    expect(fake.log.filter((l) => l === 'abort q1')).toHaveLength(1);
  });

  it('should not start anything for an already aborted signal', async () => {
    const fake = fakeOpenCode({});
    await expect(ask(fake.sessions, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.log).toEqual([]);
  });

  it('should return unavailable for an unknown caller session or no questions', async () => {
    expect(await ask(fakeOpenCode({}).sessions, undefined, 'ghost')).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/no session ghost/) });
    const none = await questionAskerFor(fakeOpenCode({}).sessions).ask({ callerSessionId: 'root', questions: [], title: 't', signal: new AbortController().signal });
    expect(none).toMatchObject({ kind: 'unavailable' });
  });
});
