import { describe, expect, it } from 'vitest';
import { keptAttempts } from '../../src/machines/step-records.js';
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

describe('what a retry is told of its tree and of a clash (issue 35.2)', () => {
  const clash: FailedAttempt = {
    attempt: 2,
    kind: 'merge',
    error: "MERGE: its changes clashed with the user's tree in src/cli.js, where step s1 landed a change first; run again on top of the tree as it is now",
    conflicts: [{ path: 'src/cli.js', hunks: ['<<<<<<< your working tree\nA\n=======\nB\n>>>>>>> step impl'] }],
    landed: ['s1'],
  };

  it('should say which earlier attempts left their changes in the tree: those since the last clash that reached the specialist', () => {
    expect(keptAttempts([{ attempt: 1, kind: 'review', error: 'E' }])).toEqual([1]);
    expect(keptAttempts([{ attempt: 1, kind: 'pre_hook', error: 'E' }, { attempt: 2, kind: 'timeout', error: 'E' }, { attempt: 3, error: 'old' }])).toEqual([2, 3]);
    expect(keptAttempts([{ attempt: 1, kind: 'answer', error: 'E' }, clash])).toEqual([]);
    expect(keptAttempts([clash, { attempt: 3, kind: 'review', error: 'E' }, { attempt: 4, kind: 'workspace', error: 'E' }])).toEqual([3]);
  });

  it("should tell a retry's specialist that the failed attempts' changes are still there, in its copy or the project's files", () => {
    const retry = stepPrompt({ ...thread([{ attempt: 1, kind: 'review', error: 'E' }]), workspace: 'worktree' });
    expect(retry).toContain('What attempt 1 changed is still in your copy: nothing was undone. Keep what is right, fix the rest.');
    expect(stepPrompt(thread([{ attempt: 1, kind: 'answer', error: 'E' }, { attempt: 2, kind: 'fix', error: 'E' }]))).toContain(
      "What attempts 1, 2 changed is still in the project's files: nothing was undone.",
    );
    expect(stepPrompt(thread([{ attempt: 1, kind: 'session', error: 'E' }]))).not.toContain('still in');
  });

  it('should tell a run again on top which steps landed first, that it starts from the tree as it is now, and show the clash fenced', () => {
    const text = stepPrompt({ ...thread([clash]), workspace: 'worktree' });
    expect(text).toContain("  Its changes are not in your copy: you start again from the user's tree as it is now (s1 included). Do the step on top of it.");
    expect(text).toContain(
      "  Where they clashed (from <<<<<<< to ======= the user's tree now, from ======= to >>>>>>> attempt 2's change):\nsrc/cli.js:\n```\n<<<<<<< your working tree\nA\n=======\nB\n>>>>>>> step impl\n```",
    );
    expect(text).not.toContain('still in your copy');
    // Once a later attempt failed too, the clash is history: the next attempt did not start "now".
    const later = stepPrompt({ ...thread([clash, { attempt: 3, kind: 'review', error: 'E' }]), workspace: 'worktree' });
    expect(later).toContain("  Its changes were left out: the next attempt started again from the user's tree as it was then (s1 included).");
    expect(later).toContain('What attempt 3 changed is still in your copy');
  });

  it("should tell the reviewer what happened, not what to do: no advice meant for the specialist", () => {
    expect(previousAttemptText({ attempt: 1, kind: 'pre_hook', error: 'lint' }, { reader: 'reviewer' })).toBe('- Attempt 1 never reached the specialist: a pre-step hook failed first: lint');
    const merge = previousAttemptText(clash, { reader: 'reviewer', latest: true });
    expect(merge).toContain('the next attempt started again from');
    expect(merge).not.toMatch(/your copy|<<<<<<</);
  });
});
