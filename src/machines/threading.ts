import { dispatchesLeft, type BudgetContext } from './budget.js';
import { changedAfter, landedBeside, stepsBeside } from './step-graph.js';
import { isActive } from './step-records.js';
import type { StepInput } from './step.machine.js';
import type { FailingCheck, PlanPolicy, PlanProposal, SpecialistId, StepPolicy, StepRecord, ThreadedContext, WorkspaceKind } from './types.js';

/** Pure functions over the plan's step records: readiness for the scheduler, what a step starts with. */

const isDone = (s: StepRecord) => s.status === 'completed';

/** Specialists that change files (their roles have edit tools; a test checks this against the role table). */
export const WRITING_AGENTS: readonly SpecialistId[] = ['coder', 'tester', 'document-writer'];
const writes = (s: StepRecord) => WRITING_AGENTS.includes(s.agent);

/**
 * Whether two steps may not run at the same time. In worktrees nothing clashes: each step changes
 * its own tree, and a clash of changes shows when they land (the merge gate). In one shared tree,
 * two file-changing steps clash when their declared `files` (what each changes) overlap,
 * or when either declared none (it may touch anything). A step that changes no file clashes with
 * nothing: reading a file while another step writes it costs less than waiting for it.
 */
export function conflicts(a: StepRecord, b: StepRecord, workspace: WorkspaceKind = 'none'): boolean {
  if (workspace === 'worktree' || !writes(a) || !writes(b)) return false;
  if (a.files?.length && b.files?.length) return a.files.some((f) => b.files!.includes(f));
  return true;
}

/**
 * Steps to start now: pending, every dependency completed, no conflict (see `conflicts`) with a
 * step that is active or chosen in this pass, and no more than `concurrency` active in total.
 */
export function readySteps(steps: StepRecord[], concurrency: number, workspace: WorkspaceKind = 'none'): StepRecord[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const busy = steps.filter(isActive);
  const chosen: StepRecord[] = [];
  for (const step of steps) {
    if (busy.length + chosen.length >= concurrency) break;
    if (step.status !== 'pending') continue;
    const depsDone = (step.depends_on ?? []).every((d) => {
      const dep = byId.get(d);
      return dep !== undefined && isDone(dep);
    });
    if (!depsDone) continue;
    if ([...busy, ...chosen].some((other) => conflicts(step, other, workspace))) continue;
    chosen.push(step);
  }
  return chosen;
}

export const allStepsCompleted = (steps: StepRecord[]) => steps.length > 0 && steps.every(isDone);

/** Steps to start now: ready ones, no more than the budget lets start (none once money or tokens are spent). */
export const startableSteps = (c: BudgetContext & { steps: StepRecord[]; concurrency: number; policy: Pick<PlanPolicy, 'workspace'> }) =>
  readySteps(c.steps, c.concurrency, c.policy.workspace).slice(0, dispatchesLeft(c));

/**
 * How many worktrees a plan not yet running will want at once (its slots can be made ready while the
 * planner thinks or the human reads): the file-changing steps that would start first, within the
 * plan's concurrency; one while there is no plan yet to look at. None without worktrees.
 */
export function worktreesWanted(c: { steps: StepRecord[]; concurrency: number; policy: PlanPolicy }): number {
  if (c.policy.workspace !== 'worktree') return 0;
  if (c.steps.length === 0) return 1;
  return readySteps(c.steps, c.concurrency, 'worktree').filter((s) => stepPolicy(c.policy, s).workspace === 'worktree').length;
}

/** The part of the plan's context a starting step reads. */
export interface PlanForStep {
  plan_id: string;
  request: string;
  goal: string | null;
  proposal: Pick<PlanProposal, 'relevant_files'> | null;
  steps: StepRecord[];
  max_attempts: number;
  caller_session_id: string | null;
  policy: PlanPolicy;
  failing_before?: FailingCheck[];
}

/** What a step's machine starts with: its threaded context, the attempt limit, its caller's session, its policy. */
export function stepInput(plan: PlanForStep, step: StepRecord): StepInput {
  const thread = threadContext(
    { plan_id: plan.plan_id, goal: plan.goal ?? plan.request, relevant_files: plan.proposal?.relevant_files ?? [], steps: plan.steps, workspace: plan.policy.workspace },
    step.id,
  );
  const policy = stepPolicy(plan.policy, step);
  return {
    planId: plan.plan_id,
    thread: plan.failing_before?.length ? { ...thread, failing_before: plan.failing_before } : thread,
    maxAttempts: plan.max_attempts,
    parentSessionId: plan.caller_session_id,
    policy,
  };
}

