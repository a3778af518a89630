import { posix, win32 } from 'node:path';
import { z } from 'zod';
import { describeIssues } from '../persistence/plan-file.js';
import type { RetentionRules } from '../persistence/retention.js';
import { inspectOption } from './inspect-settings.js';
import { uiOption } from './ui-settings.js';
import { AGENT_IDS } from '../agents/roles.js';
import { SPECIALISTS } from '../machines/types.js';
import { OUTPUT_PROTOCOLS, type OutputProtocol } from '../protocol/output-protocol.js';
import { OrcaError } from '../errors.js';

/**
 * Plugin options, from opencode.json: `"plugin": [["opencode-orca-statecharts", { ... }]]`.
 * Everything is optional; HITL auto decisions are off unless configured here.
 */
/** Per-agent settings (orca, planner, the specialists); the role's permissions are always enforced on top. */
const agentSettings = z.strictObject({
  model: z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"').optional(),
  temperature: z.number().min(0).max(2).optional(),
  prompt: z.string().min(1).optional(),
  disable: z.boolean().optional(),
  /**
   * How the agent's turns return their JSON answer: "text" (default: the reply ends with one JSON
   * object) or "structured" (OpenCode's structured output; such sessions cannot be listed in
   * OpenCode 1.18: https://github.com/anomalyco/opencode/issues/26929; a model that refuses it
   * falls back to text).
   */
  output: z.enum(OUTPUT_PROTOCOLS).optional(),
});

export const DEFAULT_REVIEW_AGENTS = ['coder'] as const;
export const DEFAULT_REVIEW_ROUNDS = 3;
export const DEFAULT_SAME_ERROR_LIMIT = 3;
export const DEFAULT_MAX_DISPATCHES = 100;
export const DEFAULT_TOOL_REDIRECT_AT = 3;
export const DEFAULT_TOOL_ABORT_AT = 4;
export const DEFAULT_STEP_IDLE_SECONDS = 600;
export const DEFAULT_HOOK_SECONDS = 30;
/** A configured verification command is killed after this long (`verification.timeout_seconds`): a test suite. */
export const DEFAULT_VERIFY_SECONDS = 600;
export const DEFAULT_SETUP_SECONDS = 300;

