import { afterEach, describe, expect, it, vi } from 'vitest';
import { toastFor, watchForToasts, type Toast } from '../../src/notices/toasts.js';
import type { PlanObserver } from '../../src/host/observers.js';
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
    expect(toastFor(before, after)).toEqual({ title: 'Orca: budget reached', message: 'plan_X (3/5 steps done) waits for Continue / Stop', variant: 'warning' });
    // Still at the cap after another save: no second toast.
    expect(toastFor(after, { ...after, updated_at: 't2' })).toBeNull();
  });

  it('should leave the gates of a followed plan to the dialog its orca_ask_planner call raises', () => {
    const waiting = summary({ status: 'pending_approval', waiting_for: 'approval' });
    expect(toastFor(summary({}), waiting, { followed: true })).toBeNull();
    expect(toastFor(waiting, summary({ status: 'completed' }), { followed: true })?.title).toBe('Orca: plan completed');
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
    const change = (before: PlanSummary | undefined, after: PlanSummary) => observer?.({ planId: after.plan_id, before, after, file: {} as never, snapshot: {} as never });
    const waiting = summary({ status: 'pending_approval', waiting_for: 'approval' });
    change(undefined, waiting);
    change(waiting, { ...waiting, updated_at: 't2' });
    change(waiting, summary({ status: 'completed' }));
    stop();
    change(waiting, summary({ status: 'failed' }));
    expect(shown.map((t) => t.title)).toEqual(['Orca: plan waits for approval', 'Orca: plan completed']);
  });
});

