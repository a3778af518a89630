import { changesSinceRevision, diffLines } from '../machines/plan-diff.js';
import type { StepDiff } from '../machines/types.js';
import { checkVerdict, type CheckVerdict } from '../machines/verification.js';
import { changeSummary, conflictHunks, diffFileLines, SHARED_TREE_WORDS } from '../text/step-diff.js';
import type { PlanFile, PlanFileStep } from '../persistence/plan-file.js';
import type { CommandContext } from './command.js';
import { shortTime, WAITING_WORDS } from './format.js';
import { duration, historyLines, stepDurations } from './history.js';
import { println } from './io.js';
import { storeOf } from './project.js';
import { loadPlan, planIdArgument } from '../decisions/requested-plan.js';
import { totalTokens } from '../machines/usage.js';
import { FAILURE_KIND_WORDS } from '../text/failure-kind.js';
import { formatCost, formatTokens, roleUsageParts, tokenClasses, usageText } from '../usage/format.js';
import { activityOf, pausedHint } from '../persistence/plan-activity.js';
import { summarize } from '../persistence/plan-index.js';
import { leaseHeld } from '../persistence/plan-lease.js';

/** `orca show <plan_id>`: everything in the plan file except the raw snapshot, plus its journal. */
export function showCommand({ io, project, args }: CommandContext): number {
  const planId = planIdArgument(args[0], 'show');
  const store = storeOf(project);
  const plan = loadPlan(store, planId);
  const journal = store.journalPathOf(planId);
  println(io.stdout, ...planLines(plan, { held: leaseHeld(store.pathOf(planId)), durations: stepDurations(journal) }), '', ...historyLines(journal));
  return 0;
}

/** What `orca show` prints above the history; `held`: whether a process holds the plan's lease now. */
export function planLines(plan: PlanFile, { held, durations = new Map() }: { held: boolean; durations?: Map<string, number> }): string[] {
  const done = plan.steps.filter((s) => s.status === 'completed').length;
  return [
    `Plan ${plan.plan_id}`,
    `  goal     ${plan.goal}`,
    `  status   ${plan.status}${plan.state === plan.status ? '' : ` (state ${plan.state})`}`,
    `  now      ${nowLine(plan, held)}`,
    `  created  ${shortTime(plan.created_at)}, updated ${shortTime(plan.updated_at)}`,
    ...usageLines(plan),
    '',
    `Steps (${done}/${plan.steps.length} completed)`,
    ...(plan.steps.length === 0 ? ['  (none yet: the planner has not proposed a plan)'] : plan.steps.flatMap((s) => stepLines(s, durations.get(s.id), s.status === 'awaiting_merge' ? worktreeOf(plan, s.id) : undefined))),
    ...section('Assumptions', plan.assumptions),
    ...section('Risks', plan.risks),
    ...section('Verification', plan.verification),
    ...verifiedLines(plan),
    ...undoLines(plan),
    ...section('Relevant files', plan.relevant_files),
    ...changesSection(plan),
    '',
    'Decisions',
    ...(plan.decisions.length === 0
      ? ['  (none)']
      : plan.decisions.map(
          (d) =>
            `  ${shortTime(d.at)}  ${d.gate}${d.step_id ? ` (step ${d.step_id})` : ''}: ${d.option} via ${d.channel}${d.text ? ` — "${d.text}"` : ''}`,
        )),
  ];
}

/** What was carried out in the project once every step landed, each check with what it said. */
function verifiedLines(plan: PlanFile): string[] {
  const v = plan.verification_result;
  if (!v) return [];
  const verdicts = v.checks.map(checkVerdict);
  const held = verdicts.every((verdict) => verdict !== 'new');
  const head = `Verified in ${v.where ?? 'the project'}${v.at ? ` at ${shortTime(v.at)}` : ''}: ${v.passed ? 'passed' : held ? 'no new failure (what fails failed before the plan too)' : 'FAILED'}`;
  return [
    '',
    head,
    ...v.checks.flatMap((c, i) => [
      `  ${VERDICT_MARK[verdicts[i]!]} ${c.name}${VERDICT_WORDS[verdicts[i]!](c)}`,
      ...c.output.split('\n').map((l) => `      ${l}`),
      ...(c.before ? [`    on the plan's base (${v.base?.slice(0, 12) ?? 'before the plan'}): ${c.before.passed ? 'passed' : 'failed'}`, ...c.before.output.split('\n').map((l) => `      ${l}`)] : []),
    ]),
    ...(v.changed.length ? [`  the verification changed: ${v.changed.join(', ')}`] : []),
  ];
}

