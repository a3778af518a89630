import { describe, expect, it } from 'vitest';
import { previousAttemptText } from '../../src/prompts/previous-attempts.js';
import { stepPrompt } from '../../src/prompts/step-prompt.js';
import type { FailedAttempt, ThreadedContext } from '../../src/machines/types.js';

const thread = (previous_attempts: FailedAttempt[]): ThreadedContext => ({
  plan_id: 'plan_X',
  goal: 'g',
  step: { id: 'impl', agent: 'coder', description: 'implement it', depends_on: [] },
  dependencies: [],
  relevant_files: [],
  previous_attempts,
});

describe('the previous attempts of a retry prompt', () => {
  it('should say a pre-step hook failed before the attempt reached the specialist, not that the specialist failed', () => {
    const text = previousAttemptText({ attempt: 1, kind: 'pre_hook', error: 'pre_step hook "npm run lint" failed (exit 2) after 1.2 s:\nmissing semicolon' });
    expect(text).toBe(
      '- Attempt 1 never reached you: a pre-step hook failed first: pre_step hook "npm run lint" failed (exit 2) after 1.2 s:\nmissing semicolon\n' +
        '  Fix what the hook needs only if your step is about it.',
    );
  });

  it('should word each kind of failure by what failed', () => {
    const said = (kind: FailedAttempt['kind']) => previousAttemptText({ attempt: 2, kind, error: 'E' });
    expect(said('session')).toBe('- Attempt 2 never reached you: its session could not be opened: E');
    expect(said('answer')).toBe('- Attempt 2 answered that it could not do the step: E');
    expect(said('turn')).toMatch(/^- Attempt 2 ended without a readable answer: E\n {2}End your turn with the JSON answer/);
    expect(said('timeout')).toBe('- Attempt 2 was stopped for being idle too long: E');
    expect(said('review')).toBe('- Attempt 2 did the step, but the reviewer failed it in its last review round: E');
    expect(said('reviewer')).toBe('- Attempt 2 did the step, but the reviewer could not review it (not a fault of the work): E');
    expect(said('fix')).toBe('- Attempt 2 did the step, but fixing what the reviewer found failed: E');
  });

  it('should read a failure recorded without a kind as before, with the guidance', () => {
    expect(previousAttemptText({ attempt: 1, error: 'tests failed', guidance: 'use vitest' })).toBe("- Attempt 1: tests failed\n  The user's guidance: use vitest");
  });

  it('should put them in the step prompt under its heading', () => {
    const prompt = stepPrompt(thread([{ attempt: 1, kind: 'pre_hook', error: 'lint red' }, { attempt: 2, kind: 'answer', error: 'tests red', guidance: 'g' }]));
    expect(prompt).toContain(
      "# Previous attempts at this step failed\n- Attempt 1 never reached you: a pre-step hook failed first: lint red\n  Fix what the hook needs only if your step is about it.\n- Attempt 2 answered that it could not do the step: tests red\n  The user's guidance: g",
    );
  });
});
