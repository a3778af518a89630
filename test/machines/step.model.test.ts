import { createActor, fromPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import { coverTransitions, replay } from '../support/model-coverage.js';
import { done, fail, by, standaloneStepMachine } from './fixtures.js';
import type { StepInput } from '../../src/machines/step.machine.js';
import type { StepPolicy } from '../../src/machines/types.js';
import { statePath } from '../../src/persistence/plan-envelope.js';

const policy = (over: Partial<StepPolicy> = {}): StepPolicy => ({
  ask_before_rerun: true,
  review: false,
  review_rounds: 3,
  same_error_limit: 99,
  idle_ms: 600_000,
  pre_hooks: [],
  post_hooks: [],
  ...over,
});

const input = (maxAttempts: number, over: Partial<StepPolicy> = {}): StepInput => ({
  planId: 'plan_X',
  parentSessionId: 'root',
  maxAttempts,
  policy: policy(over),
  thread: {
    plan_id: 'plan_X',
    goal: 'g',
    step: { id: 's1', agent: 'coder', description: 'd', depends_on: [] },
    dependencies: [],
    relevant_files: [],
    previous_attempts: [],
  },
});

const success = { type: 'success', summary: 'ok', artifacts: ['a.ts'] };
const interrupted = { type: 'interrupted', session_id: 'ses_1', detail: 'its turn never finished' };
const failure = { type: 'failure', error: 'tests failed' };
const reviewError = (issue: string) => ({ category: 'Logic', file: 'a.ts', line: 3, issue, found: 'x', expected: 'y', fix: 'z' });
const reviewFail = (issue: string) => ({ type: 'fail', errors: [reviewError(issue)] });
const diff = { files: [{ path: 'a.ts', status: 'modified', added: 2, removed: 1 }], undeclared: [], patch_path: '/p/s1.patch', base: 'b0', result: 'r1', where: 'worktree' };
const clash = { type: 'conflict', diff, conflicts: [{ path: 'a.ts', hunks: ['<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs'] }] };
const workspaceOf = (s: any) =>
  s.context.policy.workspace === 'worktree' ? { kind: 'worktree', root: '/wt', dir: '/wt/s1', base: 'b0' } : { kind: 'shared', dir: '/project', base: 'b0' };
const human = by;
const auto = { ...by, channel: 'auto' as const };

const events = (s: any) => {
  // The worktree walk only needs what a tree of its own adds: the turns' other outcomes are the gated walk's.
  const lean = s.context.policy.workspace === 'worktree';
  switch (statePath(s.value)) {
    case 'opening_workspace.opening':
      return [
        done('openWorkspace', workspaceOf(s)),
        fail('openWorkspace', 'git worktree add failed'),
        ...(s.context.policy.workspace === 'worktree' ? [{ type: 'workspace.waiting' }] : []),
      ];
    case 'opening_workspace.waiting_for_slot':
      return [{ type: 'workspace.slot_taken' }, fail('openWorkspace', 'aborted while waiting for a slot')];
    case 'measuring':
    case 'measuring_landed.diffing':
      return [done('measureStep', diff), fail('measureStep', 'git diff-tree failed')];
    case 'measuring_landed.capturing':
      return [done('captureStep', { result: 'r1' }), fail('captureStep', 'git add failed')];
    case 'merging':
      return [done('mergeStep', { type: 'merged', diff }), done('mergeStep', clash), fail('mergeStep', 'git apply failed')];
    case 'merge_conflict':
      return [
        { type: 'step.rerun_on_top', guidance: 'keep their rename', ...human },
        { type: 'step.rerun_on_top', ...auto },
        { type: 'step.merge_resolved', ...human },
        { type: 'step.stop', ...human },
      ];
    case 'pre_hook':
      return [done('preStepHooks', { failures: [] }), fail('preStepHooks', 'pre_step hook "lint" failed (exit 1)')];
    case 'opening_session':
      return [done('openSpecialistSession', { sessionId: `ses_${s.context.attempt}` }), fail('openSpecialistSession')];
    case 'running':
      if (lean) return [done('runSpecialist', success), done('runSpecialist', failure)];
      return [
        done('runSpecialist', success),
        done('runSpecialist', failure),
        done('runSpecialist', interrupted),
        fail('runSpecialist'),
        done('watchSpecialist', { idleMs: 1000 }),
      ];
    case 'review.opening_session':
      return [done('openReviewerSession', { sessionId: 'ses_review' }), fail('openReviewerSession')];
    case 'review.reviewing':
      if (lean) return [done('runReview', { type: 'pass', summary: 'fine' }), done('runReview', reviewFail('off by one'))];
      return [
        done('runReview', { type: 'pass', summary: 'fine' }),
        done('runReview', reviewFail('off by one')),
        done('runReview', reviewFail('null not handled')),
        fail('runReview'),
        done('watchReviewer', { idleMs: 1000 }),
      ];
    case 'review.fixing':
      if (lean) return [done('runFix', success)];
      return [done('runFix', success), done('runFix', failure), done('runFix', interrupted), fail('runFix'), done('watchFixer', { idleMs: 1000 })];
    case 'awaiting_resume':
      return [
        { type: 'step.rerun', ...human },
        { type: 'step.mark_done', summary: 'the coder finished before the crash', ...human },
        { type: 'step.stop', ...human },
      ];
    case 'post_hook':
      return [done('postStepHooks', { failures: ['post_step hook "notify" failed (exit 1)'] }), fail('postStepHooks')];
    case 'awaiting_decision':
    case 'breaker_open':
      return [
        { type: 'step.retry', guidance: 'try again', ...human },
        { type: 'step.retry', ...auto },
        { type: 'step.replan', ...human },
        { type: 'step.stop', ...human },
      ];
    default:
      return [];
  }
};

const serialize = (s: any) =>
  [
    statePath(s.value),
    s.context.attempt,
    s.context.failures.map((f: any) => f.signature).join(','),
    s.context.review.round,
    s.context.review.signatures.join(','),
    s.context.breaker ? 'B' : '-',
    s.context.warnings.length,
    // Guards read which turn was interrupted; rerun_confirmed only feeds the ports' input.
    s.context.interrupted?.turn ?? '-',
    // Guards read whether the step has a tree and which kind; the merge gate's clash only feeds its texts.
    s.context.workspace?.kind ?? '-',
    s.context.review.session_id ? 'R' : '-',
  ].join('|');

describe('step machine (model-based)', () => {
  it('should take every transition of the chart', () => {
    // Two policies: with hooks, reviewer and a breaker at 2 (every quality-gate path), and plain.
    const gated = coverTransitions({
      machine: standaloneStepMachine,
      input: input(2, { review: true, pre_hooks: ['lint'], post_hooks: ['notify'], same_error_limit: 2 }),
      events,
      serializeState: serialize,
    });
    const plain = coverTransitions({ machine: standaloneStepMachine, input: input(2), events, serializeState: serialize });
    // In its own worktree (measured, reviewed, merged) and in the shared tree (measured, never merged).
    const isolated = coverTransitions({
      machine: standaloneStepMachine,
      // Hooks and the breaker are the gated walk's: here only what a tree of its own adds (a smaller graph).
      input: input(2, { review: true, same_error_limit: 2, workspace: 'worktree' }),
      events,
      serializeState: serialize,
    });
    const shared = coverTransitions({ machine: standaloneStepMachine, input: input(2, { workspace: 'shared' }), events, serializeState: serialize });
    // In the shared tree with a post-step hook: measured before the hook runs, not as it lands.
    const sharedHooked = coverTransitions({ machine: standaloneStepMachine, input: input(2, { workspace: 'shared', post_hooks: ['notify'] }), events, serializeState: serialize });
    const covered = new Set([...gated.covered, ...plain.covered, ...isolated.covered, ...shared.covered, ...sharedHooked.covered]);
    const missing = [...gated.all].filter(([t]) => !covered.has(t)).map(([, label]) => label);
    expect(missing).toEqual([]);
    expect(covered.size).toBe(gated.all.size);
    console.info(
      `step machine: ${covered.size}/${gated.all.size} transitions, ${[gated, plain, isolated, shared, sharedHooked].reduce((n, w) => n + w.states, 0)} states, ${[gated, plain, isolated, shared, sharedHooked].reduce((n, w) => n + w.edges, 0)} edges`,
    );
    // CPU-bound graph walk: seconds on a quiet machine, much longer beside other work; time is not what it tests.
  }, 300_000);

  it('should refuse Retry after the 10th failed attempt and still offer Replan and Stop', () => {
    const tenFailures = Array.from({ length: 10 }, (_, i) => [
      done('openSpecialistSession', { sessionId: `ses_${i}` }),
      done('runSpecialist', failure),
      ...(i < 9 ? [{ type: 'step.retry', ...by }] : []),
    ]).flat();
    const { snapshot } = replay(standaloneStepMachine, input(10), tenFailures);
    expect(snapshot.value).toBe('awaiting_decision');
    expect(snapshot.context.failures).toHaveLength(10);
    expect(snapshot.can({ type: 'step.retry', ...by })).toBe(false);
    expect(snapshot.can({ type: 'step.replan', ...by })).toBe(true);
    expect(snapshot.can({ type: 'step.stop', ...by })).toBe(true);
    const afterRetry = replay(standaloneStepMachine, input(10), [...tenFailures, { type: 'step.retry', ...by }]).snapshot;
    expect(afterRetry.value).toBe('awaiting_decision');
    expect(afterRetry.context.attempt).toBe(10);
  });

  it('should still accept Retry after the 9th failure', () => {
    const nine = Array.from({ length: 9 }, (_, i) => [
      done('openSpecialistSession', { sessionId: `ses_${i}` }),
      done('runSpecialist', failure),
      ...(i < 8 ? [{ type: 'step.retry', ...by }] : []),
    ]).flat();
    const { snapshot } = replay(standaloneStepMachine, input(10), nine);
    expect(snapshot.context.failures).toHaveLength(9);
    expect(snapshot.can({ type: 'step.retry', ...by })).toBe(true);
  });

  it('should attach the human guidance to the failed attempt it answers', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10), [
      done('openSpecialistSession', { sessionId: 'ses_1' }),
      done('runSpecialist', failure),
      { type: 'step.retry', guidance: 'use vitest', ...by },
    ]);
    expect(snapshot.value).toBe('opening_session');
    expect(snapshot.context.attempt).toBe(2);
    expect(snapshot.context.failures).toEqual([{ attempt: 1, error: 'tests failed', kind: 'answer', signature: 'tests failed', guidance: 'use vitest' }]);
  });

  it('should record what failed in each attempt: a hook, the session, the answer, the turn, idleness, the reviewer, the review, the fix', () => {
    const gated = input(10, { review: true, pre_hooks: ['lint'], review_rounds: 1 });
    const kindOf = (events: any[], stepInput = input(10)) => {
      const { snapshot } = replay(standaloneStepMachine, stepInput, events);
      return [snapshot.context.failures.at(-1)?.kind, snapshot.context.failures.at(-1)?.error];
    };
    const opened = [done('openSpecialistSession', { sessionId: 'ses_1' })];
    const reviewing = [done('preStepHooks', { failures: [] }), ...opened, done('runSpecialist', success), done('openReviewerSession', { sessionId: 'ses_r' })];
    expect(kindOf([fail('preStepHooks', 'pre_step hook "lint" failed (exit 1)')], gated)).toEqual(['pre_hook', 'pre_step hook "lint" failed (exit 1)']);
    expect(kindOf([fail('openSpecialistSession', 'no server')])).toEqual(['session', 'no server']);
    expect(kindOf([...opened, done('runSpecialist', failure)])).toEqual(['answer', 'tests failed']);
    expect(kindOf([...opened, fail('runSpecialist', 'coder output was invalid after 2 correction prompts')])[0]).toBe('turn');
    expect(kindOf([...opened, done('watchSpecialist', { idleMs: 1000 })])[0]).toBe('timeout');
    expect(kindOf([...reviewing.slice(0, -1), fail('openReviewerSession', 'no server')], gated)).toEqual(['reviewer', 'reviewer: no server']);
    expect(kindOf([...reviewing, fail('runReview', 'bad reply')], gated)).toEqual(['reviewer', 'reviewer: bad reply']);
    expect(kindOf([...reviewing, done('watchReviewer', { idleMs: 1000 })], gated)[0]).toBe('reviewer');
    expect(kindOf([...reviewing, done('runReview', reviewFail('a'))], gated)[0]).toBe('review');
    const fixing = [...reviewing, done('runReview', reviewFail('a'))];
    const twoRounds = input(10, { review: true, pre_hooks: ['lint'], review_rounds: 2 });
    expect(kindOf([...fixing, done('runFix', failure)], twoRounds)).toEqual(['fix', 'tests failed']);
    expect(kindOf([...fixing, fail('runFix', 'gone')], twoRounds)).toEqual(['fix', 'gone']);
    expect(kindOf([...fixing, done('watchFixer', { idleMs: 1000 })], twoRounds)[0]).toBe('fix');
  });
});

