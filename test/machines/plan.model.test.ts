import { describe, expect, it } from 'vitest';
import { coverTransitions, replay } from '../support/model-coverage.js';
import { by, done, idlePlanMachine, twoStepPlan } from './fixtures.js';
import { input, oldFailure, output, planEvents, serializePlan, verified } from './plan-events.js';
import { statePath } from '../../src/persistence/plan-envelope.js';
import { fromPromise } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import { hasVerification, verificationHeld } from '../../src/machines/verification.js';

describe('plan machine (model-based)', () => {
  it('should take every transition of the chart', () => {
    const result = coverTransitions({ machine: idlePlanMachine, input, events: planEvents, serializeState: serializePlan });
    expect(result.missing).toEqual([]);
    expect(result.covered.size).toBe(result.all.size);
    console.info(`plan machine: ${result.covered.size}/${result.all.size} transitions, ${result.states} states, ${result.edges} edges`);
    // CPU-bound graph walk: seconds on a quiet machine, much longer beside other work; time is not what it tests.
  }, 300_000);

  it('should reach completed only through a verification that held, a plan with nothing to verify, or Accept as is', () => {
    const adjacency = getAdjacencyMap(idlePlanMachine, { input, events: planEvents, serializeState: serializePlan });
    const ways = new Map<string, number>();
    const other: string[] = [];
    for (const { state, transitions } of Object.values(adjacency) as any[]) {
      if (state.value === 'completed') continue;
      for (const { event, state: next } of Object.values(transitions) as any[]) {
        if (next.value !== 'completed') continue;
        const way =
          event.type === 'xstate.done.actor.verifyPlan' && verificationHeld(event.output.value, state.context.policy)
            ? 'a verification that held'
            : event.type === 'verification.accept'
              ? 'Accept as is'
              : !hasVerification(next.context)
                ? 'nothing to verify'
                : null;
        if (way) ways.set(way, (ways.get(way) ?? 0) + 1);
        else other.push(`${statePath(state.value)} --${event.type}--> completed`);
      }
    }
    expect(other).toEqual([]);
    expect([...ways.keys()].sort()).toEqual(['Accept as is', 'a verification that held', 'nothing to verify']);
    // An old failure (failed on the base too, the same way) is a verification that held; a new one is not.
    expect(verificationHeld(oldFailure, { verify_old_failures: 'report' })).toBe(true);
    expect(verificationHeld(oldFailure, { verify_old_failures: 'gate' })).toBe(false);
    expect(verificationHeld(verified(false), {})).toBe(false);
  }, 300_000);

  it('should verify again a revision from the verification gate whose steps all completed, though it adds none', () => {
    const plan = twoStepPlan.type === 'plan' ? twoStepPlan : never();
    const replanned = [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', plan),
      { type: 'approval.approve', ...by },
      { type: 'step.completed', stepId: 's1', output },
      { type: 'step.completed', stepId: 's2', output },
      done('verifyPlan', verified(false)),
      { type: 'verification.replan', text: 'fix it', ...by },
      // The same steps again, and no verification list of its own: the list that failed is checked.
      done('consultPlanner', { ...plan, verification: [] }),
      { type: 'approval.approve', ...by },
    ];
    const { snapshot } = replay(idlePlanMachine, input, replanned);
    expect(statePath(snapshot.value)).toBe('in_progress.verifying');
    expect(snapshot.context.outcome).toBeNull();
    const failedAgain = replay(idlePlanMachine, input, [...replanned, done('verifyPlan', verified(false))]).snapshot;
    expect(statePath(failedAgain.value)).toBe('in_progress.verification_failed');
  });

  it("should tell each step started after it, and the verifying turn, which checks failed before the plan", () => {
    const failing = [{ command: 'npm test', lines: ['not ok 3 - absolute zero offset in Kelvin'] }];
    const plan = twoStepPlan.type === 'plan' ? twoStepPlan : never();
    const { snapshot } = replay(idlePlanMachine, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      { type: 'checks.failing_before', checks: failing },
      done('consultPlanner', plan),
      { type: 'approval.approve', ...by },
    ]);
    expect(snapshot.context.failing_before).toEqual(failing);
    expect(snapshot.children['step:s1'].getSnapshot().context.thread.failing_before).toEqual(failing);
    const asked: unknown[] = [];
    const recording = idlePlanMachine.provide({
      actors: {
        verifyPlan: fromPromise(({ input: given }) => {
          asked.push(given);
          return new Promise<never>(() => {});
        }),
      },
    });
    const verifying = replay(recording, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      { type: 'checks.failing_before', checks: failing },
      done('consultPlanner', plan),
      { type: 'approval.approve', ...by },
      { type: 'step.completed', stepId: 's1', output },
      { type: 'step.completed', stepId: 's2', output },
    ]).snapshot;
    expect(statePath(verifying.value)).toBe('in_progress.verifying');
    expect(asked).toEqual([expect.objectContaining({ failing_before: failing })]);
  });

  it('should keep completed steps and their outputs across a replan', () => {
    const { snapshot } = replay(idlePlanMachine, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.approve', ...by },
      { type: 'step.completed', stepId: 's1', output },
      { type: 'step.failed', stepId: 's2', attempt: 1, error: 'red' },
      { type: 'step.replan_chosen', stepId: 's2', guidance: 'split it' },
    ]);
    expect(statePath(snapshot.value)).toBe('drafting.consulting');
    expect(snapshot.context.pending_message).toContain('Step "s2" (tester) failed');
    expect(snapshot.context.pending_message).toContain('split it');
    const revised = replay(idlePlanMachine, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.approve', ...by },
      { type: 'step.completed', stepId: 's1', output },
      { type: 'step.failed', stepId: 's2', attempt: 1, error: 'red' },
      { type: 'step.replan_chosen', stepId: 's2' },
      done('consultPlanner', { ...twoStepPlan, steps: [twoStepPlan.type === 'plan' ? twoStepPlan.steps[0]! : never(), { id: 's3', agent: 'tester', description: 'smaller test', depends_on: ['s1'] }] }),
    ]).snapshot;
    expect(revised.value).toBe('pending_approval');
    expect(revised.context.steps.map((s: any) => [s.id, s.status, s.output?.summary])).toEqual([
      ['s1', 'completed', 'done'],
      ['s3', 'pending', undefined],
    ]);
  });

  it('should record every human decision with channel, time, option and text', () => {
    const { snapshot } = replay(idlePlanMachine, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.request_changes', text: 'smaller steps', channel: 'command', at: 't1' },
      done('revisePlan', twoStepPlan),
      { type: 'approval.approve', channel: 'question', at: 't2' },
    ]);
    expect(snapshot.context.decisions).toEqual([
      { gate: 'approval', option: 'Request Changes', channel: 'command', at: 't1', text: 'smaller steps' },
      { gate: 'approval', option: 'Approve', channel: 'question', at: 't2' },
    ]);
  });

  it('should refuse Request Changes without guidance: the plan stays at its approval gate', () => {
    for (const text of ['', '   ']) {
      const { snapshot } = replay(idlePlanMachine, input, [
        done('openPlannerSession', { sessionId: 'ses_planner' }),
        done('consultPlanner', twoStepPlan),
        { type: 'approval.request_changes', text, channel: 'command', at: 't1' },
      ]);
      expect(snapshot.value).toBe('pending_approval');
      expect(snapshot.context.decisions).toEqual([]);
      expect(snapshot.can({ type: 'approval.request_changes', text: 'smaller steps', channel: 'command', at: 't2' })).toBe(true);
    }
  });

  it('should refuse a deviation decision for a step that is not waiting for one', () => {
    const { snapshot } = replay(idlePlanMachine, input, [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.approve', ...by },
    ]);
    expect(snapshot.can({ type: 'deviation.stop', stepId: 's1', ...by })).toBe(false);
    expect(snapshot.can({ type: 'deviation.retry', stepId: 'nope', ...by })).toBe(false);
  });
});