/** How one step runs under the plan's policy. */
export const stepPolicy = (policy: PlanPolicy, step: StepRecord): StepPolicy => ({
  ask_before_rerun: WRITING_AGENTS.includes(step.agent) && step.idempotent !== true,
  review: policy.review_agents.includes(step.agent),
  review_rounds: policy.review_rounds,
  same_error_limit: policy.same_error_limit,
  idle_ms: policy.idle_ms,
  pre_hooks: policy.pre_hooks,
  post_hooks: policy.post_hooks,
  // Only a step that changes files needs a tree of its own; the others read the user's tree.
  workspace: WRITING_AGENTS.includes(step.agent) ? (policy.workspace ?? 'none') : 'none',
});

/**
 * What a specialist gets for one step (docs/design.md, "Context threading"): the plan reference and
 * goal, the step, the outputs of the steps it depends on, the relevant files (the plan's, the
 * step's own and its dependencies' artifacts) and its own failed attempts. Never transcripts, and
 * nothing from steps it does not depend on, so the prompt stays flat as plans grow.
 */
export function threadContext(
  plan: { plan_id: string; goal: string; relevant_files: string[]; steps: StepRecord[]; workspace?: WorkspaceKind | undefined },
  stepId: string,
): ThreadedContext {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step) throw new Error(`Unknown step "${stepId}" in plan ${plan.plan_id}.`);
  const dependencies = (step.depends_on ?? []).flatMap((id) => {
    const dep = plan.steps.find((s) => s.id === id);
    if (!dep?.output) return [];
    const later = changedAfter(plan.steps, dep.id).filter((c) => c.id !== step.id);
    return [{ id: dep.id, agent: dep.agent, output: dep.output, ...(later.length ? { changed_after: later } : {}) }];
  });
  const files = new Set<string>([
    ...plan.relevant_files,
    ...(step.files ?? []),
    ...dependencies.flatMap((d) => d.output.artifacts),
  ]);
  return {
    plan_id: plan.plan_id,
    goal: plan.goal,
    step: {
      id: step.id,
      agent: step.agent,
      description: step.description,
      depends_on: step.depends_on ?? [],
      ...(step.files ? { files: step.files } : {}),
      ...(step.success ? { success: step.success } : {}),
    },
    dependencies,
    relevant_files: [...files],
    previous_attempts: step.failures,
    later: plan.steps
      .filter((s) => s.depends_on?.includes(step.id))
      .slice(0, MAX_LATER)
      .map((s) => ({ id: s.id, agent: s.agent, description: cut(s.description, LATER_DESCRIPTION) })),
    ...besideOf(plan.steps, step),
    // Where it works, as its policy says (stepPolicy): only a file-changing step has a tree of its own.
    ...(writes(step) && (plan.workspace === 'worktree' || plan.workspace === 'shared') ? { workspace: plan.workspace } : {}),
  };
}

/**
 * Steps with no dependency path to or from `step`: they may run before, beside or after it. Whatever
 * their status, so the prompt reads the same from the plan file later (the viewer renders it): one
 * is `landed` when it is in the step's `on_top_of` (recorded when its tree was made), or before the
 * step starts, when it has completed. Those that change files this step declares too come first.
 */
function besideOf(steps: StepRecord[], step: StepRecord): { beside?: ThreadedContext['beside'] } {
  const landed = new Set(step.on_top_of ?? (step.status === 'pending' ? landedBeside(steps, step) : []));
  const since = new Set(step.landed_since ?? []);
  const mine = writes(step) ? (step.files ?? []) : [];
  const entries = stepsBeside(steps, step).map((s) => {
    const shares = writes(s) ? mine.filter((f) => s.files?.includes(f)) : [];
    return {
      id: s.id,
      agent: s.agent,
      description: cut(s.description, LATER_DESCRIPTION),
      ...(landed.has(s.id) ? { landed: true as const } : {}),
      ...(!landed.has(s.id) && since.has(s.id) ? { landed_since: true as const } : {}),
      ...(shares.length ? { shares } : {}),
    };
  });
  const beside = [...entries.filter((s) => s.shares), ...entries.filter((s) => !s.shares)].slice(0, MAX_LATER);
  return beside.length > 0 ? { beside } : {};
}

/** Bounds on what a step is told of the steps after it, so its prompt stays flat as plans grow. */
const MAX_LATER = 5;
const LATER_DESCRIPTION = 200;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
