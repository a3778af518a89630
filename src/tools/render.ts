import type { DriveResult } from '../host/drive.js';
import type { PlanSnapshot } from '../host/plan-host.js';
import type { Gate } from '../machines/gates.js';
import { activityOf, pausedHint } from '../persistence/plan-activity.js';
import type { PlanSummary } from '../persistence/plan-index.js';
import { planUsage } from '../machines/budget.js';
import type { DecisionRecord, FailedAttempt, MergeConflict, StepRecord } from '../machines/types.js';
import { changedAfter, changedBefore } from '../machines/step-graph.js';
import { changedSinceText, conflictHunks, diffDigest, overlapText } from '../text/step-diff.js';
import { FAILURE_KIND_WORDS } from '../text/failure-kind.js';
import { roleUsageParts, usageText } from '../usage/format.js';

/**
 * What orca_ask_planner returns (docs/design.md, "What orca_ask_planner returns"): answer |
 * completed | stopped | rejected | failure, or waiting.
 */
export function renderDrive(result: DriveResult): Record<string, unknown> {
  const c = result.snapshot.context;
  if (result.kind === 'waiting') return renderWaiting(result.snapshot, result.gates, result.reason);
  switch (result.tag) {
    case 'outcome.answer':
      return { status: 'answer', plan_id: c.plan_id, content: c.answer };
    case 'outcome.failure':
      return { status: 'failure', plan_id: c.plan_id, error: c.planner_error, resume: 'Send a new message with this plan_id to try again.' };
    case 'outcome.completed':
      return {
        status: 'completed',
        plan_id: c.plan_id,
        goal: c.goal,
        steps: stepResults(result.snapshot),
        ...verified(result.snapshot),
        ...history(result.snapshot),
        ...spent(result.snapshot),
      };
    case 'outcome.stopped':
      return {
        status: 'stopped',
        plan_id: c.plan_id,
        goal: c.goal,
        steps: stepResults(result.snapshot),
        ...verified(result.snapshot),
        decision: c.decisions.at(-1),
        ...history(result.snapshot),
        ...spent(result.snapshot),
      };
    case 'outcome.rejected':
      return { status: 'rejected', plan_id: c.plan_id, goal: c.goal, decision: c.decisions.at(-1) };
  }
}

function renderWaiting(snapshot: PlanSnapshot, gates: Gate[], reason: string): Record<string, unknown> {
  const gate = gates[0]!;
  return {
    status: 'waiting',
    plan_id: snapshot.context.plan_id,
    waiting_for: gate.kind,
    reason,
    resume: 'Call orca_ask_planner with this plan_id to be asked again, or answer with a slash command.',
    gate: compactGate(gate),
  };
}

/**
 * The gate as the orca agent reads it on every call: a step's diff as its digest (totals, files
 * capped, undeclared flagged, the patch's path) and a merge gate's conflicts cut (files capped,
 * a few regions of a few lines each); the whole is in orca show and the patch.
 */
function compactGate(gate: Gate): object {
  if (gate.kind !== 'deviation' && gate.kind !== 'merge') return gate;
  const { diff, ...rest } = gate;
  return {
    ...rest,
    ...(diff ? { diff: diffDigest(diff, MAX_FILES) } : {}),
    ...(rest.kind === 'merge' ? { conflicts: compactConflicts(rest.conflicts) } : {}),
  };
}

/** Where a completed worktree step's changes are. */
export const LANDED_WORDS = "applied to the user's project as uncommitted changes (nothing committed)";

/** How many files a result lists per step, and how much of a merge gate's conflicts. */
const MAX_FILES = 10;
const MAX_CONFLICT_FILES = 5;
const RESULT_CUT = { hunks: 2, lines: 8, width: 120 };

export function compactConflicts(conflicts: readonly MergeConflict[]): Array<{ path: string; hunks: string[] } | string> {
  const shown: Array<{ path: string; hunks: string[] } | string> = conflicts
    .slice(0, MAX_CONFLICT_FILES)
    .map((c) => ({ path: c.path, hunks: conflictHunks(c, RESULT_CUT) }));
  if (conflicts.length > MAX_CONFLICT_FILES) shown.push(`… ${conflicts.length - MAX_CONFLICT_FILES} more file(s) with conflicts: orca show has them`);
  return shown;
}