function never(): never {
  throw new Error('unreachable');
}

describe('coverage check', () => {
  it("should hold a step whose changes did not apply at the merge gate, and take only a human's Resolved by hand", () => {
    const clashed = [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.approve', ...by },
      { type: 'step.merge_conflict', stepId: 's1', attempt: 1, conflicts: [{ path: 'hello.ts', hunks: ['<<<<<<< yours'] }] },
    ];
    const { snapshot } = replay(idlePlanMachine, input, clashed);
    const s1 = snapshot.context.steps.find((s: any) => s.id === 's1');
    expect(s1).toMatchObject({ status: 'awaiting_merge', conflicts: [{ path: 'hello.ts', hunks: ['<<<<<<< yours'] }] });
    expect(snapshot.can({ type: 'merge.resolved', stepId: 's1', ...by, channel: 'auto' })).toBe(false);
    expect(snapshot.can({ type: 'merge.resolved', stepId: 's1', ...by })).toBe(true);
    expect(snapshot.can({ type: 'merge.stop', stepId: 's2', ...by })).toBe(false);
    const onTop = replay(idlePlanMachine, input, [...clashed, { type: 'merge.rerun', stepId: 's1', text: 'keep mine', channel: 'cli', at: 't9' }]).snapshot;
    const again = onTop.context.steps.find((s: any) => s.id === 's1');
    expect(again.status).toBe('running');
    expect(again.conflicts).toBeUndefined();
    expect(again.failures).toEqual([expect.objectContaining({ kind: 'merge', guidance: 'keep mine', error: expect.stringContaining('hello.ts') })]);
    expect(onTop.context.decisions.at(-1)).toEqual({ gate: 'merge', option: 'Run again on top', channel: 'cli', at: 't9', step_id: 's1', text: 'keep mine' });
    const diff = { files: [], undeclared: [], patch_path: null, base: 'b', result: 'r', where: 'worktree' };
    const landed = replay(idlePlanMachine, input, [...clashed, { type: 'merge.resolved', stepId: 's1', ...by }, { type: 'step.completed', stepId: 's1', output, diff }]).snapshot;
    expect(landed.context.steps.find((s: any) => s.id === 's1')).toMatchObject({ status: 'completed', diff });
    expect(landed.context.steps.find((s: any) => s.id === 's1').conflicts).toBeUndefined();
  });

  it('should start the dependents of a step that landed in the shared tree while it is measured, and end only once every diff is in', () => {
    const approved = [done('openPlannerSession', { sessionId: 'ses_planner' }), done('consultPlanner', twoStepPlan), { type: 'approval.approve', ...by }];
    const diff = { files: [{ path: 'hello.ts', status: 'added', added: 1, removed: 0 }], undeclared: [], patch_path: null, base: 'b0', result: 'r1', where: 'shared' };
    const landed = [...approved, { type: 'step.landed', stepId: 's1', output }];
    const first = replay(idlePlanMachine, input, landed).snapshot;
    expect(first.context.steps.map((s: any) => [s.id, s.status])).toEqual([
      ['s1', 'completed'],
      ['s2', 'running'],
    ]);
    expect(first.context.measuring).toEqual(['s1']);
    expect(first.children['step:s1']).toBeDefined();
    // Told twice (a step saved mid-measurement by an earlier version captures its tree again): listed once.
    expect(replay(idlePlanMachine, input, [...landed, { type: 'step.landed', stepId: 's1', output }]).snapshot.context.measuring).toEqual(['s1']);

    // s2 ends before s1's diff is in: the plan waits for it.
    const waiting = replay(idlePlanMachine, input, [...landed, { type: 'step.completed', stepId: 's2', output }]).snapshot;
    expect(statePath(waiting.value)).toBe('in_progress.running');
    const ended = replay(idlePlanMachine, input, [...landed, { type: 'step.completed', stepId: 's2', output }, { type: 'step.completed', stepId: 's1', output, diff }]).snapshot;
    expect(ended.hasTag('outcome.completed') || statePath(ended.value) === 'in_progress.verifying').toBe(true);
    expect(ended.context.steps[0]).toMatchObject({ status: 'completed', diff });
    expect(ended.context.measuring).toEqual([]);

    // The last step's landing waits for its diff: the plan does not end without it.
    const measured = [...landed, { type: 'step.completed', stepId: 's1', output, diff }];
    const last = replay(idlePlanMachine, input, [...measured, { type: 'step.landed', stepId: 's2', output }]).snapshot;
    expect(last.context.steps[1].status).toBe('running');
    expect(last.context.measuring).toEqual([]);
    expect(statePath(last.value)).toBe('in_progress.running');
  });

  it('should stop a step still being measured when the plan stops, and keep it completed without its diff', () => {
    const run = [
      done('openPlannerSession', { sessionId: 'ses_planner' }),
      done('consultPlanner', twoStepPlan),
      { type: 'approval.approve', ...by },
      { type: 'step.landed', stepId: 's1', output },
      { type: 'step.failed', stepId: 's2', attempt: 1, error: 'red', signature: 'red' },
      { type: 'step.stop_chosen', stepId: 's2' },
    ];
    const { snapshot } = replay(idlePlanMachine, input, run);
    expect(snapshot.hasTag('outcome.stopped')).toBe(true);
    expect(snapshot.context.measuring).toEqual([]);
    expect(snapshot.context.steps[0]).toMatchObject({ status: 'completed', output });
    expect(snapshot.context.steps[0].diff).toBeUndefined();
  });
});
