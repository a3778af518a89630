import { z } from 'zod';
import { FAILURE_KINDS, PLAN_STATUSES, SPECIALISTS, type StepDiff } from '../machines/types.js';
import { TURN_ROLES, type Usage } from '../machines/usage.js';

/**
 * The public plan file format, `.opencode/plans/{plan_id}.json`. The plain fields are for people
 * and tools; `snapshot` is the XState persisted snapshot the plugin restores from.
 */

export const SCHEMA_VERSION = 1;

const stepOutput = z.object({
  summary: z.string(),
  artifacts: z.array(z.string()),
  key_findings: z.array(z.string()),
});

const proposalStep = z.object({
  id: z.string(),
  agent: z.enum(SPECIALISTS),
  description: z.string(),
  depends_on: z.array(z.string()).optional(),
  files: z.array(z.string()).optional(),
  success: z.string().optional(),
  idempotent: z.boolean().optional(),
});

/** A version of the plan as the planner proposed it. */
const proposal = z.object({
  goal: z.string(),
  steps: z.array(proposalStep),
  assumptions: z.array(z.string()),
  risks: z.array(z.string()),
  verification: z.array(z.string()),
  relevant_files: z.array(z.string()).optional(),
});

/**
 * What turns cost, as OpenCode reported it: `{turns, model_calls, input, output, reasoning,
 * cache_read, cache_write, cost}`. `turns` counts Orca's prompts, `model_calls` the model requests
 * they made (a turn with tool calls makes several); `model_calls` is absent in usage recorded
 * before it was counted: unknown, not zero.
 */
const count = z.number().finite().min(0);
export const usageRecord = z.object({
  turns: count,
  model_calls: count.optional(),
  input: count,
  output: count,
  reasoning: count,
  cache_read: count,
  cache_write: count,
  cost: count,
}) satisfies z.ZodType<Usage>;

const fileChange = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  from: z.string().optional(),
  added: z.number().int().min(0).nullable(),
  removed: z.number().int().min(0).nullable(),
});

/** What a step changed, measured by git (machines/types.ts StepDiff). */
const stepDiff = z.object({
  files: z.array(fileChange),
  undeclared: z.array(z.string()),
  patch_path: z.string().nullable(),
  base: z.string(),
  result: z.string(),
  where: z.enum(['worktree', 'shared']),
  /** What landed in the user's tree, and when (absent before it landed and in older files): the patch `orca diff` prints and `orca undo` takes back. */
  landed: z.object({ at: z.string(), patch_path: z.string().nullable(), files: z.array(fileChange).optional() }).optional(),
}) satisfies z.ZodType<StepDiff>;

export const planFileStep = z.object({
  id: z.string(),
  agent: z.enum(SPECIALISTS),
  description: z.string(),
  depends_on: z.array(z.string()),
  files: z.array(z.string()).optional(),
  success: z.string().optional(),
  idempotent: z.boolean().optional(),
  status: z.enum(['pending', 'running', 'awaiting_decision', 'awaiting_resume', 'awaiting_merge', 'completed', 'stopped']),
  attempts: z.number().int().min(0),
  failures: z.array(
    z.object({
      attempt: z.number().int(),
      error: z.string(),
      /** What failed (machines/types.ts FailureKind); absent in failures recorded before it was said. */
      kind: z.enum(FAILURE_KINDS).optional(),
      guidance: z.string().optional(),
      signature: z.string().optional(),
      /** A `merge` failure: the files whose change did not apply, with the clashing regions. */
      conflicts: z.array(z.object({ path: z.string(), hunks: z.array(z.string()) })).optional(),
      /** A `merge` failure: the steps whose changes to those files landed first. */
      landed: z.array(z.string()).optional(),
    }),
  ),
  session_id: z.string().optional(),
  output: stepOutput.optional(),
  breaker: z.string().optional(),
  review_round: z.number().int().optional(),
  warnings: z.array(z.string()).optional(),
  /** What the step's turns cost (absent in files written before usage was recorded). */
  usage: usageRecord.optional(),
  /**
   * The same usage split by whose turns they were: the specialist's, the reviewer's, the fixer's,
   * read-only asks from the step's session. Absent in older files; partial in steps that had turns
   * before it was recorded (the rest of `usage` is then not attributed).
   */
  usage_by_role: z.partialRecord(z.enum(TURN_ROLES), usageRecord).optional(),
  /** What the step really changed, by git (absent without git and in older files); the whole patch is at `patch_path`. */
  diff: stepDiff.optional(),
  /** While the step waits at the merge gate: the files whose change did not apply, with the clashing regions. */
  conflicts: z.array(z.object({ path: z.string(), hunks: z.array(z.string()) })).optional(),
  /** Steps with no dependency either way whose changes were in the tree of its latest attempt when it was made. */
  on_top_of: z.array(z.string()).optional(),
  /** Steps beside it that landed in the user's tree after its tree was made, before a Retry went on in that tree: not in its copy. */
  landed_since: z.array(z.string()).optional(),
});

