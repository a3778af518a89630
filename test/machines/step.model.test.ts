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
const human = by;
const auto = { ...by, channel: 'auto' as const };

const events = (s: any) => {
  switch (statePath(s.value)) {
    case 'pre_hook':
      return [done('preStepHooks', { failures: [] }), fail('preStepHooks', 'pre_step hook "lint" failed (exit 1)')];
    case 'opening_session':
      return [done('openSpecialistSession', { sessionId: `ses_${s.context.attempt}` }), fail('openSpecialistSession')];
    case 'running':
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
      return [
        done('runReview', { type: 'pass', summary: 'fine' }),
        done('runReview', reviewFail('off by one')),
        done('runReview', reviewFail('null not handled')),
        fail('runReview'),
        done('watchReviewer', { idleMs: 1000 }),
      ];
    case 'review.fixing':
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
    const covered = new Set([...gated.covered, ...plain.covered]);
    const missing = [...gated.all].filter(([t]) => !covered.has(t)).map(([, label]) => label);
    expect(missing).toEqual([]);
    expect(covered.size).toBe(gated.all.size);
    console.info(
      `step machine: ${covered.size}/${gated.all.size} transitions, ${gated.states + plain.states} states, ${gated.edges + plain.edges} edges`,
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