describe('step machine: quality gate and breakers', () => {
  const opened = [done('openSpecialistSession', { sessionId: 'ses_1' })];
  const reviewed = [...opened, done('runSpecialist', success), done('openReviewerSession', { sessionId: 'ses_review' })];

  it('should send FAIL to a fixer pass with the error reports and pass on the next review', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10, { review: true }), [
      ...reviewed,
      done('runReview', reviewFail('off by one')),
    ]);
    expect(statePath(snapshot.value)).toBe('review.fixing');
    expect(snapshot.context.review.errors).toEqual([reviewError('off by one')]);
    const after = replay(standaloneStepMachine, input(10, { review: true }), [
      ...reviewed,
      done('runReview', reviewFail('off by one')),
      done('runFix', { type: 'success', summary: 'fixed', artifacts: ['a.ts'] }),
      done('runReview', { type: 'pass', summary: 'fine' }),
    ]).snapshot;
    expect(after.value).toBe('completed');
    expect(after.output).toEqual({ stepId: 's1', output: { summary: 'fixed', artifacts: ['a.ts'], key_findings: [] } });
  });

  it('should fail into the deviation gate after the last review round, with every error report', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10, { review: true, review_rounds: 3 }), [
      ...reviewed,
      done('runReview', reviewFail('a')),
      done('runFix', success),
      done('runReview', reviewFail('b')),
      done('runFix', success),
      done('runReview', reviewFail('c')),
    ]);
    expect(snapshot.value).toBe('awaiting_decision');
    const error = snapshot.context.failures.at(-1)!.error;
    expect(error).toMatch(/^REVIEW FAILED in round 3 of 3: 1 error/);
    for (const field of ['File: a.ts', 'Line: 3', 'Issue: c', 'Found: x', 'Expected: y', 'Fix: z']) expect(error).toContain(field);
  });

  it('should open the breaker when the reviewer reports the same errors as many rounds in a row as the limit', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10, { review: true, review_rounds: 5, same_error_limit: 3 }), [
      ...reviewed,
      done('runReview', reviewFail('a')),
      done('runFix', success),
      done('runReview', reviewFail('a')),
      done('runFix', success),
      done('runReview', reviewFail('a')),
    ]);
    expect(snapshot.value).toBe('breaker_open');
    expect(snapshot.context.breaker).toMatch(/same error 3 times in a row/);
  });

  it('should open the breaker at the same error signature three times in a row and refuse an automatic Retry there', () => {
    const attempt = (error: string, last = false) => [
      done('openSpecialistSession', { sessionId: 'ses' }),
      done('runSpecialist', { type: 'failure', error }),
      ...(last ? [] : [{ type: 'step.retry', ...human }]),
    ];
    const three = [...attempt('test 1 failed at line 10'), ...attempt('test 1 failed at line 12'), ...attempt('test 1 failed at line 14', true)];
    const { snapshot } = replay(standaloneStepMachine, input(10, { same_error_limit: 3 }), three);
    expect(snapshot.value).toBe('breaker_open');
    expect(snapshot.hasTag('gate.deviation')).toBe(true);
    expect(snapshot.can({ type: 'step.retry', ...auto })).toBe(false);
    expect(snapshot.can({ type: 'step.retry', ...human })).toBe(true);
    // A different error resets the count: two alike then another one stays at the plain gate.
    const mixed = [...attempt('a failed'), ...attempt('a failed'), ...attempt('b failed', true)];
    expect(replay(standaloneStepMachine, input(10, { same_error_limit: 3 }), mixed).snapshot.value).toBe('awaiting_decision');
  });

  it("should block the step with a failing pre-step hook's output and record post-step hook failures without blocking", () => {
    const blocked = replay(standaloneStepMachine, input(10, { pre_hooks: ['lint'] }), [
      fail('preStepHooks', 'pre_step hook "lint" failed (exit 2) after 0.1 s:\nmissing semicolon'),
    ]).snapshot;
    expect(blocked.value).toBe('awaiting_decision');
    expect(blocked.context.failures[0]!.error).toContain('missing semicolon');
    const warned = replay(standaloneStepMachine, input(10, { post_hooks: ['notify'] }), [
      ...opened,
      done('runSpecialist', success),
      done('postStepHooks', { failures: ['post_step hook "notify" failed (exit 1)'] }),
    ]).snapshot;
    expect(warned.value).toBe('completed');
    expect(warned.context.warnings).toEqual(['post_step hook "notify" failed (exit 1)']);
  });

  it('should fail the attempt with TIMEOUT when the idle watch fires', () => {
    const { snapshot } = replay(standaloneStepMachine, input(10), [...opened, done('watchSpecialist', { idleMs: 600_000 })]);
    expect(snapshot.value).toBe('awaiting_decision');
    expect(snapshot.context.failures[0]!.error).toMatch(/^TIMEOUT: the coder was idle for 600 s/);
  });
});