const VERDICT_MARK: Record<CheckVerdict, string> = { passed: '✓', old: '~', new: '✗' };
const VERDICT_WORDS: Record<CheckVerdict, (c: { before?: unknown }) => string> = {
  passed: () => '',
  old: () => ': failing before the plan too (an old failure, not the plan\'s)',
  new: (c) => (c.before ? ': fails now, and differently from before the plan (a new failure)' : ': fails now (a new failure)'),
};

/** What undo and redo did to the plan's changes in the working tree (the plan file's `undos`). */
function undoLines(plan: PlanFile): string[] {
  if (!plan.undos?.length) return [];
  return [
    '',
    'Undone and redone',
    ...plan.undos.map((u) => `  ${shortTime(u.at)}  ${u.kind === 'undo' ? 'took back' : 'put back'} ${u.steps.join(', ')} (${u.files.length} file${u.files.length === 1 ? '' : 's'}) via ${u.channel}; patch: ${u.patch_path}`),
  ];
}

/** What changed against the previous version (the plan file keeps earlier versions in `revisions`). */
function changesSection(plan: PlanFile): string[] {
  const changes = changesSinceRevision(plan);
  if (!changes) return [];
  return ['', `Changes since version ${plan.revisions.length} (this is version ${plan.revisions.length + 1})`, ...diffLines(changes).map((l) => `  ${l}`)];
}

/** What the plan is doing: waiting at a gate (and how to answer), running, paused, or idle. */
function nowLine(plan: PlanFile, held: boolean): string {
  switch (activityOf(summarize(plan), held)) {
    case 'waiting':
      return `waiting for ${WAITING_WORDS[plan.waiting_for!]}: ${nextStep(plan)}`;
    case 'running':
      return 'running (an OpenCode server holds it; orca ui or this command shows its progress)';
    case 'paused':
      return pausedHint(plan.plan_id, 'cli');
    case 'idle':
      return 'idle: nothing in flight and no decision open';
  }
}

function nextStep(plan: PlanFile): string {
  const id = plan.plan_id;
  if (plan.waiting_for === 'approval') return `orca decide ${id} approve | reject | changes --message "…"`;
  if (plan.waiting_for === 'deviation') return `orca decide ${id} retry | replan | stop [--message "…"]`;
  if (plan.waiting_for === 'resume') return `orca decide ${id} rerun | stop, or done --message "what it did"`;
  if (plan.waiting_for === 'merge') return `orca decide ${id} ontop | resolved | stop [--message "…"] (the conflicts are under the step)`;
  if (plan.waiting_for === 'verification') return `orca decide ${id} replan | accept | stop [--message "…"] (what failed is under Verified)`;
  if (plan.waiting_for === 'budget') {
    const c = plan.snapshot.context as { dispatches?: unknown; dispatch_cap?: unknown };
    const used = [`${c.dispatches} of ${c.dispatch_cap} dispatches used`];
    if (plan.usage && plan.budget?.max_cost != null) used.push(`${formatCost(plan.usage.cost)} of ${formatCost(plan.budget.max_cost)}`);
    if (plan.usage && plan.budget?.max_tokens != null) used.push(`${formatTokens(totalTokens(plan.usage))} of ${formatTokens(plan.budget.max_tokens)} tokens`);
    return `${used.join(', ')}; orca decide ${id} continue | stop [--message "…"]`;
  }
  return `answer in OpenCode (orca_ask_planner with plan_id ${id})`;
}

