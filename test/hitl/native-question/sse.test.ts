import { describe, expect, it } from 'vitest';
import { sseBody, sseEvents } from '../../../src/hitl/native-question/sse.js';

const parse = (events: string[]) => events.slice(0, -1).map((e) => JSON.parse(e) as Record<string, any>);

describe('question model SSE stream', () => {
  it('should stream one question tool call and finish with tool_calls, usage and [DONE]', () => {
    const args = { questions: [{ header: 'h', question: 'q?', options: [{ label: 'a', description: '' }] }] };
    const events = sseEvents({ kind: 'tool_call', callId: 'call_1', name: 'question', arguments: args }, 'chatcmpl-1', 1700000000);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = parse(events);
    for (const c of chunks) expect(c).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000 });
    expect(chunks[0]?.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const call = chunks[1]?.choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({ index: 0, id: 'call_1', type: 'function', function: { name: 'question' } });
    expect(JSON.parse(call.function.arguments)).toEqual(args);
    expect(chunks[2]?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(chunks[3]).toMatchObject({ choices: [], usage: { total_tokens: 0 } });
  });

  it('should stream a text turn that finishes with stop', () => {
    const chunks = parse(sseEvents({ kind: 'text', text: 'Answer recorded.' }, 'c', 1));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual(['', 'Answer recorded.', null, null]);
    expect(chunks[2]?.choices[0].finish_reason).toBe('stop');
  });

  it('should frame every event as a data line followed by a blank line', () => {
    const body = sseBody({ kind: 'text', text: 'x' }, 'c', 1);
    const frames = body.split('\n\n');
    expect(frames.pop()).toBe('');
    expect(frames.every((f) => f.startsWith('data: ') && !f.includes('\n'))).toBe(true);
    expect(frames.at(-1)).toBe('data: [DONE]');
  });
});
