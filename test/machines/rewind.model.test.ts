import { describe, expect, it } from 'vitest';
import { fromPromise } from 'xstate';
import { rewindMachine, type ApplyRewindInput, type CheckRewindInput, type RewindCheck, type RewindInput, type RewindStep } from '../../src/machines/rewind.machine.js';
import { coverTransitions, replay } from '../support/model-coverage.js';

/** The chart with ports that never settle: the test delivers their outcomes. */
const idle = rewindMachine.provide({
  actors: { checkRewind: fromPromise<RewindCheck, CheckRewindInput>(() => new Promise(() => {})), applyRewind: fromPromise<void, ApplyRewindInput>(() => new Promise(() => {})) },
});

const landed = (at: string) => ({ at, patch_path: `/plans/${at}.patch` });
const step = (id: string, more: Partial<RewindStep> = {}): RewindStep => ({ id, depends_on: [], landed: landed(id), undone: false, ...more });
/** s1, then s2 (depends on s1), then s3 beside them, in landing order. */
const steps = [step('s1', { landed: landed('1') }), step('s2', { depends_on: ['s1'], landed: landed('2') }), step('s3', { landed: landed('3') })];
const input = (more: Partial<RewindInput> = {}): RewindInput => ({ planId: 'plan_X', status: 'completed', steps, asked: [], direction: 'undo', lastUndo: null, apply: true, ...more });

const check = (more: Partial<RewindCheck> = {}): RewindCheck => ({ from: 't0', to: 't1', files: [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }], clashes: [], ...more });
const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const error = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error('disk full') });

const events = (s: any): any[] => {
  switch (s.value) {
    case 'checking':
      return [done('checkRewind', check()), done('checkRewind', check({ files: [] })), done('checkRewind', check({ clashes: [{ step: 's3', path: 'a.txt', line: 3, detail: 'patch does not apply' }] })), error('checkRewind')];
    case 'applying':
      return [done('applyRewind'), error('applyRewind')];
    default:
      return [];
  }
};

/** Every request the chart tells apart: each refusal, a redo with and without an undo to put back, a dry run and a real one. */
const INPUTS: RewindInput[] = [
  input(),
  input({ apply: false }),
  input({ status: 'in_progress' }),
  input({ asked: ['s9'] }),
  input({ direction: 'redo' }),
  input({ direction: 'redo', lastUndo: { steps: ['s3'], patch_path: '/plans/undo-1.patch' } }),
  input({ asked: ['s1'], steps: [steps[0]!, { ...steps[1]!, landed: undefined }] }),
  input({ steps: steps.map(({ landed: _l, ...s }) => s) }),
  input({ asked: ['s3'], steps: [steps[0]!, steps[1]!, { ...steps[2]!, undone: true }] }),
  input({ steps: steps.map((s) => ({ ...s, undone: true })) }),
  input({ asked: ['s1'] }),
];

describe('rewind machine (model-based)', () => {
  it('should take every transition of the chart', () => {
    const results = INPUTS.map((i) => coverTransitions({ machine: idle, input: i, events, serializeState: (s: any) => String(s.value) }));
    // A request refused at once has no edge to walk: its start alone takes the transition.
    const covered = new Set([...results.flatMap((r) => [...r.covered]), ...INPUTS.flatMap((i) => replay(idle, i, []).taken)]);
    const missing = [...results[0]!.all].filter(([t]) => !covered.has(t)).map(([, label]) => label);
    expect(missing).toEqual([]);
  });

  it('should take back the newest landing first, and refuse a step whose dependents landed after it unless they go with it', () => {
    expect(replay(idle, input(), []).snapshot.context).toMatchObject({ chosen: ['s3', 's2', 's1'], patches: [{ step: 's3', path: '/plans/3.patch' }, { step: 's2', path: '/plans/2.patch' }, { step: 's1', path: '/plans/1.patch' }] });
    expect(replay(idle, input({ asked: ['s1'] }), []).snapshot.context.refusal).toEqual({ reason: 'dependents', dependents: [{ step: 's2', of: 's1' }] });
    expect(replay(idle, input({ asked: ['s1', 's2'] }), []).snapshot.context.chosen).toEqual(['s2', 's1']);
    // A dependent taken back already is no reason to refuse.
    expect(replay(idle, input({ asked: ['s1'], steps: [steps[0]!, { ...steps[1]!, undone: true }, steps[2]!] }), []).snapshot.value).toBe('checking');
    // Through another step: s3 depends on s2, which depends on s1.
    const chain = [steps[0]!, { ...steps[1]!, undone: true }, step('s3', { depends_on: ['s2'], landed: landed('3') })];
    expect(replay(idle, input({ asked: ['s1'], steps: chain }), []).snapshot.context.refusal).toEqual({ reason: 'dependents', dependents: [{ step: 's3', of: 's1' }] });
  });

  it('should change the tree only with apply, after a check with no clash', () => {
    expect(replay(idle, input({ apply: false }), [done('checkRewind', check())] as never).snapshot.value).toBe('previewed');
    expect(replay(idle, input(), [done('checkRewind', check())] as never).snapshot.value).toBe('applying');
    expect(replay(idle, input(), [done('checkRewind', check({ clashes: [{ step: 's3', path: 'a.txt', line: 3, detail: 'x' }] }))] as never).snapshot.context.refusal).toMatchObject({ reason: 'changed_since' });
  });
});
