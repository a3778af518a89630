import { describe, expect, it } from 'vitest';
import type { AgendaItemView } from '../../src/agenda/view.js';
import { compactionContext } from '../../src/opencode/compaction.js';
import { createIdleReminder, reminderFor } from '../../src/notices/idle-reminder.js';
import type { Toast } from '../../src/notices/toasts.js';
import type { PlanSummary } from '../../src/persistence/plan-index.js';

const plan = (id: string, status: PlanSummary['status'], waiting_for: PlanSummary['waiting_for'], caller = 'ses_me'): PlanSummary => ({
  plan_id: id,
  goal: `goal of ${id}`,
  status,
  state: status,
  step_progress: { completed: 1, total: 3 },
  waiting_for,
  busy: false,
  caller_session_id: caller,
  updated_at: 't',
});
const item = (agendaId: string, sessionId?: string, status: AgendaItemView['status'] = 'pending'): AgendaItemView => ({
  agendaId,
  status,
  trigger: { type: 'time', executeAt: '2030-01-01T02:00:00.000Z' },
  action: { type: 'plan', message: 'nightly checks' },
  reason: 'every night',
  createdBy: 'ses_x',
  ...(sessionId ? { sessionId } : {}),
  createdAt: 't',
  depth: 0,
  firings: 0,
  nextDueAt: '2030-01-01T02:00:00.000Z',
  late: false,
  lastResult: null,
  lastError: null,
  planId: null,
  cancelReason: null,
});

describe('compaction context', () => {
  it("should give the session its unfinished plans with plan_id, goal, status, waiting_for and progress, and the pending items", () => {
    const text = compactionContext(
      'ses_me',
      [plan('plan_A', 'pending_approval', 'approval'), plan('plan_B', 'completed', null), plan('plan_C', 'in_progress', null, 'ses_other')],
      [item('agn_1', 'ses_me'), item('agn_2', 'ses_other'), item('agn_3'), item('agn_4', 'ses_me', 'executed')],
    )!;
    expect(text).toContain('- plan_id plan_A; goal: goal of plan_A; status: pending_approval; waiting_for: approval; progress: 1/3 steps done');
    expect(text).toContain('continue each with orca_ask_planner and its plan_id');
    expect(text).not.toMatch(/plan_B|plan_C|agn_2|agn_4/);
    expect(text).toMatch(/- agn_1 \(pending\): at 2030-01-01T02:00:00.000Z → start a plan: "nightly checks"; reason: every night/);
    expect(text).toContain('- agn_3 (pending)');
  });

  it('should add nothing when nothing is unfinished', () => {
    expect(compactionContext('ses_me', [plan('plan_B', 'completed', null)], [])).toBeNull();
  });
});

describe('idle reminder', () => {
  it('should remind a root session of its waiting plans and pending items, at most once per interval', async () => {
    const toasts: Toast[] = [];
    let now = 0;
    const plans = [plan('plan_A', 'pending_approval', 'approval')];
    const remind = createIdleReminder({ plans: () => plans, items: () => [item('agn_1', 'ses_me')], show: (t) => void toasts.push(t), isRoot: async (id) => id === 'ses_me', now: () => now, everyMs: 1000 });
    await remind({ type: 'session.idle', properties: { sessionID: 'ses_me' } });
    await remind({ type: 'session.idle', properties: { sessionID: 'ses_me' } });
    await remind({ type: 'session.idle', properties: { sessionID: 'ses_child' } });
    await remind({ type: 'session.status', properties: { sessionID: 'ses_me' } });
    expect(toasts).toEqual([{ title: 'Orca: waiting for you', message: 'plan_A waits for approval · 1 agenda item(s) pending, next due 2030-01-01T02:00:00.000Z', variant: 'warning' }]);
    now = 1000;
    await remind({ type: 'session.idle', properties: { sessionID: 'ses_me' } });
    expect(toasts).toHaveLength(2);
  });

  it('should stay silent when nothing waits', () => {
    expect(reminderFor('ses_me', [plan('plan_A', 'in_progress', null)], [item('agn_2', 'ses_other')])).toBeNull();
  });
});