/**
 * A step's diff (and, at the merge gate, its conflicts) for a result: compact, the whole being in orca
 * show and the patch. `overlap`: it changed files on top of other steps' changes (overlapText).
 */
export function stepChanges(s: Pick<StepRecord, 'status' | 'diff' | 'conflicts'>, overlap: string | null = null): Record<string, unknown> {
  // A relay run's orca could not tell the user where a worktree step's changes were: say it.
  const landed = s.status === 'completed' && s.diff?.where === 'worktree' && s.diff.files.length > 0;
  return {
    ...(s.diff ? { diff: { ...diffDigest(s.diff, MAX_FILES), ...(landed ? { landed: LANDED_WORDS } : {}), ...(overlap ? { overlap } : {}) } } : {}),
    ...(s.status === 'awaiting_merge' && s.conflicts ? { conflicts: compactConflicts(s.conflicts) } : {}),
  };
}

/**
 * What was verified once every step landed, and where: the checks in short (the whole output is in
 * orca show), or that nothing was verified there (a plan whose steps each passed only in their own copy).
 */
function verified(snapshot: PlanSnapshot): Record<string, unknown> {
  const v = snapshot.context.verification;
  if (!v) return snapshot.context.steps.length > 0 ? { verification: "not carried out in the user's project: the plan named nothing to verify and no verification.commands are configured" } : {};
  return {
    verification: {
      passed: v.passed,
      where: v.where ?? "the user's project",
      checks: v.checks.map((check) => `${check.passed ? 'passed' : 'FAILED'}: ${check.name}: ${oneLine(check.output, ERROR_MAX)}`),
      ...(v.changed.length ? { changed_by_the_verification: v.changed } : {}),
      ...(v.passed ? {} : { accepted: "the user accepted the plan as it is, or stopped it: see decisions" }),
    },
  };
}

const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

/** What the whole plan cost (planner, steps, asks), as numbers and in words. */
function spent(snapshot: PlanSnapshot) {
  const usage = planUsage(snapshot.context);
  return { usage, spent: usageText(usage) };
}

function stepResults(snapshot: PlanSnapshot) {
  const steps = snapshot.context.steps;
  return steps.map((s) => ({
    id: s.id,
    agent: s.agent,
    status: s.status,
    attempts: s.attempts,
    ...(s.output ?? {}),
    // Its key findings may be outdated: a later step changed the same files on top of it.
    ...withText('changed_since', changedSinceText(changedAfter(steps, s.id))),
    // A step that did not complete says why: its last error, and the breaker's reason if it opened.
    ...(s.status !== 'completed' && s.failures.length > 0 ? { last_error: s.failures.at(-1)!.error } : {}),
    ...(s.breaker ? { breaker: s.breaker } : {}),
    ...(s.warnings?.length ? { warnings: s.warnings } : {}),
    ...(s.usage ? { usage: s.usage, spent: stepSpent(s) } : {}),
    ...stepChanges(s, overlapText(changedBefore(steps, s.id))),
  }));
}

/**
 * What happened on the way, so the orca agent can tell the user: the steps that failed before they
 * completed (or did not), each failure in short, and every decision taken (gate, option, who, guidance).
 */
function history(snapshot: PlanSnapshot) {
  const c = snapshot.context;
  const failed = c.steps.filter((s) => s.failures.length > 0);
  return {
    ...(failed.length
      ? {
          failures: failed.map((s) => ({
            step: s.id,
            failed: s.failures.map(failureLine),
            // Not `status`: a step listed here with status "completed" read as a contradiction (issue 35).
            then: thenWords(s),
          })),
        }
      : {}),
    ...(c.decisions.length ? { decisions: c.decisions.map(decisionLine) } : {}),
  };
}

const withText = (key: string, text: string | null) => (text ? { [key]: text } : {});