/** What the step really changed (git): totals, each file, the undeclared ones flagged, and where the whole patch is. */
function changedLines(diff: StepDiff): string[] {
  return [
    `      changed: ${changeSummary(diff)}`,
    ...diffFileLines(diff).map((line) => `        ${line}`),
    ...(diff.where === 'shared' ? [`        (${SHARED_TREE_WORDS})`] : []),
    ...(diff.patch_path ? [`        patch: ${diff.patch_path}`] : []),
    ...(diff.landed ? [`      landed in your working tree at ${shortTime(diff.landed.at)}${diff.landed.patch_path && diff.landed.patch_path !== diff.patch_path ? ` as merged: ${diff.landed.patch_path}` : ''} (orca diff shows it)`] : []),
  ];
}

/** At the merge gate: each file whose change did not apply, its clashing regions (cut), and the step's worktree. */
function conflictLines(step: PlanFileStep, worktree: string | undefined): string[] {
  if (step.status !== 'awaiting_merge') return [];
  const conflicts = step.conflicts ?? [];
  return [
    `      did not apply to your working tree: ${conflicts.length ? `conflicts in ${conflicts.length} file(s)` : 'git named no conflicting file'}`,
    ...conflicts.flatMap((c) => [`        ${c.path}`, ...conflictHunks(c).flatMap((hunk) => hunk.split('\n').map((l) => `          ${l}`))]),
    ...(worktree ? [`      its worktree (take its changes from here by hand, then resolved): ${worktree}`] : []),
  ];
}

/** The step's worktree while it waits at the merge gate, from its actor in the snapshot. */
function worktreeOf(plan: PlanFile, stepId: string): string | undefined {
  const child = plan.snapshot.children[`step:${stepId}`] as { snapshot?: { context?: { workspace?: { root?: unknown } | null } } } | undefined;
  const root = child?.snapshot?.context?.workspace?.root;
  return typeof root === 'string' ? root : undefined;
}

function stepLines(step: PlanFileStep, took: number | undefined, worktree?: string): string[] {
  const facts = [
    `${step.status}, ${step.attempts} attempt(s)`,
    ...(step.review_round ? [`${step.review_round} review round(s)`] : []),
    ...(took ? [`took ${duration(took)}`] : []),
    ...(step.depends_on.length ? [`after ${step.depends_on.join(', ')}`] : []),
  ];
  const lines = [
    `  ${step.id}  [${step.agent}]  ${facts.join(', ')}`,
    `      ${step.description}`,
  ];
  if (step.files?.length) lines.push(`      files: ${step.files.join(', ')}`);
  if (step.success) lines.push(`      success: ${step.success}`);
  if (step.session_id) lines.push(`      session: ${step.session_id}`);
  if (step.usage && step.usage.turns > 0) {
    lines.push(`      usage: ${usageText(step.usage)} (${tokenClasses(step.usage)})`);
    for (const part of roleUsageParts(step.usage, step.usage_by_role)) lines.push(`        ${part}`);
  }
  for (const f of step.failures) {
    lines.push(`      failed attempt ${f.attempt}${f.kind ? ` (${FAILURE_KIND_WORDS[f.kind]})` : ''}: ${f.error}${f.guidance ? ` (guidance: ${f.guidance})` : ''}`);
  }
  if (step.breaker) lines.push(`      ${step.breaker}`);
  if (step.diff) lines.push(...changedLines(step.diff));
  lines.push(...conflictLines(step, worktree));
  if (step.output) {
    lines.push(`      summary: ${step.output.summary}`);
    if (step.output.artifacts.length) lines.push(`      artifacts: ${step.output.artifacts.join(', ')}`);
    for (const k of step.output.key_findings) lines.push(`      finding: ${k}`);
  }
  return lines;
}

/** What the plan's turns cost, and its money and token limits when it has them. */
function usageLines(plan: PlanFile): string[] {
  if (!plan.usage) return ['  usage    not recorded (written by a version without usage)'];
  const limits = [
    plan.budget?.max_cost != null ? `${formatCost(plan.budget.max_cost)}` : null,
    plan.budget?.max_tokens != null ? `${formatTokens(plan.budget.max_tokens)} tokens` : null,
  ].filter(Boolean);
  return [
    `  usage    ${usageText(plan.usage)}${limits.length ? ` (budget ${limits.join(', ')})` : ''}`,
    `           ${tokenClasses(plan.usage)}`,
  ];
}

function section(title: string, items: string[]): string[] {
  return items.length === 0 ? [] : ['', title, ...items.map((i) => `  - ${i}`)];
}
