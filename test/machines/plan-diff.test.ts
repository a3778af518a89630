import { describe, expect, it } from 'vitest';
import { diffLines, diffProposals, diffSummary, isEmptyDiff } from '../../src/machines/plan-diff.js';
import type { PlanProposal } from '../../src/machines/types.js';

const v1: PlanProposal = {
  goal: 'Add greet()',
  steps: [
    { id: 'impl', agent: 'coder', description: 'write greet.ts', files: ['src/greet.ts'] },
    { id: 'docs', agent: 'document-writer', description: 'document greet' },
    { id: 'test', agent: 'tester', description: 'test greet', depends_on: ['impl'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

describe('diffProposals', () => {
  it('should list steps added, removed and changed field by field, and the completed steps kept', () => {
    const v2: PlanProposal = {
      ...v1,
      goal: 'Add greet() and farewell()',
      steps: [
        v1.steps[0]!,
        { id: 'test', agent: 'tester', description: 'test greet and farewell', depends_on: ['impl', 'bye'] },
        { id: 'bye', agent: 'coder', description: 'write farewell.ts' },
      ],
    };
    const diff = diffProposals(v1, v2, new Set(['impl']));
    expect(diff).toEqual({
      goal: { from: 'Add greet()', to: 'Add greet() and farewell()' },
      added: [{ id: 'bye', agent: 'coder', description: 'write farewell.ts' }],
      removed: [{ id: 'docs', agent: 'document-writer', description: 'document greet' }],
      changed: [
        {
          id: 'test',
          agent: 'tester',
          fields: [
            { field: 'description', from: 'test greet', to: 'test greet and farewell' },
            { field: 'depends_on', from: 'impl', to: 'impl, bye' },
          ],
        },
      ],
      kept: ['impl'],
      unchanged: 1,
    });
    expect(diffLines(diff)).toEqual([
      'goal: Add greet() → Add greet() and farewell()',
      '+ bye (coder): write farewell.ts',
      '- docs (document-writer): document greet',
      '~ test description: test greet → test greet and farewell',
      '~ test depends_on: impl → impl, bye',
      'kept (completed, not run again): impl',
    ]);
    expect(diffSummary(diff)).toEqual(['goal changed', '+ bye (coder)', '- docs (document-writer)', '~ test: description, depends_on', 'kept done: impl']);
  });

  it('should say when nothing changed, and keep the dialog summary short', () => {
    expect(isEmptyDiff(diffProposals(v1, v1, new Set()))).toBe(true);
    expect(diffLines(diffProposals(v1, v1, new Set()))).toEqual(['no change to the steps or the goal']);
    const many: PlanProposal = { ...v1, steps: Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, agent: 'coder' as const, description: `step ${i}` })) };
    const summary = diffSummary(diffProposals(v1, many, new Set()), 6);
    expect(summary).toHaveLength(6);
    expect(summary.at(-1)).toBe('… 10 more (orca show)');
  });
});
