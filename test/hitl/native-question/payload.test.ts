import { describe, expect, it } from 'vitest';
import { decodeQuestionPayload, encodeQuestionPayload, questionMessage, toToolQuestions } from '../../../src/hitl/native-question/payload.js';
import type { HitlQuestion } from '../../../src/machines/types.js';

const GATE: HitlQuestion[] = [
  {
    header: 'Plan approval',
    question: 'Approve the plan?',
    options: [{ label: 'Approve', description: 'Run it' }, { label: 'Request Changes' }, { label: 'Reject' }],
    custom: false,
  },
  { header: 'Context', question: 'Anything to add?', options: [], custom: true },
];

describe('question payload', () => {
  it('should round-trip the two-question gate pattern with the emitter’s headers, options and flags', () => {
    const decoded = decodeQuestionPayload(encodeQuestionPayload(GATE));
    expect(decoded).toEqual({ v: 1, questions: toToolQuestions(GATE) });
  });

  it('should give every option a description, as the question tool requires', () => {
    expect(toToolQuestions(GATE)[0]?.options).toEqual([
      { label: 'Approve', description: 'Run it' },
      { label: 'Request Changes', description: '' },
      { label: 'Reject', description: '' },
    ]);
  });

  it('should pass multiple and custom through only when set', () => {
    const [q] = toToolQuestions([{ header: 'h', question: 'q', options: [{ label: 'a' }], multiple: true }]);
    expect(q).toEqual({ header: 'h', question: 'q', options: [{ label: 'a', description: '' }], multiple: true });
  });

  it('should show model-written text in the dialog with its control and bidi characters made visible', () => {
    const goal = 'Goal: fix \u001b[31mred\u001b[0m mean()\u0007\u0000 \u009b2J \u202eevil';
    const [q] = toToolQuestions([{ header: 'Plan\u001b approval', question: `${goal}\nApprove?`, options: [{ label: 'Approve', description: 'run \u202e it' }] }]);
    expect(q!.question).toBe('Goal: fix \u241b[31mred\u241b[0m mean()\u2407\u2400 [U+009B]2J [U+202E]evil\nApprove?');
    expect(q!.header).toBe('Plan\u241b approval');
    expect(q!.options[0]!.description).toBe('run [U+202E] it');
    expect(JSON.stringify(q)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('should show the human a message that starts with the title and carries no payload', () => {
    const message = questionMessage('Orca: approve plan-1');
    expect(message.split('\n')[0]).toBe('Orca: approve plan-1');
    expect(message).not.toContain('orca-hitl-question');
    expect(message).not.toContain('{');
  });

  it('should survive question text that contains the closing marker', () => {
    const tricky: HitlQuestion[] = [{ header: 'x', question: 'Is </orca-hitl-question> fine?', options: [{ label: '<b>yes</b>' }] }];
    const decoded = decodeQuestionPayload(encodeQuestionPayload(tricky));
    expect(decoded).not.toBeInstanceOf(Error);
    expect((decoded as { questions: Array<{ question: string }> }).questions[0]?.question).toBe('Is </orca-hitl-question> fine?');
  });

  it('should read the payload from a system text that mentions the marker before it', () => {
    const decoded = decodeQuestionPayload(`about <orca-hitl-question v="1">\n\n${encodeQuestionPayload(GATE)}`);
    expect(decoded).toEqual({ v: 1, questions: toToolQuestions(GATE) });
  });

  it.each([
    ['no markers', 'hello', /carry/],
    ['broken JSON', '<orca-hitl-question v="1">{nope</orca-hitl-question>', /JSON/],
    ['wrong version', '<orca-hitl-question v="1">{"v":2,"questions":[]}</orca-hitl-question>', /version 1/],
    ['no questions', '<orca-hitl-question v="1">{"v":1,"questions":[]}</orca-hitl-question>', /at least one question/],
    [
      'an option without description',
      '<orca-hitl-question v="1">{"v":1,"questions":[{"header":"h","question":"q","options":[{"label":"a"}]}]}</orca-hitl-question>',
      /label and description/,
    ],
  ])('should explain a message with %s', (_name, text, message) => {
    const decoded = decodeQuestionPayload(text);
    expect(decoded).toBeInstanceOf(Error);
    expect((decoded as Error).message).toMatch(message);
  });
});
