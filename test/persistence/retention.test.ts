import { describe, expect, it } from 'vitest';
import { PLAN_STATUSES } from '../../src/machines/types.js';
import { ageText, bytesText, kindOf, selectForPruning, type RetentionRules, type StoredPlan } from '../../src/persistence/retention.js';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const approve = { gate: 'approval', option: 'Approve' } as const;

function plan(overrides: Partial<StoredPlan> = {}): StoredPlan {
  return {
    plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9',
    status: 'pending_approval',
    decisions: [],
    updated_at: daysAgo(40),
    bytes: 1234,
    leaseHeld: false,
    queuedDecisions: 0,
    ...overrides,
  };
}

const rules: RetentionRules = { draftsAfterDays: 30, finishedAfterDays: null };
const verdict = (p: StoredPlan, r: RetentionRules = rules) => selectForPruning([p], r, NOW)[0]!;

describe('kindOf', () => {
  it('should call finished exactly the final states of the plan chart, whatever the decisions', () => {
    const finished = PLAN_STATUSES.filter((status) => kindOf({ status, decisions: [approve] }) === 'finished');
    expect(finished).toEqual(['completed', 'failed', 'rejected']);
    expect(kindOf({ status: 'rejected', decisions: [{ gate: 'approval', option: 'Reject' }] })).toBe('finished');
  });

  it('should call a plan with no Approve among its decisions a draft, and one approved but not finished other', () => {
    expect(kindOf({ status: 'drafting', decisions: [] })).toBe('draft');
    expect(kindOf({ status: 'pending_approval', decisions: [{ gate: 'approval', option: 'Request Changes' }, { gate: 'question', option: 'yes' }] })).toBe('draft');
    expect(kindOf({ status: 'in_progress', decisions: [approve] })).toBe('other');
    // Replanned after a failed step: drafting again, but approved once.
    expect(kindOf({ status: 'drafting', decisions: [approve, { gate: 'deviation', option: 'Replan' }] })).toBe('other');
    expect(kindOf({ status: 'pending_approval', decisions: [{ ...approve }] })).toBe('other');
  });
});

describe('selectForPruning', () => {
  it('should remove a draft unchanged for more than its days, and keep one changed since', () => {
    expect(verdict(plan({ updated_at: daysAgo(31) }))).toMatchObject({ remove: true, kind: 'draft' });
    expect(verdict(plan({ updated_at: daysAgo(30) }))).toMatchObject({ remove: false, keep: 'recent' });
    expect(verdict(plan({ updated_at: daysAgo(2) }))).toMatchObject({ remove: false, keep: 'recent' });
    expect(verdict(plan({ updated_at: daysAgo(0.5) }), { ...rules, draftsAfterDays: 0 })).toMatchObject({ remove: true });
  });

  it('should keep finished plans unless a rule for them is given', () => {
    const done = plan({ status: 'completed', decisions: [approve], updated_at: daysAgo(400) });
    expect(verdict(done)).toMatchObject({ remove: false, keep: 'not_asked', kind: 'finished' });
    expect(verdict(done, { ...rules, finishedAfterDays: 90 })).toMatchObject({ remove: true, kind: 'finished' });
    expect(verdict({ ...done, updated_at: daysAgo(60) }, { ...rules, finishedAfterDays: 90 })).toMatchObject({ remove: false, keep: 'recent' });
  });

  it('should keep drafts when no rule for drafts is given (the start-up prune with only finished_after_days)', () => {
    expect(verdict(plan({ updated_at: daysAgo(400) }), { draftsAfterDays: null, finishedAfterDays: 1 })).toMatchObject({ remove: false, keep: 'not_asked' });
  });

  it('should never remove an approved plan that is not finished, however old (running, paused, waiting at a gate)', () => {
    for (const status of ['in_progress', 'approved', 'drafting', 'pending_approval', 'changes_requested'] as const) {
      const old = plan({ status, decisions: [approve], updated_at: daysAgo(10_000) });
      expect(verdict(old, { draftsAfterDays: 0, finishedAfterDays: 0 })).toMatchObject({ remove: false, keep: 'approved', kind: 'other' });
    }
  });

  it('should keep an old plan a process holds, or one with a decision waiting in its inbox', () => {
    expect(verdict(plan({ leaseHeld: true }))).toMatchObject({ remove: false, keep: 'leased' });
    expect(verdict(plan({ status: 'failed', decisions: [approve], leaseHeld: true }), { ...rules, finishedAfterDays: 1 })).toMatchObject({ remove: false, keep: 'leased' });
    expect(verdict(plan({ queuedDecisions: 1 }))).toMatchObject({ remove: false, keep: 'queued' });
  });

  it('should keep a plan whose updated_at is not a time', () => {
    expect(verdict(plan({ updated_at: 'yesterday' }))).toMatchObject({ remove: false, keep: 'undated' });
  });

  it('should answer for every plan, in order, with its kind and age', () => {
    const plans = [plan({ plan_id: 'a' }), plan({ plan_id: 'b', status: 'in_progress', decisions: [approve] }), plan({ plan_id: 'c', status: 'rejected', updated_at: daysAgo(3) })];
    const verdicts = selectForPruning(plans, { draftsAfterDays: 30, finishedAfterDays: 1 }, NOW);
    expect(verdicts.map((v) => [v.plan.plan_id, v.kind, v.remove])).toEqual([
      ['a', 'draft', true],
      ['b', 'other', false],
      ['c', 'finished', true],
    ]);
    expect(verdicts[0]!.ageMs).toBe(40 * 86_400_000);
  });
});

describe('words', () => {
  it('should say sizes in powers of 1000', () => {
    expect([0, 812, 1000, 4_130, 99_600, 999_600, 12_000_000, 3.2e9].map(bytesText)).toEqual(['0 B', '812 B', '1.0 kB', '4.1 kB', '100 kB', '1.0 MB', '12 MB', '3.2 GB']);
  });

  it('should say ages in days, hours or less', () => {
    expect([40 * 86_400_000, 86_400_000, 5 * 3_600_000 + 1, 60_000, Number.NaN].map(ageText)).toEqual(['40d', '1d', '5h', '<1h', '?']);
  });
});
