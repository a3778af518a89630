import { describe, expect, it } from 'vitest';
import type { DriveResult } from '../../src/host/drive.js';
import type { StepRecord } from '../../src/machines/types.js';
import { LANDED_WORDS, decisionLine, failureLine, renderDrive } from '../../src/tools/render.js';
import { mergeGate } from '../hitl/gate-fixtures.js';
import { usage } from '../support/turns.js';

const at = '2026-01-02T00:00:00.000Z';
const impl: StepRecord = {
  id: 'impl',
  agent: 'coder',
  description: 'implement it',
  depends_on: [],
  status: 'completed',
  attempts: 2,
  failures: [
    {
      attempt: 1,
      kind: 'pre_hook',
      error: 'pre_step hook "npm run lint" failed (exit 2) after 1.2 s:\n  src/a.ts:3 missing semicolon',
      signature: 's',
      guidance: 'fix the lint',
    },
  ],
  output: { summary: 'done', artifacts: ['a.ts'], key_findings: [] },
  usage: usage({ turns: 3, model_calls: 7, input: 300, output: 30, cost: 0.003 }),
  usage_by_role: { specialist: usage({ model_calls: 5 }), reviewer: usage({ turns: 2, model_calls: 2, input: 200, output: 20, cost: 0.002 }) },
};
const docs: StepRecord = { id: 'docs', agent: 'document-writer', description: 'document it', depends_on: ['impl'], status: 'completed', attempts: 1, failures: [], output: { summary: 'documented', artifacts: [], key_findings: [] } };

const completed = (steps: StepRecord[], decisions: unknown[]): DriveResult =>
  ({
    kind: 'outcome',
    tag: 'outcome.completed',
    snapshot: { context: { plan_id: 'plan_X', goal: 'g', steps, decisions, usage: usage({ turns: 4, model_calls: 9 }) } },
  }) as never;

describe('the result of orca_ask_planner', () => {
  it('should say which steps failed before they completed, what failed, and which decisions were taken', () => {
    const result = renderDrive(
      completed(
        [impl, docs],
        [
          { gate: 'approval', option: 'Approve', channel: 'question', at },
          { gate: 'deviation', option: 'Retry', channel: 'question', at, step_id: 'impl', text: 'fix the lint' },
        ],
      ),
    );
    expect(result).toMatchObject({
      status: 'completed',
      failures: [
        {
          step: 'impl',
          failed: [`attempt 1, pre-step hook failed: pre_step hook "npm run lint" failed (exit 2) after 1.2 s: src/a.ts:3 missing semicolon (the user's guidance: fix the lint)`],
          // Not `status: "completed"` under `failures` (issue 35.2: read as a contradiction).
          then: 'completed on attempt 2',
        },
      ],
      decisions: ['Approve at approval by the user in the dialog', 'Retry for step impl by the user in the dialog: "fix the lint"'],
      spent: '4 Orca turns, 9 model calls, 110 tokens, $0.001',
    });
    const [implResult, docsResult] = result.steps as Array<Record<string, unknown>>;
    expect(implResult!.spent).toBe(
      '3 Orca turns, 7 model calls, 330 tokens, $0.003 (specialist 1 Orca turn, 5 model calls, 110 tokens, $0.001; reviewer 2 Orca turns, 2 model calls, 220 tokens, $0.002)',
    );
    expect(docsResult).not.toHaveProperty('spent');
  });

  it('should say what became of a step that failed and was then stopped', () => {
    const stopped = { ...impl, status: 'stopped' as const, attempts: 3 };
    const result = renderDrive({ ...completed([stopped], []), tag: 'outcome.stopped' } as DriveResult) as { failures: Array<{ then: string }> };
    expect(result.failures[0]!.then).toBe('stopped after 3 attempts');
  });

  it('should leave out failures and decisions when there were none', () => {
    const result = renderDrive(completed([docs], []));
    expect(result).not.toHaveProperty('failures');
    expect(result).not.toHaveProperty('decisions');
  });

  it('should keep a failure short and read an old failure without a kind', () => {
    const line = failureLine({ attempt: 2, error: `REVIEW FAILED in round 3 of 3: 1 error\n${'x'.repeat(400)}` });
    expect(line).toMatch(/^attempt 2: REVIEW FAILED in round 3 of 3: 1 error x+…$/);
    expect(line.length).toBeLessThan(200);
    expect(decisionLine({ gate: 'budget', option: 'Continue', channel: 'auto', at })).toBe('Continue at the budget limit by the auto policy');
    expect(decisionLine({ gate: 'question', option: 'Return undefined', channel: 'question', at })).toBe(
      'The planner\'s question answered by the user in the dialog: "Return undefined"',
    );
  });
});

