import { describe, expect, it } from 'vitest';
import { changedBefore, runOnTopOf } from '../../src/machines/step-graph.js';
import { withRunning, withRunOnTop } from '../../src/machines/step-records.js';
import type { StepRecord } from '../../src/machines/types.js';

const diff = (...paths: string[]) => ({
  files: paths.map((path) => ({ path, status: 'modified' as const, added: 1, removed: 1 })),
  undeclared: [],
  patch_path: null,
  base: 'b',
  result: 'r',
  where: 'worktree' as const,
});
const step = (id: string, extra: Partial<StepRecord> = {}): StepRecord => ({ id, agent: 'coder', description: id, depends_on: [], status: 'pending', attempts: 0, failures: [], ...extra });
const conflict = { path: 'src/cli.js', hunks: ['<<<<<<< your working tree\nA\n=======\nB\n>>>>>>> step s2'] };

describe('which steps are in the tree a step works in (issue 35.2)', () => {
  it('should record, as a step starts, the steps beside it that have completed: the tree made for it holds them', () => {
    const steps = [step('s1', { status: 'completed' }), step('s2'), step('s3'), step('s4', { status: 'completed', depends_on: [] }), step('t', { depends_on: ['s1'] })];
    const started = withRunning(steps, [steps[1]!, steps[4]!]);
    expect(started.find((s) => s.id === 's2')).toMatchObject({ status: 'running', on_top_of: ['s1', 's4'] });
    // t depends on s1: s1 is in its tree by the dependency, not "beside".
    expect(started.find((s) => s.id === 't')).toMatchObject({ status: 'running', on_top_of: ['s4'] });
    expect(withRunning([step('x')], [step('x')])[0]).not.toHaveProperty('on_top_of');
  });

  it('should name, at Run again on top, the steps that landed in the clashing files since its tree was made, and record every step now in its new tree', () => {
    const steps = [
      step('s1', { status: 'completed', diff: diff('src/cli.js') }),
      step('s3', { status: 'completed', diff: diff('README.md') }),
      step('s0', { status: 'completed', diff: diff('src/cli.js') }),
      step('s2', { status: 'awaiting_merge', attempts: 2, on_top_of: ['s0'], conflicts: [conflict], failures: [{ attempt: 1, kind: 'review', error: 'E' }] }),
    ];
    // s0 was in its tree already, s3 changed another file: only s1 clashed.
    expect(runOnTopOf(steps, 's2')).toEqual({ on_top_of: ['s1', 's3', 's0'], landed: ['s1'] });
    const s2 = withRunOnTop(steps, 's2', 'keep both flags').find((s) => s.id === 's2')!;
    expect(s2).toMatchObject({ status: 'running', on_top_of: ['s1', 's3', 's0'] });
    expect(s2).not.toHaveProperty('conflicts');
    expect(s2.failures.at(-1)).toMatchObject({
      attempt: 2,
      kind: 'merge',
      error: "MERGE: its changes clashed with the user's tree in src/cli.js, where step s1 landed a change first; run again on top of the tree as it is now",
      conflicts: [conflict],
      landed: ['s1'],
      guidance: 'keep both flags',
    });
  });

  it("should tell whose changes a step changed again: a later step's line counts overlap those of the steps in its tree", () => {
    const steps = [
      step('s1', { status: 'completed', diff: diff('src/cli.js', 'a.js') }),
      step('s2', { status: 'completed', diff: diff('src/cli.js', 'b.js'), on_top_of: ['s1'] }),
      step('s3', { status: 'completed', diff: diff('src/cli.js') }),
      step('s4', { status: 'completed', diff: diff('src/cli.js'), depends_on: ['s3'] }),
    ];
    expect(changedBefore(steps, 's2')).toEqual([{ id: 's1', agent: 'coder', files: ['src/cli.js'] }]);
    expect(changedBefore(steps, 's1')).toEqual([]);
    expect(changedBefore(steps, 's4')).toEqual([{ id: 's3', agent: 'coder', files: ['src/cli.js'] }]);
    // Not measured, or not completed: nothing to say.
    expect(changedBefore([steps[0]!, { ...steps[1]!, status: 'running' }], 's2')).toEqual([]);
  });
});
