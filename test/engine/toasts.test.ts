import { describe, expect, it } from 'vitest';
import { toastFor, watchForToasts, type Toast } from '../../src/opencode/toasts.js';
import type { PlanObserver } from '../../src/engine/observers.js';
import type { PlanSummary } from '../../src/persistence/plan-index.js';

const summary = (patch: Partial<PlanSummary>): PlanSummary => ({
  plan_id: 'plan_X',
  goal: 'Add greet',
  status: 'drafting',
  state: 'drafting.consulting',
  step_progress: { completed: 0, total: 0 },
  waiting_for: null,
  busy: false,
  caller_session_id: null,
  updated_at: 't',
  ...patch,
});

describe('toasts', () => {
  it('should toast when a plan starts waiting for approval or a deviation, and when it ends', () => {
    expect(toastFor(undefined, summary({ status: 'pending_approval', waiting_for: 'approval' }))?.title).toBe('Orca: plan waits for approval');
    expect(toastFor(summary({ status: 'in_progress' }), summary({ status: 'in_progress', waiting_for: 'deviation' }))?.variant).toBe('warning');
    expect(toastFor(summary({ status: 'in_progress' }), summary({ status: 'completed' }))?.variant).toBe('success');
    expect(toastFor(summary({ status: 'in_progress', waiting_for: 'deviation' }), summary({ status: 'failed' }))?.variant).toBe('error');
  });

  it('should toast when a plan starts waiting at its dispatch cap, with its progress', () => {
    const before = summary({ status: 'in_progress', step_progress: { completed: 3, total: 5 } });
    const after = summary({ status: 'in_progress', waiting_for: 'budget', step_progress: { completed: 3, total: 5 } });
    expect(toastFor(before, after)).toEqual({ title: 'Orca: dispatch budget spent', message: 'plan_X (3/5 steps done) waits for Continue / Stop', variant: 'warning' });
    // Still at the cap after another save: no second toast.
    expect(toastFor(after, { ...after, updated_at: 't2' })).toBeNull();
  });

  it('should stay quiet for changes a human need not notice', () => {
    expect(toastFor(summary({}), summary({ state: 'drafting.answered' }))).toBeNull();
    expect(toastFor(summary({ status: 'in_progress' }), summary({ status: 'in_progress', step_progress: { completed: 1, total: 3 } }))).toBeNull();
  });

  it('should show one toast per change the host reports, and none once stopped', () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => (observer = undefined)) };
    const shown: Toast[] = [];
    const stop = watchForToasts(host, (t) => shown.push(t));
    const change = (before: PlanSummary | undefined, after: PlanSummary) => observer?.({ planId: after.plan_id, before, after, file: {} as never });
    const waiting = summary({ status: 'pending_approval', waiting_for: 'approval' });
    change(undefined, waiting);
    change(waiting, { ...waiting, updated_at: 't2' });
    change(waiting, summary({ status: 'completed' }));
    stop();
    change(waiting, summary({ status: 'failed' }));
    expect(shown.map((t) => t.title)).toEqual(['Orca: plan waits for approval', 'Orca: plan completed']);
  });
});
