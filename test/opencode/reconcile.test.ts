import { describe, expect, it } from 'vitest';
import { reconcileSession } from '../../src/opencode/reconcile.js';
import type { SessionMessage, SessionsPort } from '../../src/opencode/sessions.js';
import { SpecialistOutputSchema } from '../../src/schemas/specialist-output.js';

/** A session whose messages and busy flag the test scripts over successive reads. */
function session(reads: SessionMessage[][], busyReads: boolean[] = [false]) {
  let m = 0;
  let b = 0;
  const port = {
    messages: async () => reads[Math.min(m++, reads.length - 1)]!,
    busy: async () => busyReads[Math.min(b++, busyReads.length - 1)]!,
  } as unknown as SessionsPort;
  return port;
}
const signal = new AbortController().signal;
const PROMPT = '# Your step: s1 (coder)';
const user = (text = PROMPT): SessionMessage => ({ role: 'user', text });
const ok = { type: 'success', summary: 'done', artifacts: [] };

describe('reconcileSession', () => {
  it('should say fresh when the session never got this prompt', async () => {
    expect(await reconcileSession(session([[]]), 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toEqual({ decision: 'fresh' });
    const other = session([[user('an earlier question'), { role: 'assistant', text: '', structured: ok }]]);
    expect(await reconcileSession(other, 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toEqual({ decision: 'fresh' });
  });

  it('should reuse a finished valid result instead of dispatching again', async () => {
    const done = session([[user(), { role: 'assistant', text: '', structured: ok }]]);
    expect(await reconcileSession(done, 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toMatchObject({
      decision: 'reused',
      waited: false,
      value: { type: 'success', summary: 'done' },
    });
  });

  it('should match the turn by the start of its prompt, whatever protocol section followed', async () => {
    const done = session([[user(`${PROMPT}\n\n# Output protocol\nCall the StructuredOutput tool…`), { role: 'assistant', text: 'reading…' }, { role: 'assistant', text: JSON.stringify(ok) }]]);
    expect(await reconcileSession(done, 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toMatchObject({ decision: 'reused', value: ok });
  });

  it('should wait for a turn still running, then take its result', async () => {
    const running = session([[user()], [user(), { role: 'assistant', text: '```json\n{"type":"success","summary":"late","artifacts":[]}\n```' }]], [true, true, false]);
    expect(await reconcileSession(running, 'ses_1', PROMPT, SpecialistOutputSchema, signal, 1)).toMatchObject({
      decision: 'reused',
      waited: true,
      value: { summary: 'late' },
    });
  });

  it('should redispatch when the turn died or left no valid result', async () => {
    expect(await reconcileSession(session([[user()]]), 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toMatchObject({
      decision: 'redispatch',
      reason: 'its turn never finished',
    });
    const garbage = session([[user(), { role: 'assistant', text: 'I was interrupted' }]]);
    expect(await reconcileSession(garbage, 'ses_1', PROMPT, SpecialistOutputSchema, signal)).toMatchObject({ decision: 'redispatch' });
  });
});

describe('reconcileSession when OpenCode cannot list the messages', () => {
  it('should let a running turn finish and then run the same attempt again', async () => {
    let busy = 2;
    const port = {
      messages: async () => {
        throw new Error('BadRequest: Expected OutputFormatJsonSchema, got {...}');
      },
      busy: async () => busy-- > 0,
    } as unknown as SessionsPort;
    expect(await reconcileSession(port, 'ses_1', PROMPT, SpecialistOutputSchema, signal, 1)).toMatchObject({
      decision: 'redispatch',
      waited: true,
      reason: expect.stringMatching(/^its messages cannot be read \(BadRequest: Expected OutputFormatJsonSchema/),
    });
  });
});
