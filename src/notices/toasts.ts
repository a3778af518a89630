import type { PlanHost } from '../host/plan-host.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { totalTokens } from '../machines/usage.js';
import { formatCost, formatTokens } from '../usage/format.js';
import { progressTitle } from './progress-title.js';
import { forTerminal, forTerminalLine } from '../text/terminal.js';
import type { Toast } from '../agenda/ports.js';
import { gateKey, openGates, type Gate, type PlanSnapshot } from '../machines/gates.js';

// Declared with the agenda's ports, which show toasts too; the agenda must not import notices.
export type { Toast };

/**
 * The toast as the TUI may show it: goals, errors and step ids in it are model-written, and the TUI
 * draws toasts in a terminal, so control and bidi characters are shown visibly (the title on one line).
 */
export function safeToast(toast: Toast): Toast {
  return { ...toast, title: forTerminalLine(toast.title), message: forTerminal(toast.message) };
}

/** The toast port every toast passes (the composition root wraps OpenCode's with it): each shown as safeToast. */
export function safeToasts(show: (toast: Toast) => void): (toast: Toast) => void {
  return function showSafely(toast) {
    show(safeToast(toast));
  };
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
    // The merge and resume gates are a step's: stepGateToasts names each step.
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

type StepGate = Extract<Gate, { kind: 'merge' | 'resume' }>;
const isStepGate = (gate: Gate): gate is StepGate => gate.kind === 'merge' || gate.kind === 'resume';

/** The merge and resume gates open in the plan: each is one step's (failed steps have failureToasts). */
export function openStepGates(snapshot: PlanSnapshot, file: Partial<Pick<PlanFile, 'steps'>>): StepGate[] {
  const waiting = (file.steps ?? []).some((s) => s.status === 'awaiting_merge' || s.status === 'awaiting_resume');
  return waiting ? openGates(snapshot).filter(isStepGate) : [];
}

/** A toast for a step at the merge or the resume gate: which step, and what answers it. */
export function stepGateToast(gate: StepGate): Toast {
  const step = `step ${gate.stepId} (${gate.agent})`;
  return {
    title: gate.kind === 'merge' ? `Orca: ${step}: its changes did not apply` : `Orca: ${step} was interrupted`,
    message: `${gate.planId} waits for ${gate.options.join(' / ')}`,
    variant: 'warning',
  };
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

/** The steps completed since `before` (the ids completed then), in plan order. */
export function newlyCompleted(before: ReadonlySet<string>, file: Pick<PlanFile, 'steps'>): Array<{ id: string; agent: string }> {
  return (file.steps ?? []).filter((s) => s.status === 'completed' && !before.has(s.id));
}

/**
 * The toast for steps done, saying where the plan stands: the TUI of OpenCode 1.18.33 draws a
 * plugin tool by its name and arguments only (https://github.com/anomalyco/opencode/issues/18585),
 * so the running orca_ask_planner call's title (progress-title.ts) is not seen there, and this is.
 * Steps done close together share one toast.
 */
export function completionToast(steps: ReadonlyArray<{ id: string; agent: string }>, file: Pick<PlanFile, 'plan_id' | 'status' | 'steps' | 'waiting_for' | 'usage'>): Toast {
  const named = steps.slice(0, 3).map((s) => `${s.id} (${s.agent})`);
  if (steps.length > 3) named.push(`${steps.length - 3} more`);
  return { title: `Orca: ${steps.length === 1 ? 'step' : 'steps'} ${named.join(', ')} done`, message: progressTitle(file), variant: 'info', duration: 3000 };
}

/** Step-done toasts of one plan are at most this often (ms): the TUI shows one toast at a time, and each costs OpenCode a request. */
export const STEP_TOAST_EVERY_MS = 1000;

/**
 * Show a toast whenever a plan changes in a way a human should notice: toastFor's changes, each
 * step failure, each step at the merge or the resume gate (stepGateToast, once per gate), steps done (with where the plan stands; those of one plan at most once per
 * STEP_TOAST_EVERY_MS, the ones in between gathered into the next), and 50 % and 90 % of a money
 * or token budget. An observer: it cannot block the plan's writes. What it saw of each plan is
 * counted from the first change it hears of, so a plan restored with failures or spending behind
 * it does not toast them again. A plan an orca_ask_planner call follows (`followed`) gets no toast
 * for its gates or failed steps: the call raises their dialog, which a toast would cover.
 * Returns the function that stops watching (and drops step toasts not shown yet).
 */
export function watchForToasts(
  host: Pick<PlanHost, 'observe'>,
  show: (toast: Toast) => void,
  followed: (planId: string) => boolean = () => false,
): () => void {
  const seen = new Map<string, { failures: Map<string, number>; shares: { cost?: number; tokens?: number }; completed: Set<string>; gates: Set<string> }>();
  const stepToasts = new Map<string, StepToasts>();
  const stepToastsOf = (planId: string) => {
    let entry = stepToasts.get(planId);
    if (!entry) stepToasts.set(planId, (entry = new StepToasts(show, STEP_TOAST_EVERY_MS)));
    return entry;
  };
  const unsubscribe = host.observe('the toast watcher', ({ planId, before, after, file, snapshot }) => {
    const last = seen.get(planId);
    const failures = new Map((file.steps ?? []).map((s) => [s.id, s.failures.length]));
    const completed = new Set((file.steps ?? []).filter((s) => s.status === 'completed').map((s) => s.id));
    // Each step's gate once, by its identity (plan, kind, step, attempt): two steps at the merge gate are two toasts.
    const stepGates = openStepGates(snapshot, file);
    const gates = new Set(stepGates.map(gateKey));
    seen.set(planId, { failures, shares: budgetShares(file), completed, gates });
    const asked = followed(planId);
    const failed = last && !asked ? failureToasts(last.failures, file) : [];
    // First heard of: gates open already when the plan waited before this change were announced then.
    const announced = last?.gates ?? (before?.waiting_for ? gates : new Set<string>());
    const newGates = asked ? [] : stepGates.filter((g) => !announced.has(gateKey(g)));
    const toast = toastFor(before, after, { followed: asked });
    // The plan's own end has its toast: steps done not shown yet add nothing to it.
    if (after.status === 'completed' || after.status === 'failed') {
      stepToasts.get(planId)?.stop();
      stepToasts.delete(planId);
    }
    // A failure toast names the step and its error: the generic "a step failed" adds nothing then.
    if (toast && !(failed.length > 0 && after.waiting_for === 'deviation' && before?.waiting_for !== 'deviation')) show(toast);
    for (const t of failed) show(t);
    for (const gate of newGates) show(stepGateToast(gate));
    const done = last && after.status !== 'completed' && after.status !== 'failed' ? newlyCompleted(last.completed, file) : [];
    if (done.length > 0) stepToastsOf(planId).add(done, file);
    for (const t of last ? budgetToasts(last.shares, file) : []) show(t);
  });
  return () => {
    unsubscribe();
    for (const entry of stepToasts.values()) entry.stop();
    stepToasts.clear();
  };
}

type ProgressFacts = Pick<PlanFile, 'plan_id' | 'status' | 'steps' | 'waiting_for' | 'usage'>;

/** One plan's step-done toasts: the first at once, then at most one per `everyMs`, gathering the steps done meanwhile. */
class StepToasts {
  private pending: Array<{ id: string; agent: string }> = [];
  private latest: ProgressFacts | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly show: (toast: Toast) => void,
    private readonly everyMs: number,
  ) {}

  add(steps: Array<{ id: string; agent: string }>, file: ProgressFacts): void {
    this.pending.push(...steps.map(({ id, agent }) => ({ id, agent })));
    this.latest = { plan_id: file.plan_id, status: file.status, steps: file.steps, waiting_for: file.waiting_for, usage: file.usage };
    if (!this.timer) this.flush();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
  }

  private flush = (): void => {
    this.timer = null;
    if (this.pending.length === 0 || !this.latest) return;
    const toast = completionToast(this.pending, this.latest);
    this.pending = [];
    this.show(toast);
    this.timer = setTimeout(this.flush, this.everyMs);
    this.timer.unref?.();
  };
}
