import { describe, expect, it } from 'vitest';
import { findQuestionPart, partOutcome } from '../../../src/hitl/native-question/question-part.js';

const toolPart = (state: Record<string, unknown>, tool = 'question') => ({ type: 'tool', tool, callID: 'c', state });
const messages = (...parts: unknown[]) => [{ info: { role: 'user' }, parts: [{ type: 'text', text: 'payload' }] }, { info: { role: 'assistant' }, parts }];

describe('findQuestionPart', () => {
  it('should read the answers of a completed question part (the 1.18 shape)', () => {
    const part = findQuestionPart(messages({ type: 'step-start' }, toolPart({ status: 'completed', metadata: { answers: [['Approve'], ['ship it']], truncated: false } })));
    expect(part).toEqual({ status: 'completed', answers: [['Approve'], ['ship it']] });
  });

  it('should read the error of a dismissed question', () => {
    expect(findQuestionPart(messages(toolPart({ status: 'error', error: 'The user dismissed this question' })))).toEqual({
      status: 'error',
      error: 'The user dismissed this question',
    });
  });

  it('should see a question that is still open', () => {
    expect(findQuestionPart(messages(toolPart({ status: 'running', input: {} })))).toEqual({ status: 'running' });
  });

  it('should ignore other tools and odd shapes', () => {
    expect(findQuestionPart(messages(toolPart({ status: 'completed' }, 'bash')))).toBeUndefined();
    expect(findQuestionPart(undefined)).toBeUndefined();
    expect(findQuestionPart([{ parts: 'nope' }, null])).toBeUndefined();
  });
});

describe('partOutcome', () => {
  it('should return one answer array per question', () => {
    expect(partOutcome({ status: 'completed', answers: [['Approve'], []] }, 2)).toEqual({ kind: 'answered', answers: [['Approve'], []] });
  });

  it('should call a dismissal dismissed', () => {
    expect(partOutcome({ status: 'error', error: 'The user dismissed this question' }, 1)).toEqual({ kind: 'dismissed' });
  });

  it.each([
    ['no part', undefined, /no question tool part/],
    ['another tool error', { status: 'error', error: 'Permission denied: question' } as const, /Permission denied/],
    ['answers of the wrong shape', { status: 'completed', answers: ['Approve'] } as const, /string\[\]\[\]/],
    ['a missing answer array', { status: 'completed', answers: [['Approve']] } as const, /expected 2 answer arrays, got 1/],
    ['a part still running', { status: 'running' } as const, /still running/],
  ])('should call %s unavailable, with the reason', (_name, part, reason) => {
    const outcome = partOutcome(part, 2);
    expect(outcome.kind).toBe('unavailable');
    expect(outcome.kind === 'unavailable' && outcome.reason).toMatch(reason);
  });
});
