import { specialistTurnPrompt } from '../prompts/step-prompt.js';
import { threadContext } from '../machines/threading.js';
import type { WorkspaceKind } from '../machines/types.js';
import type { PlanFile, PlanFileStep } from '../persistence/plan-file.js';
import type { GraphStep } from './graph-view.js';
import { FAILURE_KIND_WORDS } from '../text/failure-kind.js';
import type { FileChange, StepDiff } from '../machines/types.js';
import { changeSummary, conflictHunks, overlapText, SHARED_TREE_WORDS } from '../text/step-diff.js';
import { changedBefore } from '../machines/step-graph.js';
import { stepUsageByRoleOf, stepUsageOf, type RecordedUsage } from './usage.js';

/** One step as the page's detail panel shows it: what it produced, how it failed, and what fed its prompt. */
export interface StepView extends GraphStep {
  description: string;
  files: string[];
  success?: string;
  session_id?: string;
  /** `what`: what failed, in words (absent for failures recorded before Orca said it). */
  failures: Array<{ attempt: number; error: string; what?: string; guidance?: string }>;
  breaker?: string;
  warnings: string[];
  output?: { summary: string; artifacts: string[]; key_findings: string[] };
  usage?: RecordedUsage;
  /** What the step really changed (git), undeclared files flagged; absent without git. */
  changes?: ChangesView;
  /** When an undo took what it landed back out of the user's tree (no redo put it back since). */
  taken_back_at?: string;
  /** While the step waits at the merge gate: the files whose change did not apply, their clashing regions cut. */
  conflicts?: Array<{ path: string; hunks: string[] }>;
  /** The step's usage by whose turns they were: specialist, reviewer, fixer, ask (read-only asks). */
  usage_by_role?: Record<string, RecordedUsage>;
  /** What the specialist's prompt is made of, rendered as src/prompts/step-prompt.ts renders it from this file (specialistTurnPrompt). */
  fed_by: {
    /** The steps it depends on; `has_output` false until that step completed. */
    steps: Array<{ id: string; agent: string; has_output: boolean }>;
    /** Dependencies naming no step of the plan. */
    missing: string[];
    files: string[];
    /** The prompt of its latest attempt, or of the next one when it failed (it carries the failed attempts). */
    prompt_chars: number;
    prompt_bytes: number;
  };
}

/** A step's diff as the page shows it: each file with its counts, the undeclared ones flagged. */
export interface ChangesView {
  /** "3 files +12 −4, 1 not declared". */
  summary: string;
  files: Array<{ path: string; status: FileChange['status']; from?: string; added: number | null; removed: number | null; undeclared: boolean }>;
  /** Set when measured in the shared project directory (SHARED_TREE_WORDS). */
  note?: string;
  /** Set when it changed files on top of other steps' changes, so their counts overlap (overlapText). */
  overlap?: string;
  patch_path: string | null;
}

function changesOf(diff: StepDiff, overlap: string | null): ChangesView {
  const undeclared = new Set(diff.undeclared);
  return {
    summary: changeSummary(diff),
    files: diff.files.map((f) => ({ ...f, undeclared: undeclared.has(f.path) })),
    ...(diff.where === 'shared' ? { note: SHARED_TREE_WORDS } : {}),
    ...(overlap ? { overlap } : {}),
    patch_path: diff.patch_path,
  };
}

export function stepView(file: PlanFile, raw: Record<string, unknown>, step: PlanFileStep): StepView {
  const policy = (file.snapshot.context as { policy?: { workspace?: WorkspaceKind } }).policy;
  const thread = threadContext({ ...file, workspace: policy?.workspace }, step.id);
  // A failed step waiting for a decision shows the prompt of its next attempt (it carries the failures).
  const attempt = step.status === 'awaiting_decision' ? step.attempts + 1 : Math.max(1, step.attempts);
  // As the turn runner sends it with the default text protocol (an agent configured for structured
  // output gets a protocol section a few characters different).
  const prompt = specialistTurnPrompt(thread, attempt);
  const usage = stepUsageOf(raw, step.id);
  const usageByRole = stepUsageByRoleOf(raw, step.id);
  const review = reviewOf(file, step);
  const phase = phaseOf(file, step);
  return {
    id: step.id,
    agent: step.agent,
    status: step.status,
    depends_on: step.depends_on,
    attempts: step.attempts,
    ...(review ? { review } : {}),
    ...(phase ? { phase } : {}),
    description: step.description,
    files: step.files ?? [],
    ...(step.success ? { success: step.success } : {}),
    ...(step.session_id ? { session_id: step.session_id } : {}),
    failures: step.failures.map(({ attempt, error, kind, guidance }) => ({
      attempt,
      error,
      ...(kind ? { what: FAILURE_KIND_WORDS[kind] } : {}),
      ...(guidance ? { guidance } : {}),
    })),
    ...(step.breaker ? { breaker: step.breaker } : {}),
    warnings: step.warnings ?? [],
    ...(step.output ? { output: step.output } : {}),
    ...(usage ? { usage } : {}),
    ...(step.diff ? { changes: changesOf(step.diff, overlapText(changedBefore(file.steps, step.id))) } : {}),
    ...(step.status === 'awaiting_merge' && step.conflicts ? { conflicts: step.conflicts.map((c) => ({ path: c.path, hunks: conflictHunks(c) })) } : {}),
    ...(usageByRole ? { usage_by_role: usageByRole } : {}),
    fed_by: {
      steps: step.depends_on.flatMap((id) => {
        const dep = file.steps.find((s) => s.id === id);
        return dep ? [{ id, agent: dep.agent, has_output: dep.output !== undefined }] : [];
      }),
      missing: step.depends_on.filter((id) => !file.steps.some((s) => s.id === id)),
      files: thread.relevant_files,
      prompt_chars: prompt.length,
      prompt_bytes: Buffer.byteLength(prompt, 'utf8'),
    },
  };
}

/** "review 2/3" once a reviewer has run on the step; the round limit is the plan's policy. */
function reviewOf(file: PlanFile, step: PlanFileStep): string | undefined {
  if (step.review_round === undefined) return undefined;
  const policy = (file.snapshot.context as { policy?: { review_rounds?: unknown } }).policy;
  const max = typeof policy?.review_rounds === 'number' ? `/${policy.review_rounds}` : '';
  return `review ${step.review_round}${max}`;
}

/** The state of the step's own actor in the snapshot, while it has one: "running", "review.fixing", … */
function phaseOf(file: PlanFile, step: PlanFileStep): string | undefined {
  if (step.status !== 'running') return undefined;
  const child = file.snapshot.children[`step:${step.id}`] as { snapshot?: { value?: unknown } } | undefined;
  const value = child?.snapshot?.value;
  return value === undefined ? undefined : statePath(value);
}

function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key !== undefined) return `${key}.${statePath(inner)}`;
  }
  return String(value);
}
