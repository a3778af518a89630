import { describe, expect, it } from 'vitest';
import { encodeQuestionPayload, toToolQuestions } from '../../../src/hitl/native-question/payload.js';
import { DONE_TEXT, nextTurn, questionModelFetch } from '../../../src/hitl/native-question/question-model.js';
import type { HitlQuestion } from '../../../src/machines/types.js';

const QUESTIONS: HitlQuestion[] = [{ header: 'Retry?', question: 'Step failed. What now?', options: [{ label: 'Retry' }, { label: 'Stop' }], custom: false }];
const payload = { role: 'system', content: encodeQuestionPayload(QUESTIONS) };
const system = { role: 'system', content: 'You relay questions' };
const user = { role: 'user', content: 'Orca: step failed' };

describe('question model turns', () => {
  it('should call the question tool with the payload of the system messages', () => {
    const turn = nextTurn({ messages: [system, payload, user] }, 'call_9');
    expect(turn).toEqual({ kind: 'tool_call', callId: 'call_9', name: 'question', arguments: { questions: toToolQuestions(QUESTIONS) } });
  });

  it('should read system content given as an array of parts', () => {
    const turn = nextTurn({ messages: [{ role: 'system', content: [{ type: 'text', text: payload.content }] }, user] }, 'c');
    expect(turn.kind).toBe('tool_call');
  });

  it('should end the run with a short text once the tool result is back', () => {
    const messages = [system, payload, user, { role: 'assistant', tool_calls: [] }, { role: 'tool', content: 'answered' }];
    expect(nextTurn({ messages }, 'c')).toEqual({ kind: 'text', text: DONE_TEXT });
  });

  it("should say a note back once: the one part that carries it, after the command's own words", () => {
    const content = [{ type: 'text', text: '/orca-approve' }, { type: 'text', text: 'orca-hitl note: Orca: Approve recorded.' }];
    expect(nextTurn({ messages: [{ role: 'user', content }] }, 'c')).toEqual({ kind: 'text', text: 'Orca: Approve recorded.' });
    expect(nextTurn({ messages: [{ role: 'user', content: 'orca-hitl note: Orca: plan done.' }] }, 'c')).toEqual({ kind: 'text', text: 'Orca: plan done.' });
  });

  it('should answer a request without a payload with text that says so, never a tool call', () => {
    const turn = nextTurn({ messages: [{ role: 'user', content: 'generate a title' }] }, 'c');
    expect(turn).toMatchObject({ kind: 'text', text: expect.stringMatching(/^orca-hitl: no question asked/) });
    expect(nextTurn(undefined, 'c').kind).toBe('text');
  });
});

describe('questionModelFetch', () => {
  const request = { method: 'POST', body: JSON.stringify({ stream: true, messages: [payload, user] }) };

  it('should answer chat completions in process with an SSE stream carrying the question call', async () => {
    const res = await questionModelFetch('http://orca-hitl.invalid/v1/chat/completions', request);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const body = await res.text();
    expect(body).toContain('"name":"question"');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('should accept a Request object as the AI SDK may pass one', async () => {
    const res = await questionModelFetch(new Request('http://orca-hitl.invalid/v1/chat/completions', request));
    expect(await res.text()).toContain('"name":"question"');
  });

  it('should give a distinct call id to every answer', async () => {
    const ids = await Promise.all(
      [1, 2].map(async () => /"id":"(call_[^"]+)"/.exec(await (await questionModelFetch('http://x/v1/chat/completions', request)).text())?.[1]),
    );
    expect(ids[0]).toBeDefined();
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('should answer a non-streaming request with one completion object', async () => {
    const res = await questionModelFetch('http://x/v1/chat/completions', { method: 'POST', body: JSON.stringify({ stream: false, messages: [payload, user] }) });
    const json = (await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> }; finish_reason: string }> };
    expect(json.choices[0]?.finish_reason).toBe('tool_calls');
    expect(json.choices[0]?.message.tool_calls[0]?.function.name).toBe('question');
  });

  it('should refuse anything but chat completions', async () => {
    const res = await questionModelFetch('http://orca-hitl.invalid/v1/models');
    expect(res.status).toBe(404);
  });
});
