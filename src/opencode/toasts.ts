import type { PlanHost } from '../engine/plan-host.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { totalTokens } from '../machines/usage.js';
import { formatCost, formatTokens } from '../usage/format.js';
import { progressTitle } from './progress-title.js';

export interface Toast {
  title: string;
  message: string;
  variant: 'info' | 'success' | 'warning' | 'error';
  /** Milliseconds on screen (OpenCode's default when absent). */
  duration?: number;
}

/**
 * The toast for a plan's change, if it is one a human should notice. Pure: tested without OpenCode.
 * A plan an orca_ask_planner call follows (`followed`) gets no toast for its gates: the call raises
 * the dialog, which a toast would cover.
 */
export function toastFor(before: PlanSummary | undefined, after: PlanSummary, { followed = false }: { followed?: boolean } = {}): Toast | null {
  const goal = after.goal.length > 60 ? `${after.goal.slice(0, 57)}…` : after.goal;
  if (after.waiting_for !== before?.waiting_for && !followed) {
    if (after.waiting_for === 'approval') return { title: 'Orca: plan waits for approval', message: `${after.plan_id}: ${goal}`, variant: 'info' };
    if (after.waiting_for === 'deviation') return { title: 'Orca: a step failed', message: `${after.plan_id} waits for Retry / Replan / Stop`, variant: 'warning' };
    if (after.waiting_for === 'question') return { title: 'Orca: the planner asks', message: `${after.plan_id}: ${goal}`, variant: 'info' };
    if (after.waiting_for === 'budget') {
      const progress = `${after.step_progress.completed}/${after.step_progress.total} steps done`;
      return { title: 'Orca: budget reached', message: `${after.plan_id} (${progress}) waits for Continue / Stop`, variant: 'warning' };
    }
  }
  if (after.status !== before?.status) {
    if (after.status === 'completed') return { title: 'Orca: plan completed', message: `${after.plan_id}: ${goal}`, variant: 'success' };
    if (after.status === 'failed') return { title: 'Orca: plan stopped', message: `${after.plan_id}: ${goal}`, variant: 'error' };
  }
  return null;
}

type FileFacts = Pick<PlanFile, 'plan_id' | 'steps' | 'usage' | 'budget' | 'waiting_for'>;

/** The fractions of a budget that get a toast when a plan's spending crosses them. */
export const BUDGET_WARNINGS = [0.5, 0.9] as const;

/** How much of its money and token limits a plan has spent (absent: no such limit). */
export function budgetShares(file: Partial<FileFacts>): { cost?: number; tokens?: number } {
  const usage = file.usage;
  if (!usage) return {};
  const cap = file.budget;
  return {
    ...(cap?.max_cost ? { cost: usage.cost / cap.max_cost } : {}),
    ...(cap?.max_tokens ? { tokens: totalTokens(usage) / cap.max_tokens } : {}),
  };
}

/** A toast for each budget warning the plan crossed between two of its files (50 %, 90 % of a limit). */
export function budgetToasts(before: { cost?: number; tokens?: number }, file: Partial<FileFacts>): Toast[] {
  const after = budgetShares(file);
  const toasts: Toast[] = [];
  for (const limit of ['cost', 'tokens'] as const) {
    const now = after[limit];
    if (now === undefined) continue;
    const crossed = BUDGET_WARNINGS.filter((w) => (before[limit] ?? 0) < w && now >= w && now < 1).at(-1);
    if (crossed === undefined) continue;
    const spent = limit === 'cost' ? formatCost(file.usage!.cost) : `${formatTokens(totalTokens(file.usage!))} tokens`;
    const of = limit === 'cost' ? formatCost(file.budget!.max_cost!) : formatTokens(file.budget!.max_tokens!);
    toasts.push({
      title: `Orca: ${Math.round(crossed * 100)}% of the ${limit === 'cost' ? 'cost' : 'token'} budget`,
      message: `${file.plan_id} spent ${spent} of ${of}`,
      variant: crossed >= 0.9 ? 'warning' : 'info',
    });
  }
  return toasts;
}

/** A toast for each failed attempt recorded since `before` (failures per step id). */
export function failureToasts(before: Map<string, number>, file: Partial<FileFacts>): Toast[] {
  const toasts: Toast[] = [];
  for (const step of file.steps ?? []) {
    for (const failure of step.failures.slice(before.get(step.id) ?? 0)) {
      const error = failure.error.length > 100 ? `${failure.error.slice(0, 99)}…` : failure.error;
      toasts.push({
        title: `Orca: step ${step.id} (${step.agent}) failed`,
        message: `${file.plan_id}, attempt ${failure.attempt}: ${error}${file.waiting_for === 'deviation' ? ' — waits for Retry / Replan / Stop' : ''}`,
        variant: 'warning',
      });
    }
  }
  return toasts;
}

/**
 * A toast for each step completed since `before` (the ids completed then), saying where the plan
 * stands: the TUI of OpenCode 1.18.33 draws a plugin tool by its name and arguments only, so the
 * running orca_ask_planner call's title (progress-title.ts) is not seen there, and this is.
 */
export function completionToasts(before: ReadonlySet<string>, file: Pick<PlanFile, 'plan_id' | 'status' | 'steps' | 'waiting_for' | 'usage'>): Toast[] {
  return (file.steps ?? [])
    .filter((s) => s.status === 'completed' && !before.has(s.id))
    .map((s) => ({ title: `Orca: step ${s.id} (${s.agent}) done`, message: progressTitle(file), variant: 'info' as const, duration: 3000 }));
}

/**
 * Show a toast whenever a plan changes in a way a human should notice: toastFor's changes, each
 * step failure, each step done (with where the plan stands), and 50 % and 90 % of a money or token
 * budget. An observer: it cannot block the
 * plan's writes. What it saw of each plan is counted from the first change it hears of, so a
 * plan restored with failures or spending behind it does not toast them again. A plan an
 * orca_ask_planner call follows (`followed`) gets no toast for its gates or failed steps: the call
 * raises their dialog, which a toast would cover.
 */
export function watchForToasts(host: Pick<PlanHost, 'observe'>, show: (toast: Toast) => void, followed: (planId: string) => boolean = () => false): () => void {
  const seen = new Map<string, { failures: Map<string, number>; shares: { cost?: number; tokens?: number }; completed: Set<string> }>();
  return host.observe('the toast watcher', ({ planId, before, after, file }) => {
    const last = seen.get(planId);
    const failures = new Map((file.steps ?? []).map((s) => [s.id, s.failures.length]));
    const completed = new Set((file.steps ?? []).filter((s) => s.status === 'completed').map((s) => s.id));
    seen.set(planId, { failures, shares: budgetShares(file), completed });
    const asked = followed(planId);
    const stepToasts = last && !asked ? failureToasts(last.failures, file) : [];
    const toast = toastFor(before, after, { followed: asked });
    // A failure toast names the step and its error: the generic "a step failed" adds nothing then.
    if (toast && !(stepToasts.length > 0 && after.waiting_for === 'deviation' && before?.waiting_for !== 'deviation')) show(toast);
    for (const t of stepToasts) show(t);
    // The plan's own end has its toast: a one-step plan's only completion adds nothing to it.
    if (last && after.status !== 'completed') for (const t of completionToasts(last.completed, file)) show(t);
    for (const t of last ? budgetToasts(last.shares, file) : []) show(t);
  });
}
