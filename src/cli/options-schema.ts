import { z } from 'zod';
import { orcaOptions } from '../config/options.js';

/** What each option means, shown by editors from the schema. A test fails when an option has none. */
const DESCRIPTIONS: Record<string, string> = {
  '': 'Options of the Orca plugin (opencode-orca-statecharts): the second element of its entry in opencode.json\'s "plugin", or .opencode/orca.jsonc.',
  agents:
    'Per agent (orca, planner, coder, tester, reviewer, researcher, document-writer, architect): model ("provider/model"), temperature, prompt (replaces the role text; the output protocol is kept), disable, and output ("text", the default: the reply ends with one JSON object; or "structured": OpenCode structured output, whose sessions OpenCode 1.18 cannot list, falling back to text when the model refuses it; not for orca). Role permissions always apply on top.',
  concurrency:
    'How many ready steps run at once (default 4). Steps whose declared `files` overlap never run together, nor do two file-changing steps (coder, tester, document-writer) unless both declared disjoint `files`.',
  max_attempts: 'Failed attempts of a step after which Retry is no longer offered (default 10); Replan and Stop stay available.',
  inspect: 'The Stately inspector on 127.0.0.1: true, or { "port": N } (default port 4749). Also ORCA_INSPECT=1 and ORCA_INSPECT_PORT. Off by default.',
  'inspect.port': 'The local port of the inspector relay (0 picks a free one).',
  ui: 'The plan viewer in the browser, on 127.0.0.1: true, or { "port": N } (default: any free port). Its URL, with the token that opens it, goes to the log and a toast. Also ORCA_UI=1 and ORCA_UI_PORT. Off by default.',
  'ui.port': 'The local port of the plan viewer (0 picks a free one).',
  review:
    'The reviewer gate: after a step of a code-writing agent, the reviewer checks the work against the step\'s success criteria; FAIL sends its error reports to a fixer pass (the same agent) and back to review.',
  'review.enabled': 'Run the reviewer gate (default true).',
  'review.agents': 'Specialists whose steps are reviewed (default ["coder"]).',
  'review.max_rounds': 'Reviewer rounds before the step fails into the deviation gate (default 3).',
  breakers: 'Circuit breakers that stop loops and hand the plan to the human.',
  'breakers.same_error':
    'The same error signature this many times in a row on one step stops automatic retrying: the deviation gate then waits for a human (default 3).',
  'breakers.max_dispatches':
    'Specialist, reviewer and fixer turns a plan may start before it pauses for the human, who chooses Continue (another as many) or Stop (default 100).',
  'breakers.tool_failures': 'Identical tool failures (same tool, input and error) in one specialist session.',
  'breakers.tool_failures.redirect_at': 'At this many, the model is told to try a different approach (default 3).',
  'breakers.tool_failures.abort_at': 'At this many, the session is aborted and the step fails (default 4).',
  budget:
    'What a plan may spend before it pauses at the budget gate (Continue / Stop), like breakers.max_dispatches. No limit unless set. Continue raises the limit that was reached by as much again.',
  'budget.max_cost':
    "Money per plan (every turn: planner, specialists, reviewer, fixer, corrections, read-only asks), in the currency of the models' configured prices, as OpenCode computes each message's cost.",
  'budget.max_tokens': 'Tokens per plan, every class counted: input, output, reasoning, cache reads and cache writes.',
  timeouts: 'Time limits.',
  'timeouts.step_idle_seconds': 'A specialist (or reviewer) session idle this long is aborted and its step fails with TIMEOUT (default 600).',
  'timeouts.hook_seconds': 'Each step hook is killed after this long (default 30).',
  hooks:
    'Shell commands run in the project directory before and after each step, with ORCA_PLAN_ID, ORCA_STEP_ID, ORCA_AGENT, ORCA_ATTEMPT and ORCA_HOOK (pre_step or post_step) set.',
  'hooks.pre_step': 'Run before each attempt of a step; a non-zero exit (or the timeout) blocks the step with the hook\'s output as its error.',
  'hooks.post_step': 'Run after a step completes; never blocks: a failure is logged and recorded on the step.',
  isolation:
    "Where each file-changing step (coder, tester, document-writer) runs: in its own git worktree, started from your working tree as it is, its changes brought back to your working tree as uncommitted changes once the step completes. Without git, steps run in the project directory.",
  'isolation.mode':
    '"worktree" (default): a worktree per file-changing step wherever git can make one, else the project directory; "none": every step runs in the project directory.',
  'isolation.include':
    'Paths relative to the project that git does not carry but a worktree needs, e.g. [".env", "node_modules"]: a file is copied, a folder linked.',
  'isolation.setup': 'A shell command run once in each new worktree slot before a step starts there, e.g. "npm ci" (not again when the slot is reused).',
  'isolation.setup_seconds': 'The setup command is killed after this long, in seconds (default 300).',
  verification:
    "Once every step of a plan has landed, its verification is carried out in the project before it says completed: these commands, then a turn of the tester for the plan's own verification list. A failure waits at the verification gate (Replan / Accept as is / Stop).",
  'verification.commands': 'Shell commands run (sh -c) in the project directory once every step landed, e.g. ["npm test"]; each is a check, failing on a non-zero exit.',
  'verification.turn': "Whether a turn of the tester carries out the plan's own verification list in the project (default true).",
  'verification.timeout_seconds': 'Each verification command is killed after this long, in seconds (default 600).',
  'verification.old_failures':
    'A command that fails runs again on the tree the plan started from; one that failed there the same way is an old failure. "report" (default): said as failing before the plan too, the plan completes; "gate": it waits at the verification gate like a new failure.',
  agenda:
    'The agenda: plans, resumes, slash commands and bus events that run at a time, on a cron schedule or when events happen, with safety rails. Triggers fire only while an OpenCode server runs for this project; items that came due meanwhile fire at its next start, marked late.',
  'agenda.tools': 'The planner has the agenda\'s tool (agenda: create, list, cancel, emit, events, pause), so it schedules what you ask for later, on a schedule or on events (default true). false: no agent has it and the planner says scheduling is off; items that exist still fire, and the /agenda commands and the orca CLI work either way.',
  'agenda.poll_seconds': 'How often the scheduler looks for due items, in seconds (default 5).',
  'agenda.max_pending_project': 'Pending items in the project; one more is refused with BLOCKED [max_pending_project] (default 30).',
  'agenda.max_pending_per_session': 'Pending items of one session (default 10).',
  'agenda.min_interval_seconds': 'Two pending time items must be at least this far apart, and a cron item may not fire more often (default 60).',
  'agenda.max_pending_per_event_kind': 'Pending event items listening to one event kind (default 5).',
  'agenda.max_emits_per_session_per_hour': 'Bus events one session may emit in any hour, the agenda tool\'s emit and its items\' emit actions together (default 30).',
  'agenda.max_cascade_depth': 'Cascade hops: an item created or fired by another item\'s action is one hop deeper; at this depth it is refused (default 8).',
  'agenda.max_plans_per_day': 'Plans the agenda may start in any 24 hours, counting pending plan items and cron firings due within the day (default 20).',
  ask_planner_returns:
    'When orca_ask_planner returns to the orca agent. "early" (default): as soon as the plan waits for you or runs, leaving your session free: each gate\'s document (the plan, a failed step\'s error, …) is posted in the session with a one-key dialog under it, and notes (no model turn) say when each step is done and how the plan ends; /orca-pause and /orca-resume pause and resume it. "outcome": once the plan is completed, stopped or rejected, its gates asked in the dialog during the call (the whole plan on pages first) while the session waits; for headless runs (opencode run ends with Orca\'s turn).',
  prompt_cache:
    'What providers may cache of Orca\'s requests: a cache key per plan and role instead of per session, and the agent\'s prompt as a system message of its own ahead of the working directory and date.',
  'prompt_cache.key': '"plan-role" (default): a plan\'s sessions of one role share one prompt cache key where OpenCode sets one per session (OpenAI-family providers), so sibling steps hit the same cache; "session": OpenCode\'s key per session.',
  'prompt_cache.split_system': 'Put an Orca agent\'s prompt in a system message of its own, before the working directory, date and AGENTS.md, so providers that cache by breakpoints (Anthropic) reuse it across sibling steps (default true).',
  prune:
    'Remove old plans from .opencode/plans once at start, in the background (logged): drafts never approved and finished plans (completed, failed, rejected), each kind only when its days are set. Never a plan a process runs, an approved plan not finished, or a quarantined file. Off by default; orca prune uses these days as its defaults.',
  'prune.drafts_after_days': 'Drafts (plans never approved) unchanged for more than this many days are removed with their journal and inbox (orca prune\'s default: 30).',
  'prune.finished_after_days': 'Finished plans (completed, failed, rejected) unchanged for more than this many days are removed with their journal and inbox (kept unless set).',
  hitl: 'Human in the loop.',
  'hitl.auto': 'Decisions taken without a human, for headless runs (opencode run, CI). Each is off unless set; every automatic decision is recorded in the plan with channel "auto".',
  'hitl.auto.approval': 'At the approval gate: approve or reject every proposed plan.',
  'hitl.auto.deviation':
    'When a step fails: retry, replan or stop. retry stops once Retry is no longer offered. Never past a circuit breaker (breakers.same_error): there the gate waits for a human.',
  'hitl.auto.budget':
    'At the budget gate (breakers.max_dispatches, budget.max_cost, budget.max_tokens): continue (raise the limit that was reached by as much again) or stop.',
  'hitl.auto.resume': 'At the resume gate (a step a restart found interrupted, with no result to reuse): rerun it or stop the plan. Mark done always needs a human.',
  'hitl.auto.verification': "At the verification gate (the plan's verification failed in the project once every step landed): replan, accept the plan as it is, or stop.",
  'hitl.auto.merge':
    "At the merge gate (a completed step's changes did not apply to your working tree): rerun the step, or stop the plan. Resolved by hand always needs a human.",
  'hitl.auto.questions': 'Planner questions: first_option answers each with its first option.',
};

interface SchemaNode {
  description?: string;
  properties?: Record<string, SchemaNode>;
  [key: string]: unknown;
}

/** The JSON schema of the plugin options (schema/orca.schema.json), generated from the zod schema. */
export function optionsJsonSchema(): SchemaNode {
  const schema = z.toJSONSchema(orcaOptions) as SchemaNode;
  describe(schema, '');
  // Editors flag "$schema" in a file whose schema forbids unknown keys unless it is declared.
  schema.properties = { $schema: { type: 'string', description: 'The JSON schema of this file.' }, ...schema.properties };
  const { $schema, ...rest } = schema;
  return { $schema, title: 'Orca plugin options', ...rest };
}

function describe(node: SchemaNode, path: string) {
  const description = DESCRIPTIONS[path];
  if (description === undefined) throw new Error(`Expected a description for the option "${path}" in src/cli/options-schema.ts.`);
  node.description = description;
  for (const [key, child] of Object.entries(node.properties ?? {})) describe(child, path ? `${path}.${key}` : key);
}

export const renderOptionsSchema = () => `${JSON.stringify(optionsJsonSchema(), null, 2)}\n`;