/** Where file-changing steps run: each in its own git worktree, or all in the project directory. */
export const ISOLATION_MODES = ['worktree', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** A path of `isolation.include`: inside the project, relative to it, and not git's own folder. */
const projectPath = z.string().superRefine((path, ctx) => {
  const problem = projectPathProblem(path);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

function projectPathProblem(path: string): string | null {
  if (path.trim() === '') return 'expected a path relative to the project, e.g. ".env" or "node_modules"';
  if (posix.isAbsolute(path) || win32.isAbsolute(path)) return 'expected a path relative to the project, not an absolute one';
  if (path.split(/[\\/]+/).includes('..')) return 'expected a path inside the project, without ".."';
  const normalized = normalizeProjectPath(path);
  if (normalized === '.' || normalized === '') return 'expected a file or folder of the project, not the project itself';
  if (normalized.split('/')[0] === '.git') return 'expected a path git does not manage, not .git';
  return null;
}

/** `./a//b/` → `a/b`: the form a worktree's include list is compared and used in. */
function normalizeProjectPath(path: string): string {
  return posix.normalize(path.replaceAll('\\', '/')).replace(/\/+$/, '').replace(/^\.\//, '');
}

const limit = (max: number) => z.number().int().min(1).max(max).optional();

export const orcaOptions = z.strictObject({
  agents: z
    .partialRecord(z.enum(AGENT_IDS), agentSettings)
    .refine((agents) => agents.orca?.output === undefined, {
      message: 'expected no `output` for orca: its turns are started by OpenCode, not by Orca (`output` applies to planner and the specialists)',
      path: ['orca', 'output'],
    })
    .optional(),
  concurrency: z.number().int().min(1).max(16).optional(),
  max_attempts: z.number().int().min(1).max(100).optional(),
  /**
   * The quality gate (docs/design.md, "The quality gate"): a reviewer checks the work of
   * code-writing steps; FAIL goes to a fixer pass.
   */
  review: z
    .strictObject({
      enabled: z.boolean().optional(),
      /** Specialists whose steps are reviewed (default ["coder"]). */
      agents: z.array(z.enum(SPECIALISTS)).optional(),
      /** Reviewer rounds before the step fails into the deviation gate (default 3). */
      max_rounds: z.number().int().min(1).max(10).optional(),
    })
    .optional(),
  /** Circuit breakers: each stops a loop and hands the plan to a human (docs/design.md, "Breakers and limits"). */
  breakers: z
    .strictObject({
      /** The same error signature this many times in a row on one step stops automatic retrying (default 3). */
      same_error: z.number().int().min(2).max(20).optional(),
      /** Dispatches (specialist, reviewer and fixer turns) a plan may make before it pauses for the human (default 100). */
      max_dispatches: z.number().int().min(1).max(10000).optional(),
      /** Identical tool failures in one specialist session: a redirect message at `redirect_at`, abort at `abort_at` (defaults 3 and 4). */
      tool_failures: z
        .strictObject({
          redirect_at: z.number().int().min(1).max(50).optional(),
          abort_at: z.number().int().min(2).max(50).optional(),
        })
        .refine((t) => (t.redirect_at ?? DEFAULT_TOOL_REDIRECT_AT) < (t.abort_at ?? DEFAULT_TOOL_ABORT_AT), {
          message: 'expected redirect_at below abort_at (the redirect comes before the abort; defaults 3 and 4)',
        })
        .optional(),
    })
    .optional(),
  /**
   * What a plan may spend before it pauses at the budget gate (Continue / Stop), like the dispatch
   * cap: money in the currency of the models' configured prices, and tokens of every class (input,
   * output, reasoning, cache reads and writes). Continue raises the limit that was reached by as
   * much again. No limit unless set.
   */
  budget: z
    .strictObject({
      max_cost: z.number().positive().max(1_000_000).optional(),
      max_tokens: z.number().int().positive().max(1e12).optional(),
    })
    .optional(),
  timeouts: z
    .strictObject({
      /** A specialist idle this long is aborted and its step fails with TIMEOUT (default 600). */
      step_idle_seconds: z.number().int().min(1).max(86400).optional(),
      /** Each pre/post step hook is killed after this long (default 30). */
      hook_seconds: z.number().int().min(1).max(3600).optional(),
    })
    .optional(),
  /**
   * Once every step of a plan has landed, its verification is carried out in the project before the
   * plan says completed (docs/design.md, "Isolation and merge"): these commands (run with `sh -c` in
   * the project directory, each within `timeout_seconds`, default 600), then, unless `turn` is false,
   * a turn of the tester that carries out the plan's own `verification` list there. A failure waits at
   * the verification gate (Replan / Accept as is / Stop). A command that fails runs again on the
   * plan's base (the tree the plan started from, in a worktree slot): one that failed there the same
   * way is an old failure, reported as "failing before the plan too"; `old_failures: "gate"` stops the
   * plan at the gate for those too (default `"report"`: they do not).
   */
  verification: z
    .strictObject({
      commands: z.array(z.string().min(1)).optional(),
      turn: z.boolean().optional(),
      timeout_seconds: z.number().int().min(1).max(86400).optional(),
      old_failures: z.enum(['report', 'gate']).optional(),
    })
    .optional(),
  /** Shell commands run before and after each step with ORCA_PLAN_ID, ORCA_STEP_ID, ORCA_AGENT, ORCA_ATTEMPT set. */
  hooks: z
    .strictObject({
      /** A failing pre-step hook blocks the step; its output is the step's error. */
      pre_step: z.array(z.string().min(1)).optional(),
      /** Post-step hooks never block: a failure is logged and recorded on the step. */
      post_step: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /**
   * Where each file-changing step runs (docs/design.md, "Isolation and merge"): in its own git
   * worktree, its changes brought back to the user's working tree once it completes.
   */
  isolation: z
    .strictObject({
      /** "worktree" (default): a worktree per file-changing step where git can make one, else the project directory; "none": every step in the project directory. */
      mode: z.enum(ISOLATION_MODES).optional(),
      /** Project-relative paths git does not carry that a worktree needs (".env", "node_modules"): a file is copied, a folder linked. */
      include: z.array(projectPath).optional(),
      /** A shell command run in each new worktree before its step starts (e.g. "npm ci"). */
      setup: z.string().trim().min(1, 'expected a shell command, e.g. "npm ci"').optional(),
      /** The setup command is killed after this long, and the step fails (default 300). */
      setup_seconds: z.number().int().min(1).max(3600).optional(),
    })
    .optional(),
  /** The agenda: plans and actions in time and on events. The rails' defaults: docs/design.md, "Safety rails". */
  agenda: z
    .strictObject({
      /**
       * The planner has the agenda's tool (`agenda`: create, list, cancel, emit, events, pause).
       * Default true; false: no agent has it, the planner says scheduling is off; items that exist
       * still fire, and /agenda commands and the CLI still work.
       */
      tools: z.boolean().optional(),
      /** How often the scheduler looks for due items, in seconds (default 5). */
      poll_seconds: z.number().int().min(1).max(3600).optional(),
      /** Pending items in the project (default 30). */
      max_pending_project: limit(1000),
      /** Pending items of one session (default 10). */
      max_pending_per_session: limit(1000),
      /** Two pending time items at least this far apart; a cron item may not fire more often (default 60). */
      min_interval_seconds: z.number().int().min(0).max(86_400).optional(),
      /** Pending event items listening to one kind (default 5). */
      max_pending_per_event_kind: limit(1000),
      /** Bus events one session may emit in any hour (default 30). */
      max_emits_per_session_per_hour: limit(10_000),
      /** Cascade hops: an item made or fired by an item is one hop deeper (default 8). */
      max_cascade_depth: limit(100),
      /** Plans the agenda may start in any 24 hours (default 20). */
      max_plans_per_day: limit(1000),
    })
    .optional(),
  /**
   * Remove old plans once at start, in the background (persistence/prune.ts): drafts never
   * approved, and finished plans, unchanged for more than this many days. Each kind only when its
   * days are set; off by default. `orca prune` takes its defaults from here.
   */
  /**
   * When orca_ask_planner returns. "early" (default): as soon as the plan waits for a person or runs,
   * so the session is free; each gate's document is posted there as a note with its dialog under it,
   * and notes tell of each step done and the outcome (no model turn). "outcome": at the plan's
   * outcome, its gates asked during the call (the session busy, so documents shown page by page in
   * the dialog); for headless runs (`opencode run` ends with Orca's turn).
   */
  ask_planner_returns: z.enum(['early', 'outcome']).optional(),
  /**
   * What providers may cache of Orca's requests (opencode/prompt-cache.ts): `key` "plan-role"
   * (default) gives a plan's sessions of one role one prompt cache key where OpenCode sets one per
   * session (OpenAI-family providers), "session" leaves OpenCode's; `split_system` (default true)
   * puts an Orca agent's prompt in a system message of its own, before the working directory and
   * date, so it is a cacheable prefix shared by sibling steps.
   */
  prompt_cache: z
    .strictObject({
      key: z.enum(['plan-role', 'session']).optional(),
      split_system: z.boolean().optional(),
    })
    .optional(),
  prune: z
    .strictObject({
      drafts_after_days: z.number().int().min(1).max(36_500).optional(),
      finished_after_days: z.number().int().min(1).max(36_500).optional(),
    })
    .optional(),
  /** The Stately inspector on 127.0.0.1 (also ORCA_INSPECT=1, ORCA_INSPECT_PORT). Off by default. */
  inspect: inspectOption.optional(),
  /** The plan viewer in the browser on 127.0.0.1: `true` or `{ port }` (also ORCA_UI=1, ORCA_UI_PORT). Off by default. */
  ui: uiOption.optional(),
  hitl: z
    .strictObject({
      /** Decisions taken without a human, for headless runs (opencode run, CI). Each is logged in the plan. */
      auto: z
        .strictObject({
          approval: z.enum(['approve', 'reject']).optional(),
          deviation: z.enum(['retry', 'replan', 'stop']).optional(),
          /** At the budget gate (breakers.max_dispatches, budget.max_cost, budget.max_tokens). */
          budget: z.enum(['continue', 'stop']).optional(),
          /** At the resume gate: a step whose turn a restart found interrupted (Mark done needs a human's words). */
          resume: z.enum(['rerun', 'stop']).optional(),
          /** At the merge gate: a step's changes did not apply to the user's tree (Resolved by hand always needs a human). */
          merge: z.enum(['rerun', 'stop']).optional(),
          /** At the verification gate: the plan's verification failed in the project once every step landed. */
          verification: z.enum(['replan', 'accept', 'stop']).optional(),
          questions: z.enum(['first_option']).optional(),
        })
        .optional(),
    })
    .optional(),
});

export type OrcaOptions = z.infer<typeof orcaOptions>;


/** The output protocol of an agent's turns (`agents.<id>.output`); text unless configured. */
export function outputProtocolOf(options: OrcaOptions, agent: string): OutputProtocol {
  return options.agents?.[agent as keyof NonNullable<OrcaOptions['agents']>]?.output ?? 'text';
}

/** The model configured for an agent (`agents.<id>.model`), undefined for OpenCode's default. */
export function modelOf(options: OrcaOptions, agent: string): string | undefined {
  return options.agents?.[agent as keyof NonNullable<OrcaOptions['agents']>]?.model;
}

/** The agent settings OpenCode gets: everything but what only Orca reads (`output`). */
/** When orca_ask_planner returns (`ask_planner_returns`, default "early": the session stays free). */
export const askPlannerReturns = (options: Pick<OrcaOptions, 'ask_planner_returns'>): 'early' | 'outcome' => options.ask_planner_returns ?? 'early';

export function agentOverrides(options: OrcaOptions): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(options.agents ?? {}).map(([id, settings]) => {
    const { output: _output, ...forOpenCode } = settings ?? {};
    return [id, forOpenCode];
  }));
}

/** The `prune` option as the rules of the start-up prune; null when it asks for nothing (off). */
export function startupPruneRules(options: OrcaOptions): RetentionRules | null {
  const { drafts_after_days: drafts, finished_after_days: finished } = options.prune ?? {};
  if (drafts === undefined && finished === undefined) return null;
  return { draftsAfterDays: drafts ?? null, finishedAfterDays: finished ?? null };
}

/** The `isolation` option with its defaults: where steps run and how a new worktree is prepared. */
export interface IsolationSettings {
  mode: IsolationMode;
  /** Normalized (`a/b`, no `./`, no trailing `/`), each once, in the order given. */
  include: string[];
  setup: string | null;
  setupTimeoutMs: number;
}

export function isolationSettings(options: OrcaOptions): IsolationSettings {
  const isolation = options.isolation ?? {};
  return {
    mode: isolation.mode ?? 'worktree',
    include: [...new Set((isolation.include ?? []).map(normalizeProjectPath))],
    setup: isolation.setup ?? null,
    setupTimeoutMs: (isolation.setup_seconds ?? DEFAULT_SETUP_SECONDS) * 1000,
  };
}

export type AutoPolicy = NonNullable<NonNullable<OrcaOptions['hitl']>['auto']>;

export class OrcaConfigError extends OrcaError {
  override name = 'OrcaConfigError';
}

export function parseOptions(raw: unknown): OrcaOptions {
  const parsed = orcaOptions.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new OrcaConfigError(`Invalid opencode-orca-statecharts plugin options: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}
