import { describe, expect, it } from 'vitest';
import { coverTransitions, replay } from '../support/model-coverage.js';
import { done, fail, by, standaloneStepMachine } from './fixtures.js';
import type { StepInput } from '../../src/machines/step.machine.js';

const input = (maxAttempts: number): StepInput => ({
  planId: 'plan_X',
  parentSessionId: 'root',
  maxAttempts,
  thread: {
    plan_id: 'plan_X',
    goal: 'g',
    step: { id: 's1', agent: 'coder', description: 'd', depends_on: [] },
    dependencies: [],
    relevant_files: [],
    previous_attempts: [],
  },
});

const success = { type: 'success', summary: 'ok', artifacts: ['a.ts'] };
const failure = { type: 'failure', error: 'tests failed' };

const events = (s: any) => {
  switch (s.value) {
    case 'opening_session':
      return [done('openSpecialistSession', { sessionId: `ses_${s.context.attempt}` }), fail('openSpecialistSession')];
    case 'running':
      return [done('runSpecialist', success), done('runSpecialist', failure), fail('runSpecialist')];
    case 'awaiting_decision':
      return [
        { type: 'step.retry', guidance: 'try again', ...by },
        { type: 'step.replan', ...by },
        { type: 'step.stop', ...by },
      ];
    default:
      return [];
  }
};

describe('step machine (model-based)', () => {
  it('should take every transition of the chart', () => {
    const result = coverTransitions({
      machine: standaloneStepMachine,
      input: input(2),
      events,
      serializeState: (s) => `${JSON.stringify(s.value)}|${s.context.attempt}|${s.context.failures.length}`,
    });
    expect(result.missing).toEqual([]);
    expect(result.covered.size).toBe(result.all.size);
    console.info(`step machine: ${result.covered.size}/${result.all.size} transitions, ${result.states} states, ${result.edges} edges`);
  });

  it('should refuse Retry after the 10th failed attempt and still offer Replan and Stop', () => {
    const tenFailures = Array.from({ length: 10 }, (_, i) => [
      done('openSpecialistSession', { sessionId: `ses_${i}` }),
      done('runSpecialist', failure),
      ...(i < 9 ? [{ type: 'step.retry', ...by }] : []),
    ]).flat();
    const { snapshot } = replay(standaloneStepMachine, input(10), tenFailures);
    expect(snapshot.value).toBe('awaiting_decision');
    expect(snapshot.context.failures).toHaveLength(10);
    expect(snapshot.can({ type: 'step.retry', ...by })).toBe(false);
    expect(snapshot.can({ type: 'step.replan', ...by })).toBe(true);
    expect(snapshot.can({ type: 'step.stop', ...by })).toBe(true);
    const afterRetry = replay(standaloneStepMachine, input(10), [...tenFailures, { type: 'step.retry', ...by }]).snapshot;
    expect(afterRetry.value).toBe('awaiting_decision');
    expect(afterRetry.context.attempt).toBe(10);
  });

  it('should still accept Retry after the 9th failure', () => {
    const nine = Array.from({ length: 9 }, (_, i) => [
      done('openSpecialistSession', { sessionId: `ses_${i}` }),
      done('runSpecialist', failure),
      ...(i < 8 ? [{ type: 'step.retry', ...by }] : []),
    ]).flat();
    const { snapshot } = replay(standaloneStepMachine, input(10), nine);
    expect(snapshot.context.failures).toHaveLength(9);
    expect(snapshot.can({ type: 'step.retry', ...by })).toBe(true);
  });

  it('should attach the human guidance to the failed attempt it answers', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10), [
      done('openSpecialistSession', { sessionId: 'ses_1' }),
      done('runSpecialist', failure),
      { type: 'step.retry', guidance: 'use vitest', ...by },
    ]);
    expect(snapshot.value).toBe('opening_session');
    expect(snapshot.context.attempt).toBe(2);
    expect(snapshot.context.failures).toEqual([{ attempt: 1, error: 'tests failed', guidance: 'use vitest' }]);
  });
});