/** What became of a step after its failed attempts: "completed on attempt 2", "stopped after 3 attempts". */
function thenWords(s: StepRecord): string {
  if (s.status === 'completed') return `completed on attempt ${s.attempts}`;
  if (s.status === 'stopped') return `stopped after ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}`;
  return s.status.replace(/_/g, ' ');
}

/** How long a failure's error may be in the result: the reason, not a whole review report. */
const ERROR_MAX = 160;

/** "attempt 1, pre-step hook failed: pre_step hook "npm run lint" failed (exit 2) …". */
export function failureLine(f: FailedAttempt): string {
  const line = f.error.replace(/\s+/g, ' ').trim();
  const error = line.length > ERROR_MAX ? `${line.slice(0, ERROR_MAX)}…` : line;
  return `attempt ${f.attempt}${f.kind ? `, ${FAILURE_KIND_WORDS[f.kind]}` : ''}: ${error}${f.guidance ? ` (the user's guidance: ${f.guidance})` : ''}`;
}

const GATE_WORDS: Record<DecisionRecord['gate'], string> = {
  approval: 'at approval',
  deviation: 'after a failure',
  question: "at the planner's question",
  budget: 'at the budget limit',
  resume: 'after an interruption',
  merge: 'when its changes did not apply',
  verification: 'when its verification failed',
};

const CHANNEL_WORDS: Record<DecisionRecord['channel'], string> = {
  question: 'by the user in the dialog',
  permission: 'by the user at the permission prompt',
  command: 'by the user with a slash command',
  cli: 'by the user with orca decide',
  auto: 'by the auto policy',
  tool: 'through orca_ask_planner',
};

/** "Retry for step impl by the user in the dialog: "use vitest"". */
export function decisionLine(d: DecisionRecord): string {
  // A planner's question has no option of Orca's: the answer is what the user chose or typed.
  if (d.gate === 'question') return `The planner's question answered ${CHANNEL_WORDS[d.channel]}: ${JSON.stringify(d.option)}`;
  const where = d.step_id ? `for step ${d.step_id}` : GATE_WORDS[d.gate];
  return `${d.option} ${where} ${CHANNEL_WORDS[d.channel]}${d.text ? `: ${JSON.stringify(d.text)}` : ''}`;
}

/** A step's usage in words, split by whose turns they were when known. */
function stepSpent(s: StepRecord): string {
  const roles = roleUsageParts(s.usage, s.usage_by_role);
  return `${usageText(s.usage!)}${roles.length ? ` (${roles.join('; ')})` : ''}`;
}

/**
 * What orca_list_plans returns: one page of the plans (newest first) and how to get the next.
 * `held` says whether a process holds a plan's lease, which tells a running plan from a paused one.
 */
export function renderPlanList(
  newestFirst: PlanSummary[],
  { offset, limit }: { offset: number; limit: number },
  held: (planId: string) => boolean,
): Record<string, unknown> {
  const total = newestFirst.length;
  const page = newestFirst.slice(offset, offset + limit);
  const rest = total - offset - page.length;
  return {
    total,
    showing: page.length > 0 ? `${offset + 1}-${offset + page.length} of ${total}, newest first` : `none of ${total}`,
    ...(rest > 0 ? { more: `${rest} older plan(s): call orca_list_plans with offset ${offset + page.length} to see them.` } : {}),
    ...(page.length === 0 && total > 0 ? { note: `offset ${offset} is past the oldest plan: use an offset below ${total}.` } : {}),
    plans: page.map((p) => {
      const activity = activityOf(p, held(p.plan_id));
      return {
        plan_id: p.plan_id,
        goal: p.goal,
        status: p.status,
        activity,
        ...(p.waiting_for ? { waiting_for: p.waiting_for } : {}),
        ...(activity === 'paused' ? { resume: pausedHint(p.plan_id, 'orca') } : {}),
        step_progress: `${p.step_progress.completed}/${p.step_progress.total}`,
        updated_at: p.updated_at,
      };
    }),
  };
}