describe('toasts for budgets and step failures', () => {
  const step = (failures: Array<{ attempt: number; error: string }>) => ({ id: 's1', agent: 'coder', failures });
  const file = (patch: Record<string, unknown>) =>
    ({ plan_id: 'plan_X', steps: [], usage: undefined, budget: { dispatches: 0, dispatch_cap: 100, max_cost: 1, max_tokens: 1000 }, waiting_for: null, ...patch }) as never;
  const spent = (cost: number, input: number) => ({ turns: 1, input, output: 0, reasoning: 0, cache_read: 0, cache_write: 0, cost });

  it('should warn at 50% and 90% of the money and token budgets, once each, and again after Continue raised the limit', () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
    const shown: Toast[] = [];
    watchForToasts(host, (t) => shown.push(t));
    const at = (patch: Record<string, unknown>) => observer!({ snapshot: {} as never, planId: 'plan_X', before: summary({}), after: summary({}), file: file(patch) });
    at({ usage: spent(0.1, 100) });
    at({ usage: spent(0.55, 200) });
    at({ usage: spent(0.6, 300) });
    at({ usage: spent(0.95, 950) });
    at({ usage: spent(0.96, 960), budget: { dispatches: 0, dispatch_cap: 100, max_cost: 2, max_tokens: 2000 } });
    at({ usage: spent(1.1, 1100), budget: { dispatches: 0, dispatch_cap: 100, max_cost: 2, max_tokens: 2000 } });
    expect(shown.map((t) => `${t.title}: ${t.message}`)).toEqual([
      'Orca: 50% of the cost budget: plan_X spent $0.55 of $1.00',
      'Orca: 90% of the cost budget: plan_X spent $0.95 of $1.00',
      'Orca: 90% of the token budget: plan_X spent 950 tokens of 1,000',
      'Orca: 50% of the cost budget: plan_X spent $1.10 of $2.00',
      'Orca: 50% of the token budget: plan_X spent 1,100 tokens of 2,000',
    ]);
  });

  it('should toast each step failure with its error, instead of the generic one', () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
    const shown: Toast[] = [];
    watchForToasts(host, (t) => shown.push(t));
    const running = summary({ status: 'in_progress' });
    const waiting = summary({ status: 'in_progress', waiting_for: 'deviation' });
    observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after: running, file: file({ steps: [step([])] }) });
    observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after: waiting, file: file({ steps: [step([{ attempt: 1, error: 'tests are red' }])], waiting_for: 'deviation' }) });
    // Auto retry: the second failure does not change what the plan waits for, and still gets its toast.
    observer!({ snapshot: {} as never, planId: 'plan_X', before: waiting, after: waiting, file: file({ steps: [step([{ attempt: 1, error: 'tests are red' }, { attempt: 2, error: 'x'.repeat(150) }])], waiting_for: 'deviation' }) });
    expect(shown.map((t) => [t.title, t.message])).toEqual([
      ['Orca: step s1 (coder) failed', 'plan_X, attempt 1: tests are red — waits for Retry / Replan / Stop'],
      // A long error is cut at 100 characters.
      ['Orca: step s1 (coder) failed', `plan_X, attempt 2: ${'x'.repeat(99)}… — waits for Retry / Replan / Stop`],
    ]);
  });

  describe('steps done close together', () => {
    afterEach(() => void vi.useRealTimers());

    it('should share one toast per second: the first at once, the ones done meanwhile together, none after the plan ends', () => {
      vi.useFakeTimers();
      let observer: PlanObserver | undefined;
      const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
      const shown: Toast[] = [];
      const stop = watchForToasts(host, (t) => shown.push(t));
      const s = (id: string, status: string) => ({ id, agent: 'coder', status, failures: [] });
      const running = summary({ status: 'in_progress' });
      const at = (after: PlanSummary, statuses: string[]) =>
        observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after, file: file({ status: after.status, steps: statuses.map((st, i) => s(`s${i + 1}`, st)), usage: spent(0, 0) }) });
      at(running, ['running', 'running', 'running', 'running', 'running', 'pending', 'pending']);
      at(running, ['completed', 'running', 'running', 'running', 'running', 'running', 'pending']);
      at(running, ['completed', 'completed', 'running', 'running', 'running', 'running', 'pending']);
      at(running, ['completed', 'completed', 'completed', 'running', 'running', 'running', 'pending']);
      expect(shown.map((t) => t.title)).toEqual(['Orca: step s1 (coder) done']);
      vi.advanceTimersByTime(999);
      expect(shown).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(shown.map((t) => [t.title, t.message])).toEqual([
        ['Orca: step s1 (coder) done', expect.any(String)],
        ['Orca: steps s2 (coder), s3 (coder) done', 'plan_X · 3/7 done · s4 (coder), s5 (coder), s6 (coder) running · $0.00'],
      ]);
      // Four more within the next second: three named, the rest counted.
      at(running, ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'running']);
      vi.advanceTimersByTime(1000);
      expect(shown.at(-1)?.title).toBe('Orca: steps s4 (coder), s5 (coder), s6 (coder) done');
      at(running, ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed']);
      at(summary({ status: 'completed' }), ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed']);
      vi.advanceTimersByTime(5000);
      expect(shown.map((t) => t.title).slice(3)).toEqual(['Orca: plan completed']);
      stop();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('should drop the step toasts not shown yet when it stops watching', () => {
      vi.useFakeTimers();
      let observer: PlanObserver | undefined;
      const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
      const shown: Toast[] = [];
      const stop = watchForToasts(host, (t) => shown.push(t));
      const running = summary({ status: 'in_progress' });
      const at = (statuses: string[]) =>
        observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after: running, file: file({ status: 'in_progress', steps: statuses.map((st, i) => ({ id: `s${i + 1}`, agent: 'coder', status: st, failures: [] })), usage: spent(0, 0) }) });
      at(['running', 'running']);
      at(['completed', 'running']);
      at(['completed', 'completed']);
      stop();
      vi.advanceTimersByTime(5000);
      expect(shown.map((t) => t.title)).toEqual(['Orca: step s1 (coder) done']);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  it('should toast each step done with where the plan stands (the TUI does not draw the call\'s title), but not the last one: the plan\'s own toast says it', () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
    const shown: Toast[] = [];
    watchForToasts(host, (t) => shown.push(t));
    const s = (id: string, status: string) => ({ id, agent: id === 'a' ? 'coder' : 'tester', status, failures: [] });
    const running = summary({ status: 'in_progress' });
    const at = (after: PlanSummary, steps: unknown[], cost: number) =>
      observer!({ snapshot: {} as never, planId: 'plan_X', before: running, after, file: file({ status: after.status, steps, usage: spent(cost, 10) }) });
    at(running, [s('a', 'running'), s('b', 'pending')], 0);
    at(running, [s('a', 'completed'), s('b', 'running')], 0.25);
    at(running, [s('a', 'completed'), s('b', 'running')], 0.3); // nothing new done
    at(summary({ status: 'completed' }), [s('a', 'completed'), s('b', 'completed')], 0.45);
    expect(shown.map((t) => [t.title, t.message])).toEqual([
      ['Orca: step a (coder) done', 'plan_X · 1/2 done · b (tester) running · $0.25'],
      ['Orca: plan completed', expect.stringMatching(/^plan_/)],
    ]);
  });
});
