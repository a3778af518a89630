import type { Turn } from './turn.js';
import type {
  FailingCheck,
  InterruptedTurn,
  MergeOutcome,
  PlanVerification,
  PlannerOutput,
  ReviewError,
  ReviewResult,
  SpecialistId,
  SpecialistResult,
  StepDiff,
  StepOutput,
  StepWorkspace,
  ThreadedContext,
} from './types.js';

/**
 * The side effects the machines invoke, as plain async functions. The OpenCode adapter provides
 * them in the plugin; tests provide fakes. Each gets the actor's AbortSignal (stopped actor =
 * aborted call) and, for steps, the idempotency key plan:step:attempt (with :review:N / :fix:N).
 * The ports that run model turns resolve with the result and what the turns cost (`Turn`); when
 * they fail after prompting, the error carries what was spent as `error.usage` (turn.ts).
 */
export interface PlanPorts {
  openPlannerSession(input: OpenPlannerSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  consultPlanner(input: ConsultPlannerInput, signal: AbortSignal): Promise<Turn<PlannerOutput>>;
  openSpecialistSession(input: OpenSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  /** `interrupted` when a restored turn left no result and `input.rerun` is false: the machine asks first. */
  runSpecialist(input: RunSpecialistInput, signal: AbortSignal): Promise<Turn<SpecialistResult | InterruptedTurn>>;
  /** The reviewer's verdict on a step's work (docs/design.md, "The quality gate"). */
  runReview(input: RunReviewInput, signal: AbortSignal): Promise<Turn<ReviewResult>>;
  /** The specialist fixes what the reviewer reported, in its own session. */
  runFix(input: RunFixInput, signal: AbortSignal): Promise<Turn<SpecialistResult | InterruptedTurn>>;
  /** Resolves once the session has been idle for input.idleMs, after aborting it; never otherwise. */
  watchIdle(input: WatchIdleInput, signal: AbortSignal): Promise<{ idleMs: number }>;
  /** Pre-step hooks reject with the failing hook's output; post-step hooks resolve with their failures. */
  runStepHooks(input: StepHooksInput, signal: AbortSignal): Promise<{ failures: string[] }>;
  /** The step's working tree: a worktree from the user's tree as it is now, or the project directory with its state then (idempotent per key). */
  openWorkspace(input: OpenWorkspaceInput, signal: AbortSignal): Promise<StepWorkspace>;
  /**
   * While the step opens its workspace: `true` when it waits for a worktree slot (every slot held), `false`
   * once it holds one; told at once when known, then at each change, until the returned function is called.
   */
  followSlot(input: FollowSlotInput, listener: (waiting: boolean) => void): () => void;
  /** What the step changed so far, by git; the patch written beside the plan file. */
  measureStep(input: MeasureStepInput, signal: AbortSignal): Promise<StepDiff>;
  /** The step's tree as it is now, kept by git (a commit): what measureStep later diffs when given it as `result`. */
  captureStep(input: CaptureStepInput, signal: AbortSignal): Promise<{ result: string }>;
  /** Lands a worktree step's changes in the user's tree as uncommitted changes, once (a second call finds them there); a clash resolves as `conflict`. */
  mergeStep(input: MergeStepInput, signal: AbortSignal): Promise<MergeOutcome>;
  /** Carries out the plan's verification in the user's project once every step has landed: the configured commands, then a turn for the plan's own list. */
  verifyPlan(input: VerifyPlanInput, signal: AbortSignal): Promise<Turn<PlanVerification>>;
}

/** The ports that talk to planner and specialist sessions (opencode/session-ports.ts). */
export type SessionPorts = Pick<PlanPorts, 'openPlannerSession' | 'consultPlanner' | 'openSpecialistSession' | 'runSpecialist'>;
/** A step's working tree: worktree, diff, merge (workspace/). */
export type WorkspacePorts = Pick<PlanPorts, 'openWorkspace' | 'followSlot' | 'measureStep' | 'captureStep' | 'mergeStep'>;
/** The plan's verification once every step landed (opencode/verify-port.ts). */
export type VerifyPorts = Pick<PlanPorts, 'verifyPlan'>;
/** The quality gate's ports: reviewer, fixer, idle watch, step hooks (opencode/quality-ports.ts). */
export type QualityPorts = Omit<PlanPorts, keyof SessionPorts | keyof WorkspacePorts | keyof VerifyPorts>;

/** The idempotency key of one dispatch: the same attempt is never two different side effects. */
export const idempotencyKey = (planId: string, stepId: string, attempt: number) => `${planId}:${stepId}:${attempt}`;

export interface VerifyPlanInput {
  /** `<planId>:verify:<n>`: the n-th verification of the plan. */
  idempotencyKey: string;
  planId: string;
  goal: string;
  /** The plan's own verification list (what the planner said to check). */
  verification: string[];
  /** Shell commands the configuration names (`verification.commands`), run in the project directory. */
  commands: string[];
  /** Whether a turn carries out the plan's list (`verification.turn`). */
  turn: boolean;
  /** What each step did, for the verifying turn: its summary and what it found (a few). */
  steps: Array<{ id: string; agent: SpecialistId; summary: string; key_findings?: string[] }>;
  /** The session the plan reports to: the verifying turn runs in a child session of it. */
  parentSessionId: string | null;
  /** The commit of the tree the plan started from (planBase): a failed command runs again there. Null: none recorded (no git). */
  base: string | null;
  /** The configured checks that failed before the plan began, for the verifying turn; absent when none is known. */
  failing_before?: FailingCheck[];
}

export interface OpenPlannerSessionInput {
  planId: string;
  callerSessionId: string | null;
}

export interface ConsultPlannerInput {
  planId: string;
  sessionId: string;
  message: string;
}

export interface OpenSessionInput {
  idempotencyKey: string;
  planId: string;
  stepId: string;
  agent: SpecialistId;
  attempt: number;
  parentSessionId: string | null;
  /** The step's working directory when it is not the project's (its worktree): the session is pinned there. */
  directory?: string;
}

export interface OpenWorkspaceInput {
  idempotencyKey: string;
  planId: string;
  stepId: string;
  attempt: number;
  kind: 'worktree' | 'shared';
}

/** The step whose wait for a worktree slot is followed (a slot is held per plan and step). */
export interface FollowSlotInput {
  planId: string;
  stepId: string;
}

export interface MeasureStepInput {
  planId: string;
  stepId: string;
  /** Each attempt's patch is kept: a later attempt never overwrites an earlier one's. */
  attempt: number;
  workspace: StepWorkspace;
  /** The files the step declared: a changed file outside them is flagged. */
  declared: string[];
  /** The step's tree as captured already (captureStep): only its diff from the base is made, the tree is not read again. */
  result?: string;
  /**
   * The session whose tool calls alone changed the step's tree since its start (its specialist's and
   * fixer's turns; hooks write only after it is measured): in the shared tree, a snapshot begun once
   * that session's last call had ended holds all the step did. Absent or null: a snapshot begun after this call.
   */
  sessionId?: string | null;
}

export type CaptureStepInput = Pick<MeasureStepInput, 'planId' | 'stepId' | 'attempt' | 'workspace' | 'sessionId'>;

export interface MergeStepInput extends MeasureStepInput {
  idempotencyKey: string;
  /** The step's changes as measured after its last turn, when nothing ran in its tree since: what lands is what was reviewed, measured once. */
  measured?: StepDiff;
}

export interface RunSpecialistInput {
  idempotencyKey: string;
  sessionId: string;
  agent: SpecialistId;
  thread: ThreadedContext;
  /** Run the turn again even if a restart finds it interrupted (no human needs asking); else report it interrupted. */
  rerun: boolean;
}

export interface RunReviewInput {
  idempotencyKey: string;
  sessionId: string;
  thread: ThreadedContext;
  /** What the specialist (or its last fix) reported. */
  work: StepOutput;
  /** What the step really changed (git), when it could be measured: the reviewer judges this, not the claim. */
  diff?: StepDiff | null;
  round: number;
  maxRounds: number;
}

export interface RunFixInput {
  idempotencyKey: string;
  sessionId: string;
  agent: SpecialistId;
  thread: ThreadedContext;
  errors: ReviewError[];
  round: number;
  rerun: boolean;
}

export interface WatchIdleInput {
  planId: string;
  stepId: string;
  sessionId: string;
  idleMs: number;
}

export interface StepHooksInput {
  phase: 'pre_step' | 'post_step';
  /** Where the hooks run: the step's worktree, or the project directory when absent. */
  cwd?: string;
  commands: string[];
  planId: string;
  stepId: string;
  agent: SpecialistId;
  attempt: number;
}

const never = () => new Promise<never>(() => {});
/** Ports whose calls never settle: a replay (or a test) delivers invoke outcomes itself, or none. */
export const idlePlanPorts: PlanPorts = {
  openPlannerSession: never,
  consultPlanner: never,
  openSpecialistSession: never,
  runSpecialist: never,
  runReview: never,
  runFix: never,
  watchIdle: never,
  runStepHooks: never,
  openWorkspace: never,
  followSlot: () => () => {},
  measureStep: never,
  captureStep: never,
  mergeStep: never,
  verifyPlan: never,
};
