import type { PlanHost } from '../engine/plan-host.js';
import type { PlanSummary } from '../persistence/plan-index.js';

export interface Toast {
  title: string;
  message: string;
  variant: 'info' | 'success' | 'warning' | 'error';
}

/** The toast for a plan's change, if it is one a human should notice. Pure: tested without OpenCode. */
export function toastFor(before: PlanSummary | undefined, after: PlanSummary): Toast | null {
  const goal = after.goal.length > 60 ? `${after.goal.slice(0, 57)}…` : after.goal;
  if (after.waiting_for !== before?.waiting_for) {
    if (after.waiting_for === 'approval') return { title: 'Orca: plan waits for approval', message: `${after.plan_id}: ${goal}`, variant: 'info' };
    if (after.waiting_for === 'deviation') return { title: 'Orca: a step failed', message: `${after.plan_id} waits for Retry / Replan / Stop`, variant: 'warning' };
    if (after.waiting_for === 'question') return { title: 'Orca: the planner asks', message: `${after.plan_id}: ${goal}`, variant: 'info' };
    if (after.waiting_for === 'budget') {
      const progress = `${after.step_progress.completed}/${after.step_progress.total} steps done`;
      return { title: 'Orca: dispatch budget spent', message: `${after.plan_id} (${progress}) waits for Continue / Stop`, variant: 'warning' };
    }
  }
  if (after.status !== before?.status) {
    if (after.status === 'completed') return { title: 'Orca: plan completed', message: `${after.plan_id}: ${goal}`, variant: 'success' };
    if (after.status === 'failed') return { title: 'Orca: plan stopped', message: `${after.plan_id}: ${goal}`, variant: 'error' };
  }
  return null;
}

/** Show a toast whenever a plan changes in a way toastFor cares about (an observer: it cannot block the plan's writes). */
export function watchForToasts(host: Pick<PlanHost, 'observe'>, show: (toast: Toast) => void): () => void {
  return host.observe('the toast watcher', ({ before, after }) => {
    const toast = toastFor(before, after);
    if (toast) show(toast);
  });
}