describe("a step's real diff in orca_ask_planner's result", () => {
  const many = Array.from({ length: 14 }, (_, i) => ({ path: `src/f${i}.ts`, status: 'modified' as const, added: i, removed: 1 }));
  const diff = { files: many, undeclared: ['src/f13.ts'], patch_path: '/p/impl.patch', base: 'b', result: 'r', where: 'shared' as const };

  it('should give each step its diff in short: totals, at most 10 files, the undeclared flagged, the patch', () => {
    const result = renderDrive(completed([{ ...impl, diff }], [])) as { steps: Array<Record<string, unknown>> };
    expect(result.steps[0]!.diff).toEqual({
      changed: '14 files +91 −14, 1 not declared',
      files: [...many.slice(0, 10).map((f) => `${f.path} +${f.added} −1`), '… 4 more files'],
      undeclared: ['src/f13.ts'],
      note: 'shared tree: may include changes of steps running beside it',
      patch: '/p/impl.patch',
    });
    expect(renderDrive(completed([docs], [])) as { steps: Array<Record<string, unknown>> }).not.toHaveProperty('steps.0.diff');
  });

  it("should say where a completed worktree step's changes are: applied to the user's project, uncommitted", () => {
    const inTree = { ...diff, where: 'worktree' as const };
    const result = renderDrive(completed([{ ...impl, diff: inTree }], [])) as { steps: Array<{ diff: Record<string, unknown> }> };
    expect(result.steps[0]!.diff.landed).toBe(LANDED_WORDS);
    expect(result.steps[0]!.diff.note).toBeUndefined();
    // Nothing changed, or changes measured in the shared tree: nothing was applied.
    const none = renderDrive(completed([{ ...impl, diff: { ...inTree, files: [], undeclared: [] } }], [])) as { steps: Array<{ diff: Record<string, unknown> }> };
    expect(none.steps[0]!.diff.landed).toBeUndefined();
    const shared = renderDrive(completed([{ ...impl, diff }], [])) as { steps: Array<{ diff: Record<string, unknown> }> };
    expect(shared.steps[0]!.diff.landed).toBeUndefined();
  });

  it('should show the merge gate with its conflicts cut and its diff in short while the plan waits there', () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const gate = mergeGate({ conflicts: Array.from({ length: 7 }, (_, i) => ({ path: `c${i}.ts`, hunks: [long, long, long] })), diff });
    const waiting = { kind: 'waiting', reason: 'dismissed', gates: [gate], snapshot: { context: { plan_id: 'plan_X' } } } as unknown as DriveResult;
    const result = renderDrive(waiting) as { waiting_for: string; gate: { conflicts: unknown[]; diff: { files: string[] }; worktree: string; options: string[] } };
    expect(result.waiting_for).toBe('merge');
    expect(result.gate.worktree).toBe('/tmp/orca-wt/plan_X-s1');
    expect(result.gate.options).toEqual(['Run again on top', 'Resolved by hand', 'Stop']);
    expect(result.gate.diff.files).toHaveLength(11);
    expect(result.gate.conflicts).toHaveLength(6);
    expect(result.gate.conflicts[0]).toEqual({
      path: 'c0.ts',
      hunks: [`${Array.from({ length: 8 }, (_, i) => `line ${i}`).join('\n')}\n… 22 more lines`, expect.any(String), '… 1 more conflicting region'],
    });
    expect(result.gate.conflicts[5]).toBe('… 2 more file(s) with conflicts: orca show has them');
  });
});

