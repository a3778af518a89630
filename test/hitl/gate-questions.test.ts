import { describe, expect, it } from 'vitest';
import { choiceFromAnswers, gateQuestions } from '../../src/hitl/gate-questions.js';
import { decisionEvent } from '../../src/machines/gates.js';
import { breakerText, budgetGate, deviationGate } from './gate-fixtures.js';

const budget = budgetGate();
const breaker = breakerText('s2');
const deviation = (patch: Parameters<typeof deviationGate>[0] = {}) => deviationGate({ stepId: 's2', agent: 'tester', error: 'test 3 is red', ...patch });

describe('gate questions', () => {
  it('should ask at the dispatch cap with the progress, what Continue allows, exactly Continue / Stop and an optional note', () => {
    const [action, note] = gateQuestions(budget);
    expect(action!.header).toBe('Dispatch budget spent');
    expect(action!.header.length).toBeLessThanOrEqual(30);
    expect(action!.question).toContain('100 dispatches of the cap 100');
    expect(action!.question).toContain('1 of 2 steps completed');
    expect(action!.question).toContain('Continue allows 100 more dispatches');
    expect(action!.options.map((o) => o.label)).toEqual(['Continue', 'Stop']);
    expect(action!.custom).toBe(false);
    expect(note).toMatchObject({ custom: true, options: [{ label: 'No guidance' }] });
  });

  it('should turn the answers at the dispatch cap into budget events, the note as text', () => {
    const at = { channel: 'question' as const, at: 't' };
    expect(decisionEvent(budget, choiceFromAnswers(budget, [['Continue'], ['No guidance']]), at)).toEqual({ type: 'budget.continue', ...at });
    expect(decisionEvent(budget, choiceFromAnswers(budget, [['Stop'], ['too costly']]), at)).toEqual({ type: 'budget.stop', text: 'too costly', ...at });
    expect(() => decisionEvent(budget, { option: 'Retry' }, at)).toThrow('"Retry" is not an option at the budget gate of plan_X.');
  });

  it('should say plainly at an open breaker why the question reached a human, and still offer Retry', () => {
    const [action] = gateQuestions(deviation({ breaker }));
    expect(action!.header).toBe('Breaker: step s2');
    expect(action!.question).toBe(
      'Step s2 (tester) failed (3 failed attempts): test 3 is red\n' +
        'Circuit breaker: the same error 3 times in a row on step s2; automatic retrying stopped, a human decides.\nWhat now?',
    );
    expect(action!.options.map((o) => o.label)).toEqual(['Retry', 'Replan', 'Stop']);
    expect(action!.options[0]!.description).toMatch(/same error keeps coming back/);
  });

  it('should keep the plain deviation question without a breaker, and headers within 30 characters', () => {
    const [action] = gateQuestions(deviation());
    expect(action!.question).toBe('Step s2 (tester) failed (3 failed attempts): test 3 is red\nWhat now?');
    expect(action!.options[0]!.description).toBe('Run this step again (with your guidance, if any)');
    const long = 'a-very-long-step-identifier-indeed';
    for (const gate of [deviation({ stepId: long }), deviation({ stepId: long, breaker })]) {
      expect(gateQuestions(gate)[0]!.header.length).toBeLessThanOrEqual(30);
    }
  });
});
