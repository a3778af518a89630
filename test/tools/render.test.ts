import { describe, expect, it } from 'vitest';
import type { DriveResult } from '../../src/host/drive.js';
import type { StepRecord } from '../../src/machines/types.js';
import { decisionLine, failureLine, renderDrive } from '../../src/tools/render.js';
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
          status: 'completed',
          attempts: 2,
          failed: [`attempt 1, pre-step hook failed: pre_step hook "npm run lint" failed (exit 2) after 1.2 s: src/a.ts:3 missing semicolon (the user's guidance: fix the lint)`],
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