describe('step machine: its own worktree, the real diff, the merge gate', () => {
  const isolated = (over: Partial<StepPolicy> = {}) => input(3, { workspace: 'worktree', review: true, ...over });
  const tree = { kind: 'worktree', root: '/wt', dir: '/wt/s1', base: 'b0' };
  const reviewedInTree = [
    done('openWorkspace', tree),
    done('openSpecialistSession', { sessionId: 'ses_1' }),
    done('runSpecialist', success),
    done('measureStep', diff),
    done('openReviewerSession', { sessionId: 'ses_r' }),
  ];

  it('should open the worktree first, then pin both sessions and the hooks to it', () => {
    const start = replay(standaloneStepMachine, isolated({ pre_hooks: ['lint'] }), []).snapshot;
    expect(start.value).toEqual({ opening_workspace: 'opening' });
    const hooks = replay(standaloneStepMachine, isolated({ pre_hooks: ['lint'] }), [done('openWorkspace', tree)]).snapshot;
    expect(hooks.value).toBe('pre_hook');
    expect(hooks.context.workspace).toEqual(tree);
    // A plain step (no workspace policy) never opens one.
    expect(replay(standaloneStepMachine, input(3), []).snapshot.value).toBe('opening_session');
  });

  it('should restore a step saved while it opened its workspace before the wait for a slot was a state of its own, and wait for a slot after', () => {
    // Earlier versions saved the atomic state `opening_workspace`: it restores as its first child.
    const running = createActor(standaloneStepMachine, { input: isolated() }).start();
    const saved = { ...(running.getPersistedSnapshot() as Record<string, unknown>), value: 'opening_workspace' };
    running.stop();
    const restored = createActor(standaloneStepMachine, { snapshot: saved as never, input: undefined as never }).start();
    expect(restored.getSnapshot().status).toBe('active');
    expect(restored.getSnapshot().value).toEqual({ opening_workspace: 'opening' });
    restored.send({ type: 'workspace.waiting' });
    expect(restored.getSnapshot().value).toEqual({ opening_workspace: 'waiting_for_slot' });
    restored.send({ type: 'workspace.slot_taken' });
    restored.send(done('openWorkspace', tree) as never);
    expect(restored.getSnapshot().value).toBe('opening_session');
    restored.stop();
  });

  it('should give the reviewer the measured diff, and measure again after a fix', () => {
    const { snapshot } = replay(standaloneStepMachine, isolated(), reviewedInTree);
    expect(statePath(snapshot.value)).toBe('review.reviewing');
    expect(snapshot.context.diff).toEqual(diff);
    const fixed = replay(standaloneStepMachine, isolated(), [...reviewedInTree, done('runReview', reviewFail('a')), done('runFix', success)]).snapshot;
    expect(fixed.value).toBe('measuring');
    const after = replay(standaloneStepMachine, isolated(), [
      ...reviewedInTree,
      done('runReview', reviewFail('a')),
      done('runFix', success),
      done('measureStep', { ...diff, result: 'r2' }),
    ]).snapshot;
    // Back to the same reviewer session, round 2, with the new diff.
    expect(statePath(after.value)).toBe('review.reviewing');
    expect(after.context.review).toMatchObject({ session_id: 'ses_r', round: 2 });
    expect(after.context.diff.result).toBe('r2');
  });

  it('should judge the work without a diff git could not make, and say so', () => {
    const { snapshot } = replay(standaloneStepMachine, isolated(), [...reviewedInTree.slice(0, 3), fail('measureStep', 'git diff-tree failed')]);
    expect(statePath(snapshot.value)).toBe('review.opening_session');
    expect(snapshot.context.warnings).toEqual(['what the step changed could not be measured: git diff-tree failed']);
  });

  it('should land a reviewed worktree step and complete with the merged diff', () => {
    const passed = [...reviewedInTree, done('runReview', { type: 'pass', summary: 'fine' })];
    expect(replay(standaloneStepMachine, isolated(), passed).snapshot.value).toBe('merging');
    const merged = replay(standaloneStepMachine, isolated(), [...passed, done('mergeStep', { type: 'merged', diff: { ...diff, result: 'r9' } })]).snapshot;
    expect(merged.value).toBe('completed');
    expect(merged.context.diff.result).toBe('r9');
    expect(merged.context.merge).toBeNull();
  });

  it('should wait at the merge gate on a clash; Resolved by hand completes, Run again on top starts a new attempt in a new tree', () => {
    const clashed = [...reviewedInTree, done('runReview', { type: 'pass', summary: 'fine' }), done('mergeStep', clash)];
    const gate = replay(standaloneStepMachine, isolated(), clashed).snapshot;
    expect(gate.value).toBe('merge_conflict');
    expect(gate.hasTag('gate.merge')).toBe(true);
    expect(gate.context.merge.conflicts[0].path).toBe('a.ts');
    expect(replay(standaloneStepMachine, isolated(), [...clashed, { type: 'step.merge_resolved', ...human }]).snapshot.value).toBe('completed');
    const onTop = replay(standaloneStepMachine, isolated(), [...clashed, { type: 'step.rerun_on_top', guidance: 'keep their rename', ...human }]).snapshot;
    expect(onTop.value).toEqual({ opening_workspace: 'opening' });
    expect(onTop.context).toMatchObject({ attempt: 2, workspace: null, diff: null, merge: null, sessionId: null });
    expect(onTop.context.failures).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'merge', guidance: 'keep their rename', error: expect.stringContaining("clashed with the user's tree in a.ts") }),
    ]);
    // git failing to apply at all is a clash too, with its words.
    const broken = replay(standaloneStepMachine, isolated(), [...reviewedInTree, done('runReview', { type: 'pass', summary: 'fine' }), fail('mergeStep', 'git apply failed')]).snapshot;
    expect(broken.value).toBe('merge_conflict');
    expect(broken.context.merge).toEqual({ conflicts: [], error: 'git apply failed' });
  });

  it('should count each run on top as a failed attempt: at the limit only Stop and Resolved by hand are left', () => {
    const round = [
      done('openWorkspace', tree),
      done('openSpecialistSession', { sessionId: 'ses' }),
      done('runSpecialist', success),
      done('measureStep', diff),
      done('mergeStep', clash),
    ];
    const noReview = input(3, { workspace: 'worktree' });
    const twice = [...round, { type: 'step.rerun_on_top', ...human }, ...round, { type: 'step.rerun_on_top', ...human }, ...round];
    const { snapshot } = replay(standaloneStepMachine, noReview, twice);
    expect(snapshot.value).toBe('merge_conflict');
    expect(snapshot.context.failures).toHaveLength(2);
    expect(snapshot.can({ type: 'step.rerun_on_top', ...human })).toBe(false);
    expect(snapshot.can({ type: 'step.merge_resolved', ...human })).toBe(true);
    expect(snapshot.can({ type: 'step.stop', ...human })).toBe(true);
  });

  it('should keep its tree across a Retry and never merge a step of the shared tree', () => {
    const retried = replay(standaloneStepMachine, isolated(), [
      done('openWorkspace', tree),
      done('openSpecialistSession', { sessionId: 'ses_1' }),
      done('runSpecialist', failure),
      { type: 'step.retry', ...human },
    ]).snapshot;
    expect(retried.value).toBe('opening_session');
    expect(retried.context.workspace).toEqual(tree);
    const shared = replay(standaloneStepMachine, input(3, { workspace: 'shared' }), [
      done('openWorkspace', { kind: 'shared', dir: '/project', base: 'b0' }),
      done('openSpecialistSession', { sessionId: 'ses_1' }),
      done('runSpecialist', success),
      done('captureStep', { result: 'r1' }),
      done('measureStep', { ...diff, where: 'shared' }),
    ]).snapshot;
    expect(shared.value).toBe('completed');
    expect(shared.context.diff.where).toBe('shared');
  });

  it('should tell the plan a shared-tree step landed once git kept its tree, when nothing waits for its diff, and diff that tree; measure first otherwise', () => {
    const ran = [done('openWorkspace', { kind: 'shared', dir: '/project', base: 'b0' }), done('openSpecialistSession', { sessionId: 'ses_1' }), done('runSpecialist', success)];
    const told: any[] = [];
    const telling = standaloneStepMachine.provide({ actions: { notifyLanded: ({ context }: any) => void told.push(context.output), notifyCompleted: () => void told.push('completed') } });
    const capturing = replay(telling, input(3, { workspace: 'shared' }), ran).snapshot;
    expect(capturing.value).toEqual({ measuring_landed: 'capturing' });
    expect(told).toEqual([]); // not before its tree is kept
    const landed = replay(telling, input(3, { workspace: 'shared' }), [...ran, done('captureStep', { result: 'r1' })]).snapshot;
    expect(landed.value).toEqual({ measuring_landed: 'diffing' });
    expect(landed.context.captured).toBe('r1');
    expect(told).toEqual([{ summary: 'ok', artifacts: ['a.ts'], key_findings: [] }]);
    const measured = replay(telling, input(3, { workspace: 'shared' }), [...ran, done('captureStep', { result: 'r1' }), fail('measureStep', 'git diff-tree failed')]).snapshot;
    expect(measured.value).toBe('completed');
    expect(measured.context.warnings).toEqual([expect.stringContaining('git diff-tree failed')]);
    expect(told.at(-1)).toBe('completed');
    // A tree git cannot take: completed with the warning, never landed before it.
    told.length = 0;
    const uncaptured = replay(telling, input(3, { workspace: 'shared' }), [...ran, fail('captureStep', 'git add failed')]).snapshot;
    expect(uncaptured.value).toBe('completed');
    expect(uncaptured.context.warnings).toEqual([expect.stringContaining('git add failed')]);
    expect(told).toEqual(['completed']);
    // Restored while diffing (a restart after the plan heard it landed): the kept tree is diffed again, not the tree now.
    const asked: any[] = [];
    const recording = telling.provide({ actors: { measureStep: fromPromise(({ input }: any) => {
          asked.push(input);
          return new Promise(() => {}); // still diffing when saved
        }) as never } });
    const before = createActor(recording, { input: input(3, { workspace: 'shared' }) }).start();
    for (const event of [...ran, done('captureStep', { result: 'r1' })]) before.send(event as never);
    const saved = before.getPersistedSnapshot();
    before.stop();
    createActor(recording, { snapshot: saved as never, input: undefined as never }).start().stop();
    expect(asked.map((i) => i.result)).toEqual(['r1', 'r1']);
    // Captured with the specialist's session named: its tools alone changed the tree (a snapshot begun after its last call will do).
    const captureInputs: any[] = [];
    const naming = telling.provide({ actors: { captureStep: fromPromise(({ input }: any) => {
          captureInputs.push(input);
          return new Promise(() => {});
        }) as never } });
    const named = createActor(naming, { input: input(3, { workspace: 'shared' }) }).start();
    for (const event of ran) named.send(event as never);
    named.stop();
    expect(captureInputs).toEqual([expect.objectContaining({ stepId: expect.any(String), sessionId: 'ses_1' })]);
    // Measured for a reviewer with the session named too: in the shared tree its tools alone changed the tree so far.
    const measureInputs: any[] = [];
    const reviewed = standaloneStepMachine.provide({ actors: { measureStep: fromPromise(({ input }: any) => {
          measureInputs.push(input);
          return new Promise(() => {});
        }) as never } });
    const measuring = createActor(reviewed, { input: input(3, { workspace: 'shared', review: true }) }).start();
    for (const event of ran) measuring.send(event as never);
    expect(measuring.getSnapshot().value).toBe('measuring');
    measuring.stop();
    expect(measureInputs).toEqual([expect.objectContaining({ sessionId: 'ses_1', workspace: expect.objectContaining({ kind: 'shared' }) })]);
    // A reviewer, a post-step hook or a merge waits for the diff: measured before anything goes on.
    expect(replay(standaloneStepMachine, input(3, { workspace: 'shared', review: true }), ran).snapshot.value).toBe('measuring');
    expect(replay(standaloneStepMachine, input(3, { workspace: 'shared', post_hooks: ['notify'] }), ran).snapshot.value).toBe('measuring');
    expect(replay(standaloneStepMachine, input(3, { workspace: 'worktree' }), [done('openWorkspace', tree), ...ran.slice(1)]).snapshot.value).toBe('measuring');
  });
});
