/** Plain data shared by the plan and step machines. Everything here is JSON: it lives in snapshots. */

import type { z } from 'zod';
import type { Plan, PlanStep } from '../schemas/planner-output.js';
import type { ReviewErrorSchema, ReviewOutput } from '../schemas/review-output.js';
import { SPECIALIST_AGENTS } from '../schemas/specialist-agents.js';
import type { Usage, UsageByRole } from './usage.js';
import type { SpecialistOutput } from '../schemas/specialist-output.js';

export const SPECIALISTS = SPECIALIST_AGENTS;
export type SpecialistId = (typeof SPECIALISTS)[number];

/** The eight plan states, in lifecycle order: public names (docs/design.md, "Plan lifecycle"). */
export const PLAN_STATUSES = [
  'drafting',
  'pending_approval',
  'changes_requested',
  'approved',
  'in_progress',
  'completed',
  'failed',
  'rejected',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/**
 * The statuses a plan never leaves: the plan chart's final states (plan.machine.ts; a test holds the
 * two together). Nothing runs, resumes or waits on a plan in one.
 */
export const FINAL_PLAN_STATUSES = ['completed', 'failed', 'rejected'] as const satisfies readonly PlanStatus[];
const finalStatuses: ReadonlySet<string> = new Set(FINAL_PLAN_STATUSES);
/** Whether a plan in this status (a plan file's, a summary's) is over. */
export const isFinalPlanStatus = (status: string): boolean => finalStatuses.has(status);

/** The model output's shapes (src/schemas, zod) as the machines keep them: the same types, re-exported or named for their use here. */
export type { HitlQuestion } from '../schemas/hitl-question.js';
export type { PlannerOutput } from '../schemas/planner-output.js';
export type StepSpec = PlanStep;
export type PlanProposal = Omit<Plan, 'type'>;
export type SpecialistResult = SpecialistOutput;
export type ReviewResult = ReviewOutput;
/** The reviewer's error report, precise enough for a fixer to act on (docs/design.md, "The quality gate"). */
export type ReviewError = z.infer<typeof ReviewErrorSchema>;

export interface StepOutput {
  summary: string;
  artifacts: string[];
  key_findings: string[];
}

/**
 * What failed in an attempt, so a retry prompt can say it (and not blame the specialist for a hook):
 * - `pre_hook`: a pre-step hook failed; the specialist never ran.
 * - `session`: the specialist's session could not be opened; it never ran.
 * - `answer`: the specialist answered that it could not do the step (a failure output, or the tool-loop breaker stopped it).
 * - `turn`: the specialist's turn ended with no readable answer (invalid after the correction prompts, a provider error).
 * - `timeout`: the specialist was idle too long and its session was aborted.
 * - `review`: the reviewer still failed the work after the fixer rounds (or reported the same errors round after round).
 * - `reviewer`: the reviewer itself could not review (its session, its turn, or it was idle): not the work's fault.
 * - `fix`: the specialist's fix of the reviewer's errors failed (a failure output, no readable answer, or idle).
 * - `workspace`: the step's worktree could not be made; the specialist never ran.
 * - `merge`: the step's changes did not apply to the user's tree and a human chose to run it again on top of it.
 */
export const FAILURE_KINDS = ['pre_hook', 'session', 'answer', 'turn', 'timeout', 'review', 'reviewer', 'fix', 'workspace', 'merge'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** One failed attempt, with the guidance the human gave when choosing what to do next. */
export interface FailedAttempt {
  attempt: number;
  error: string;
  /** What failed; absent in failures recorded before Orca said it. */
  kind?: FailureKind;
  guidance?: string;
  /** The error with its incidental details (numbers, ids, paths' line numbers) removed: see errorSignature. */
  signature?: string;
  /** A `merge` failure: the files whose change did not apply, with the clashing regions. */
  conflicts?: MergeConflict[];
  /** A `merge` failure: the steps whose changes to those files landed in the user's tree after this step's tree was made. */
  landed?: string[];
}

export type StepStatus = 'pending' | 'running' | 'awaiting_decision' | 'awaiting_resume' | 'awaiting_merge' | 'completed' | 'stopped';

/**
 * Where a step works (docs/design.md, "Isolation and merge"): `worktree`, its own git worktree
 * started from the user's tree; `shared`, the project directory (git still tells its diff);
 * `none`, the project directory of a project git cannot follow (no diff).
 */
export type WorkspaceKind = 'worktree' | 'shared' | 'none';

/** A step's working tree, once made: recorded in its snapshot, so a restart finds it again. */
export interface StepWorkspace {
  kind: 'worktree' | 'shared';
  /** Where the step's sessions, hooks and reviewer work: the worktree's folder matching the project directory, or the project directory. */
  dir: string;
  /** The worktree's root (kind worktree): what is removed once the step is merged. */
  root?: string;
  /** The git commit holding the tree the step started from (the user's tree then, uncommitted changes included). */
  base: string;
}

/** One file a step changed, as git tells it. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** Renamed from. */
  from?: string;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

/** What a step really changed: measured by git, never taken from the specialist's own claim. */
export interface StepDiff {
  files: FileChange[];
  /** Changed files the step did not declare in `files` (none when it declared none). */
  undeclared: string[];
  /** The whole patch, beside the plan file; null when it could not be written. */
  patch_path: string | null;
  /** git commits: the tree the step started from, and the tree after its work. */
  base: string;
  result: string;
  /** `shared`: the project directory's changes while the step ran, which may include those of steps running beside it. */
  where: 'worktree' | 'shared';
  /**
   * What the step's changes did to the user's tree, and when (what `orca diff` prints and `orca undo`
   * takes back): a worktree step's patch as git applied it there (its own patch, or the three-way
   * merge's result, whose files are then said too); a shared-tree step's own patch (it changed the
   * tree itself). Absent before it landed, and in plans from before it was recorded.
   */
  landed?: LandedChange;
}

/** A step's changes as they landed in the user's tree (StepDiff.landed). */
export interface LandedChange {
  /** ISO time it landed. */
  at: string;
  /** The patch that landed, repository-relative, beside the plan file; null when it could not be written. */
  patch_path: string | null;
  /** The files as they landed, when they differ from the step's own diff (a three-way merge). */
  files?: FileChange[];
}

/** A file whose change did not apply to the user's tree, with the regions that clash (conflict markers, cut). */
export interface MergeConflict {
  path: string;
  hunks: string[];
}

/** What landing a step's changes in the user's tree did. */
export type MergeOutcome =
  | { type: 'merged'; diff: StepDiff }
  | { type: 'conflict'; diff: StepDiff | null; conflicts: MergeConflict[]; error?: string };

export interface StepRecord extends StepSpec {
  status: StepStatus;
  /** Dispatches made so far (1 after the first dispatch). */
  attempts: number;
  failures: FailedAttempt[];
  session_id?: string;
  output?: StepOutput;
  /** Why automatic retrying of this step stopped (same error signature several times in a row). */
  breaker?: string;
  /** The reviewer round in progress or last run (1-based), for reviewed steps. */
  review_round?: number;
  /** Post-step hook failures: recorded, never blocking. */
  warnings?: string[];
  /** What this step's turns cost (specialist, reviewer, fixer, corrections, its read-only asks); absent before its first turn. */
  usage?: Usage;
  /** The same usage split by whose turns they were; absent before its first turn, and partial in steps from before it was recorded. */
  usage_by_role?: UsageByRole;
  /** What the step really changed (git), once measured; absent without git and in plans from before it was measured. */
  diff?: StepDiff;
  /** While the step waits at the merge gate: the files whose change did not apply. */
  conflicts?: MergeConflict[];
  /**
   * Steps with no dependency either way that had completed (their changes in the user's tree) when
   * the tree of this step's latest attempt was made: at its start, or at Run again on top. Absent
   * when none, and in plans from before it was recorded.
   */
  on_top_of?: string[];
  /** Steps beside it that landed after its tree was made, before a Retry went on in that tree (not in its copy). */
  landed_since?: string[];
}

/** How a step runs: what the plan's options say, fixed when the step starts (so a restore behaves the same). */
export interface StepPolicy {
  /**
   * After a crash, a turn of this step that was in flight and left no result waits for a human
   * (the resume gate) before it runs again: the step changes files and was not marked idempotent.
   */
  ask_before_rerun: boolean;
  /** Whether a reviewer checks this step's work (its agent is one of review.agents). */
  review: boolean;
  review_rounds: number;
  /** The same error signature this many times in a row opens the breaker. */
  same_error_limit: number;
  /** A specialist idle this long is aborted and the attempt fails with TIMEOUT. */
  idle_ms: number;
  pre_hooks: string[];
  post_hooks: string[];
  /** Where the step works; absent (= `none`) in steps from before isolation. */
  workspace?: WorkspaceKind;
}

/** The plan-wide options, fixed when the plan is created. */
export interface PlanPolicy {
  review_agents: SpecialistId[];
  review_rounds: number;
  same_error_limit: number;
  idle_ms: number;
  pre_hooks: string[];
  post_hooks: string[];
  /** Dispatches per budget: the plan pauses for the human each time this many more have started. */
  max_dispatches: number;
  /** Money per budget (budget.max_cost), null for none; absent in plans from before it existed. */
  max_cost?: number | null;
  /** Tokens of every class per budget (budget.max_tokens), null for none; absent in plans from before it existed. */
  max_tokens?: number | null;
  /** Where file-changing steps work (`isolation`, resolved against the project when Orca starts); absent (= `none`) in older plans. */
  workspace?: WorkspaceKind;
  /** Shell commands run in the user's project once every step has landed (`verification.commands`); absent in older plans. */
  verify_commands?: string[];
  /** Whether a turn carries out the plan's own `verification` list there (`verification.turn`, default true; absent in plans from before it existed, which are not verified). */
  verify_turn?: boolean;
  /**
   * A check that failed on the plan's base too, the same way (`verification.old_failures`): `report`
   * (the default) says so and lets the plan complete; `gate` stops it at the verification gate as a new
   * failure would. Absent in older plans: `report`.
   */
  verify_old_failures?: 'report' | 'gate';
}

export const DEFAULT_PLAN_POLICY: PlanPolicy = {
  review_agents: ['coder'],
  review_rounds: 3,
  same_error_limit: 3,
  idle_ms: 600_000,
  pre_hooks: [],
  post_hooks: [],
  max_dispatches: 100,
  max_cost: null,
  max_tokens: null,
  verify_commands: [],
  verify_turn: true,
  verify_old_failures: 'report',
};

/** One check of a plan's verification: a configured command, or the verifying turn (the plan's own list). */
export interface VerificationCheck {
  kind: 'command' | 'turn';
  /** The command, or "the plan's verification list". */
  name: string;
  passed: boolean;
  /** What it said: a command's exit and output's tail, the turn's summary or error. */
  output: string;
  /**
   * A failed command run again on the plan's base (the tree the plan started from, in a slot): how
   * it did there. Absent when it passed, or when it could not run there (no git, no base recorded).
   */
  before?: { passed: boolean; output: string };
}

/**
 * The plan's verification, carried out in the user's project once every step has landed
 * (docs/design.md, "Isolation and merge"): each check, and what it changed there (it should change nothing).
 */
export interface PlanVerification {
  passed: boolean;
  /** Where it ran: the user's project directory (absent when it could not run at all). */
  where?: string;
  checks: VerificationCheck[];
  /** Files the verification changed in the user's tree (measured by git; empty without git). */
  changed: string[];
  /** When it finished (ISO; absent when it could not run at all). */
  at?: string;
  /** The commit of the plan's base its failed commands ran on again (absent when none did). */
  base?: string;
}

/**
 * A configured check (`verification.commands`) that failed on the project before the plan began, run
 * in a slot while the planner drafted: its command and the lines of its output that say what failed.
 * Every turn of the plan that runs checks is told, so none takes it for its own doing.
 */
export interface FailingCheck {
  command: string;
  lines: string[];
}

/** Where a human (or an explicit auto policy) answered a gate. */
export type DecisionChannel = 'question' | 'permission' | 'command' | 'cli' | 'auto' | 'tool';

export interface DecisionSource {
  channel: DecisionChannel;
  /** ISO time the decision was made (events carry it so the machines stay pure). */
  at: string;
}

export interface DecisionRecord extends DecisionSource {
  gate: 'approval' | 'deviation' | 'question' | 'budget' | 'resume' | 'merge' | 'verification';
  option: string;
  step_id?: string;
  text?: string;
}

/**
 * What a port reports instead of a result when a restored plan's turn had been in flight (a
 * crash, or Esc) and its session holds no valid result to reuse: running it again may repeat
 * changes it already made, so the step machine decides whether to ask a human first.
 */
export interface InterruptedTurn {
  type: 'interrupted';
  session_id: string;
  /** What reconciliation found, e.g. "its turn never finished". */
  detail: string;
  /** The session's last activity before the restart (ISO), when OpenCode tells it. */
  last_activity_at?: string;
}

/** A completed step that changed files after another step did, with that step's change already in its tree. */
export interface LaterChange {
  id: string;
  agent: SpecialistId;
  /** The files both changed. */
  files: string[];
}

/** What a specialist receives: the plan state, threaded. No transcripts. */
export interface ThreadedContext {
  plan_id: string;
  goal: string;
  step: StepSpec;
  /** `changed_after`: completed steps that changed some of the same files later, on top of its change (its result may be out of date there). */
  dependencies: Array<{ id: string; agent: SpecialistId; output: StepOutput; changed_after?: LaterChange[] }>;
  relevant_files: string[];
  previous_attempts: FailedAttempt[];
  /**
   * The steps that depend on this one, what they will do: so neither the specialist nor its
   * reviewer takes on (or asks for) their work. A few, descriptions cut; absent in snapshots from
   * before it was threaded.
   */
  later?: Array<{ id: string; agent: SpecialistId; description: string }>;
  /**
   * Steps neither before nor after this one (no dependency either way): they may run at the same
   * time, and in worktrees this step does not see their changes. A few, descriptions cut; absent in
   * snapshots from before it was threaded. `landed`: it had completed when this step's tree was
   * made, so its changes are in it; `landed_since`: it completed later, before a Retry (which goes
   * on in the same tree). `shares`: files both steps declare and both may change.
   */
  beside?: Array<{ id: string; agent: SpecialistId; description: string; landed?: true; landed_since?: true; shares?: string[] }>;
  /** Where the step works (its policy's workspace); absent in snapshots from before isolation. */
  workspace?: WorkspaceKind;
  /** The project's configured checks that failed before the plan began; absent when none did, or none was run. */
  failing_before?: FailingCheck[];
}

