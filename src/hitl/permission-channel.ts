import type { ToolContext } from '@opencode-ai/plugin';
import { budgetKey, type Gate } from '../machines/gates.js';
import { forecastText, type Forecast } from '../usage/forecast.js';
import { formatCost, formatTokens } from '../usage/format.js';
import { totalTokens } from '../machines/usage.js';
import { changeSummary } from '../text/step-diff.js';

/**
 * Channel 2: OpenCode's permission prompt (ToolContext.ask), used when the native question
 * dialog is unavailable. Allow once = Approve / Retry (Replan once Retry is no longer offered) /
 * Continue at the dispatch cap / Re-run an interrupted step / Run again on top a step whose changes
 * did not apply; Reject = Reject / Stop; Reject with a message (API only: the TUI has no text box)
 * = Request Changes / Replan with that message as guidance, Mark done with it as the interrupted
 * step's summary, Resolved by hand with it as a note, or Stop with it as a note at the dispatch
 * cap. Planner questions cannot be asked here.
 * Each ask uses a pattern unique to the decision, so "Allow always" never answers a later gate.
 */
export async function askPermission(
  ctx: Pick<ToolContext, 'ask'>,
  gate: Gate,
  { forecast }: { forecast?: Forecast } = {},
): Promise<{ option: string; text?: string } | null> {
  if (gate.kind === 'question') return null;
  try {
    const ask = permissionAsk(gate);
    await ctx.ask({ ...ask, ...(forecast ? { metadata: { ...ask.metadata, forecast: forecastText(forecast) } } : {}), always: [] });
  } catch (error) {
    const feedback = feedbackOf(error);
    if (feedback === undefined) throw error;
    if (gate.kind === 'approval') return feedback ? { option: 'Request Changes', text: feedback } : { option: 'Reject' };
    if (gate.kind === 'budget') return feedback ? { option: 'Stop', text: feedback } : { option: 'Stop' };
    if (gate.kind === 'resume') return feedback ? { option: 'Mark done', text: feedback } : { option: 'Stop' };
    if (gate.kind === 'merge') return feedback ? { option: 'Resolved by hand', text: feedback } : { option: 'Stop' };
    return feedback ? { option: 'Replan', text: feedback } : { option: 'Stop' };
  }
  if (gate.kind === 'approval') return { option: 'Approve' };
  if (gate.kind === 'verification') return { option: 'Replan' };
  if (gate.kind === 'budget') return { option: 'Continue' };
  if (gate.kind === 'resume') return { option: 'Re-run' };
  if (gate.kind === 'merge') return { option: 'Run again on top' };
  return { option: (gate.options as readonly string[]).includes('Retry') ? 'Retry' : 'Replan' };
}

/** The permission, its decision-unique pattern and what the prompt shows, per gate. */
function permissionAsk(gate: Exclude<Gate, { kind: 'question' }>) {
  switch (gate.kind) {
    case 'verification':
      return {
        permission: 'orca_plan_verification',
        patterns: [`${gate.planId}:verification:${gate.runs}`],
        metadata: {
          plan_id: gate.planId,
          failed: gate.verification.checks.filter((c) => !c.passed).map((c) => c.name),
          where: gate.verification.where ?? '',
          answers: 'Allow: Replan; Reject: Stop; Reject with a message: Replan with it as guidance (Accept as is: /orca-accept or orca decide)',
          options: gate.options,
        },
      };
    case 'approval':
      return {
        permission: 'orca_plan_approval',
        patterns: [gate.planId],
        metadata: { plan_id: gate.planId, goal: gate.proposal.goal, steps: gate.proposal.steps.map((s) => `${s.id} (${s.agent})`) },
      };
    case 'deviation':
      return {
        permission: 'orca_step_deviation',
        patterns: [`${gate.planId}:${gate.stepId}:${gate.failures}`],
        metadata: {
          plan_id: gate.planId,
          step_id: gate.stepId,
          error: gate.error,
          options: gate.options,
          ...(gate.breaker ? { breaker: gate.breaker } : {}),
        },
      };
    case 'resume':
      return {
        permission: 'orca_step_resume',
        patterns: [`${gate.planId}:resume:${gate.stepId}:${gate.attempt}`],
        metadata: { plan_id: gate.planId, step_id: gate.stepId, session_id: gate.sessionId, detail: gate.detail, files: gate.files, options: gate.options },
      };
    case 'merge':
      return {
        permission: 'orca_step_merge',
        patterns: [`${gate.planId}:merge:${gate.stepId}:${gate.attempt}`],
        metadata: {
          plan_id: gate.planId,
          step_id: gate.stepId,
          conflicts: gate.conflicts.map((c) => c.path),
          ...(gate.error ? { error: gate.error } : {}),
          ...(gate.diff ? { changed: changeSummary(gate.diff), patch: gate.diff.patch_path } : {}),
          ...(gate.worktree ? { worktree: gate.worktree } : {}),
          answers: 'Allow: Run again on top; Reject: Stop; Reject with a message: Resolved by hand (the message is kept as a note)',
          options: gate.options,
        },
      };
    case 'budget':
      return {
        permission: 'orca_dispatch_budget',
        // A limit rises with every Continue: each pause at the budget gate is its own decision.
        patterns: [`${gate.planId}:budget:${budgetKey(gate)}`],
        metadata: {
          plan_id: gate.planId,
          reached: gate.crossed,
          dispatches: gate.dispatches,
          cap: gate.cap,
          continue_allows: gate.increment,
          spent: `${formatTokens(totalTokens(gate.usage))} tokens, ${formatCost(gate.usage.cost)}`,
          ...(gate.cost_cap !== null ? { max_cost: gate.cost_cap } : {}),
          ...(gate.token_cap !== null ? { max_tokens: gate.token_cap } : {}),
          steps_completed: `${gate.completed} of ${gate.total}`,
          options: gate.options,
        },
      };
  }
}

/** '' for a plain rejection, the human's text for a rejection with feedback, undefined for other errors. */
function feedbackOf(error: unknown): string | undefined {
  const e = error as { _tag?: string; name?: string; feedback?: unknown; message?: string };
  const tag = e?._tag ?? e?.name ?? '';
  if (tag.includes('PermissionCorrectedError') || typeof e?.feedback === 'string') {
    return typeof e.feedback === 'string' ? e.feedback : (/following feedback: ([\s\S]*)$/.exec(e.message ?? '')?.[1] ?? '');
  }
  if (tag.includes('PermissionRejectedError') || /rejected permission/.test(e?.message ?? '')) {
    const fb = /following feedback: ([\s\S]*)$/.exec(e?.message ?? '')?.[1];
    return fb ?? '';
  }
  return undefined;
}
