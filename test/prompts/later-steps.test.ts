import { describe, expect, it } from 'vitest';
import { reviewPrompt } from '../../src/prompts/review-prompt.js';
import { stepPrompt } from '../../src/prompts/step-prompt.js';
import type { ThreadedContext } from '../../src/machines/types.js';

const thread = (patch: Partial<ThreadedContext> = {}): ThreadedContext => ({
  plan_id: 'plan_X',
  goal: 'fix mean()',
  step: { id: 'fix-mean', agent: 'coder', description: 'Divide by length in src/stats.js', depends_on: [] },
  dependencies: [],
  relevant_files: [],
  previous_attempts: [],
  ...patch,
});
const later = [{ id: 'test-empty', agent: 'tester' as const, description: 'Add a test for mean([])' }];
const work = { summary: 'fixed', artifacts: ['src/stats.js'], key_findings: [] };

describe('what a step and its review are told of the rest of the plan', () => {
  it('should tell the specialist and the reviewer which later steps do what, so neither takes their work on', () => {
    for (const prompt of [stepPrompt(thread({ later })), reviewPrompt(thread({ later }), work, 1, 2)]) {
      expect(prompt).toContain("# Steps that build on this one (their work is not this step's)\n- test-empty (tester): Add a test for mean([])");
    }
    expect(reviewPrompt(thread({ later }), work, 1, 2)).toContain('what a later step is planned to do is not missing here');
  });

  it('should say nothing of later steps when there are none, or in a thread restored from before they were threaded', () => {
    for (const prompt of [stepPrompt(thread()), reviewPrompt(thread(), work, 1, 2), stepPrompt(thread({ later: [] }))]) expect(prompt).not.toContain('Later steps');
  });

  it("should tell the reviewer of a retried step what failed before and the user's guidance", () => {
    const retried = thread({ previous_attempts: [{ attempt: 1, kind: 'review', error: 'REVIEW FAILED: no test', guidance: 'the test is the next step' }] });
    expect(reviewPrompt(retried, work, 1, 2)).toContain(
      "# Earlier attempts at this step\n- Attempt 1 did the step, but the reviewer failed it in its last review round: REVIEW FAILED: no test\n  The user's guidance: the test is the next step",
    );
  });

  it('should name the steps running beside a step, say a worktree step does not see their changes, and drop the tool it lacks there', () => {
    const beside = [{ id: 'fix-mean', agent: 'coder' as const, description: 'Divide by length' }];
    const shared = stepPrompt(thread({ beside }));
    expect(shared).toContain("# Other steps, not this step's work (no dependency either way)\nThey may run before, beside or after yours:\n- fix-mean (coder): Divide by length");
    expect(shared).toContain('Call orca_describe_plan');
    const isolated = stepPrompt(thread({ beside, workspace: 'worktree' }));
    expect(isolated).toContain('Not in your copy (they may run at the same time, each in its own):\n- fix-mean (coder): Divide by length');
    expect(isolated).not.toContain('orca_describe_plan');
    expect(stepPrompt(thread())).not.toContain('at the same time');
  });

  it('should say which of them are done and in the copy, and mark those that change the same files', () => {
    const beside = [
      { id: 'verbose', agent: 'coder' as const, description: 'Add --verbose', landed: true as const, shares: ['src/cli.js'] },
      { id: 'help', agent: 'coder' as const, description: 'Add --help', shares: ['src/cli.js'] },
      { id: 'docs', agent: 'document-writer' as const, description: 'Document it' },
    ];
    expect(stepPrompt(thread({ beside, workspace: 'worktree' }))).toContain(
      "# Other steps, not this step's work (no dependency either way)\n" +
        'Done, their changes in your copy:\n- verbose (coder): Add --verbose [also changes src/cli.js]\n' +
        'Not in your copy (they may run at the same time, each in its own):\n- help (coder): Add --help [also changes src/cli.js]\n- docs (document-writer): Document it\n' +
        'Where you and a step marked "also changes" change the same lines, the change that lands second does not apply and waits for a decision: in those files, change only what your step needs.',
    );
    const shared = stepPrompt(thread({ beside }));
    expect(shared).toContain('Done, their changes in the project:\n- verbose (coder)');
    expect(shared).toContain('A step marked "also changes" changes those files before or after yours: in them, change only what your step needs.');
    // A Retry goes on in its first attempt's copy: a step done since is in the user's tree, not in the copy.
    const since = [{ id: 'verbose', agent: 'coder' as const, description: 'Add --verbose', landed_since: true as const, shares: ['src/cli.js'] }];
    expect(stepPrompt(thread({ beside: since, workspace: 'worktree' }))).toContain(
      "Done since your copy was made, in the user's tree but not in your copy:\n- verbose (coder): Add --verbose [also changes src/cli.js]\nWhere you and a step marked",
    );
    // In the project directory it is simply done, and there.
    expect(stepPrompt(thread({ beside: since }))).toContain('Done, their changes in the project:\n- verbose (coder)');
    // Only a step still to come is a clash to warn of.
    expect(stepPrompt(thread({ beside: [beside[0]!], workspace: 'worktree' }))).not.toContain('marked "also changes"');
  });
});