const GATES = ['approval', 'deviation', 'question', 'budget', 'resume', 'merge', 'verification'] as const;

/** One undo or redo of a plan's landed changes (what the plan file's `undos` hold). */
const undoRecord = z.object({
  kind: z.enum(['undo', 'redo']),
  at: z.string(),
  /** The steps whose changes it took back (undo) or put back (redo). */
  steps: z.array(z.string()),
  channel: z.enum(['cli', 'command', 'viewer']),
  /** The files it changed in the user's tree, project-relative, with +/- counts. */
  files: z.array(fileChange),
  /** The patch it applied to the user's tree (what a redo applies in reverse). */
  patch_path: z.string(),
});

const decision = z.object({
  gate: z.enum(GATES),
  option: z.string(),
  channel: z.enum(['question', 'permission', 'command', 'cli', 'auto', 'tool']),
  at: z.string(),
  step_id: z.string().optional(),
  text: z.string().optional(),
});

export const persistedSnapshot = z.looseObject({
  status: z.enum(['active', 'done', 'error', 'stopped']),
  value: z.unknown(),
  context: z.looseObject({ plan_id: z.string() }),
  children: z.record(z.string(), z.unknown()),
});

export const planFile = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  machine_version: z.number().int().positive(),
  plan_id: z.string(),
  goal: z.string(),
  status: z.enum(PLAN_STATUSES),
  /** Where in the chart the plan is, e.g. "drafting.awaiting_answers" or "in_progress". */
  state: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  steps: z.array(planFileStep),
  assumptions: z.array(z.string()),
  risks: z.array(z.string()),
  verification: z.array(z.string()),
  relevant_files: z.array(z.string()),
  decisions: z.array(decision),
  /** The human decision the plan waits for, if any (approval, a planner question, a failed step, the budget gate, an interrupted step). */
  waiting_for: z.enum(GATES).nullable(),
  /** Earlier versions of the plan, oldest first: the last is the version the human saw before this one. */
  revisions: z.array(proposal).default([]),
  /** The agenda item (and which of its firings) that started the plan; absent when a person started it. */
  agenda_item: z.object({ agenda_id: z.string(), firing: z.number().int().min(1) }).optional(),
  /**
   * The plan's last verification, carried out in the user's project once every step landed: each
   * check (a configured command, or the turn for the `verification` list) with what it said, where it
   * ran, and the files it changed there. Absent until one ran.
   */
  verification_result: z
    .object({
      passed: z.boolean(),
      where: z.string().optional(),
      checks: z.array(
        z.object({
          kind: z.enum(['command', 'turn']),
          name: z.string(),
          passed: z.boolean(),
          output: z.string(),
          /** A failed command run again on the plan's base: how it did there (failed the same way: failing before the plan too). */
          before: z.object({ passed: z.boolean(), output: z.string() }).optional(),
        }),
      ),
      changed: z.array(z.string()),
      at: z.string().optional(),
      /** The commit of the plan's base its failed commands ran on again. */
      base: z.string().optional(),
    })
    .optional(),
  /** What every turn of the plan cost: planner, steps, read-only asks (absent in files written before usage was recorded). */
  usage: usageRecord.optional(),
  /**
   * The budget now: dispatches used and their cap, and the money and token limits (null: none).
   * Each Continue at the budget gate raises the limits that were reached. Absent in older files.
   */
  budget: z
    .object({
      dispatches: z.number().int().min(0),
      dispatch_cap: z.number().int().min(0),
      max_cost: z.number().min(0).nullable(),
      max_tokens: z.number().min(0).nullable(),
    })
    .optional(),
  /**
   * What `orca undo` (and `/orca-undo`, the viewer) took back out of the user's tree, and what a redo
   * put back, oldest first: when, which steps, through which channel, the files, and the patch it
   * applied (beside the plan file). Absent until the first. Written by the undo under the plan's
   * lease once the plan has ended, never by its chart: a plan restored from this file keeps them.
   */
  undos: z.array(undoRecord).optional(),
  snapshot: persistedSnapshot,
});

export type PlanFile = z.infer<typeof planFile>;
export type UndoRecord = z.infer<typeof undoRecord>;
/** A plan file's plain fields: what observers of a running plan read (the snapshot is only made for a write). */
export type PlanFields = Omit<PlanFile, 'snapshot'>;
export type PlanFileStep = z.infer<typeof planFileStep>;

/**
 * A zod error as "a: message; b.c: message", short enough for one log line or a refusal a person
 * reads. The model is told its mistakes by protocol/format-issues.ts formatIssues instead.
 */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}
