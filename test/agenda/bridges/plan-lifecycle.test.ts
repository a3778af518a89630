import { describe, expect, it } from 'vitest';
import { lifecycleEvents, type PlanMemory } from '../../../src/agenda/bridges/plan-lifecycle.js';
import type { PlanFile } from '../../../src/persistence/plan-file.js';
import { summarize, type PlanSummary } from '../../../src/persistence/plan-index.js';

const id = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
type Step = Pick<PlanFile['steps'][number], 'id' | 'status'> & { failures?: number; summary?: string };
function file(status: PlanFile['status'], waiting_for: PlanFile['waiting_for'], steps: Step[] = []): PlanFile {
  return {
    schema_version: 1,
    machine_version: 2,
    plan_id: id,
    goal: 'Ship it',
    status,
    state: status,
    created_at: 't',
    updated_at: 't',
    steps: steps.map((s) => ({
      id: s.id,
      agent: 'coder',
      description: 'd',
      depends_on: [],
      status: s.status,
      attempts: s.failures ?? 0,
      failures: Array.from({ length: s.failures ?? 0 }, (_, i) => ({ attempt: i + 1, error: `broke ${i + 1}` })),
      ...(s.summary ? { output: { summary: s.summary, artifacts: [], key_findings: [] } } : {}),
    })),
    assumptions: [],
    risks: [],
    verification: [],
    relevant_files: [],
    decisions: [],
    waiting_for,
    revisions: [],
    snapshot: { status: 'active', value: status, context: { plan_id: id, caller_session_id: null }, children: {} },
  };
}

/** Feed a plan's successive files through the diff, as the observer does. */
function run(files: PlanFile[], firstBefore?: PlanSummary) {
  let memory: PlanMemory | undefined;
  let before = firstBefore;
  const kinds: string[] = [];
  for (const f of files) {
    const after = summarize(f);
    const out = lifecycleEvents({ before, after, file: f }, memory);
    kinds.push(...out.events.map((e) => `${e.kind}:${e.subject === id ? 'id' : e.subject}`));
    memory = out.memory;
    before = after;
  }
  return kinds;
}

describe('lifecycle events from plan changes', () => {
  it('should tell created, gate.waiting, approved, step completed and failed, and completed, with the plan_id as subject', () => {
    expect(
      run([
        file('drafting', null),
        file('pending_approval', 'approval', [{ id: 's1', status: 'pending' }]),
        file('in_progress', null, [{ id: 's1', status: 'running' }]),
        file('in_progress', 'deviation', [{ id: 's1', status: 'awaiting_decision', failures: 1 }]),
        file('in_progress', null, [{ id: 's1', status: 'running', failures: 1 }]),
        file('completed', null, [{ id: 's1', status: 'completed', failures: 1, summary: 'done' }]),
      ]),
    ).toEqual(['plan.created:id', 'gate.waiting:id', 'plan.approved:id', 'step.failed:id', 'gate.waiting:id', 'step.completed:id', 'plan.completed:id']);
  });

  it('should tell rejected and failed, and nothing for a change that moves nothing', () => {
    expect(run([file('drafting', null), file('pending_approval', 'approval'), file('pending_approval', 'approval'), file('rejected', null)])).toEqual([
      'plan.created:id',
      'gate.waiting:id',
      'plan.rejected:id',
    ]);
    expect(run([file('drafting', null), file('failed', null)])).toEqual(['plan.created:id', 'plan.failed:id']);
  });

  it('should take a plan restored from disk as it is: its past was told by the process that ran it', () => {
    const restored = file('pending_approval', 'approval');
    expect(run([restored, file('in_progress', null)], summarize(restored))).toEqual(['plan.approved:id']);
  });
});
