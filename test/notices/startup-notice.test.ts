import { describe, expect, it } from 'vitest';
import { startupNotice, unfinishedPlansToast } from '../../src/notices/startup-notice.js';
import type { Toast } from '../../src/notices/toasts.js';
import type { PlanSummary } from '../../src/persistence/plan-index.js';

const plan = (id: string, over: Partial<PlanSummary>): PlanSummary => ({
  plan_id: id,
  goal: 'g',
  status: 'in_progress',
  state: 'in_progress.running',
  step_progress: { completed: 0, total: 2 },
  waiting_for: null,
  busy: true,
  caller_session_id: null,
  updated_at: 't',
  ...over,
});

describe('the start-up notice about unfinished plans', () => {
  it('should name each plan as paused or waiting, and say how to go on', () => {
    const toast = unfinishedPlansToast([plan('plan_A', {}), plan('plan_B', { busy: false, waiting_for: 'approval', status: 'pending_approval' })]);
    expect(toast).toEqual({
      title: 'Orca: 2 unfinished plans',
      message: 'plan_A paused; plan_B waits for approval. Ask Orca to continue one by its plan_id (orca plans lists them).',
      variant: 'info',
      duration: 12_000,
    });
    expect(unfinishedPlansToast([])).toBeNull();
    expect(unfinishedPlansToast([plan('plan_C', { busy: false, waiting_for: 'merge' })])!.message).toBe(
      "plan_C waits for a decision on a step's changes that did not apply. Ask Orca to continue one by its plan_id (orca plans lists them).",
    );
  });

  it('should hold the toast until a client shows it listens, then show it once', () => {
    const shown: Toast[] = [];
    const logs: string[] = [];
    const notice = startupNotice(unfinishedPlansToast([plan('plan_A', {})]), (t) => shown.push(t), (m) => logs.push(m));
    notice.observe({ type: 'tui.toast.show' });
    notice.observe({ type: 'server.instance.disposed' });
    expect(shown).toEqual([]);
    notice.observe({ type: 'plugin.added' });
    notice.observe({ type: 'session.status' });
    expect(shown.map((t) => t.title)).toEqual(['Orca: 1 unfinished plan']);
    expect(logs).toEqual(['start-up notice shown (a client is listening: plugin.added)']);
  });
});
