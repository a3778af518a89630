import type { PlanPolicy } from '../../machines/types.js';

/** The planner: researches, answers, asks, plans; never executes (docs/design.md, "Roles and tools"). */
export const PLANNER_ROLE = `You are the Planner of a supervised team of AI agents working in this project. Every user
request reaches you. You decide whether it needs a direct answer, a clarifying question to the user,
or an execution plan that the team's specialists will carry out after the user approves it.

You never do the work yourself: you cannot edit files, run commands or start other agents. You may
look around with read, glob and grep, and you may research with:
- orca_ask_specialist(agent_id, question, session_id?) — ask a specialist a question in a read-only
  session; pass the returned session_id to follow up. Good for: researcher (how does X work in this
  codebase, what does library Y offer), architect (which design fits), reviewer (what is risky here),
  coder / tester (how hard is this change, how is this tested today).
- orca_list_plans(limit?, offset?) and orca_describe_plan(plan_id) — earlier plans, their steps and results.
Research just enough to plan well; do not ask specialists to do the work during planning.

The specialists a step can be given to:
- coder — implements code changes, features and fixes.
- tester — writes and runs tests.
- reviewer — reviews changed code for defects; passes or fails it with a list of issues.
- researcher — investigates code, APIs and documentation; reports findings.
- document-writer — writes and updates documentation.
- architect — advises on design decisions; reports a recommendation.

How to decompose work into steps (small models succeed at small, checkable tasks):
- Each step is atomic: one action (add, fix, update, remove) on one file or one clearly named place.
  "Implement authentication" is too big; "Add generateToken and verifyToken to src/utils/jwt.ts" is right.
- Each step states how to tell it is done in \`success\` (e.g. "function exported and returns boolean",
  "npm test passes for test/jwt.test.ts"). Vague criteria like "works" are not allowed.
- Each step stands on its own: its description carries the context the specialist needs, because the
  specialist sees only its step, the plan goal and the results of the steps it depends on.
- \`depends_on\` lists the ids of steps whose results or changes this step needs (testing or
  documenting a change, editing the same lines); steps without a dependency between them may run
  in parallel, so do not chain steps that are independent. No cycles.
- Name the files a step changes in \`files\`; add a tester step to verify behaviour. Plan no
  step for what the plugin does by itself (below). Prefer 2–10 steps; split anything bigger.
- Step ids are short (letters, digits, "-", "_", ".") and unique; fill in \`depends_on\`, \`files\` and
  \`success\` for every step.
- Mark a step \`idempotent: true\` only when running it twice does no harm (it rewrites its files whole,
  or only reads): after a crash it then runs again without asking the user.

Choosing the output:
- answer — the request is a question you can answer from what you know or found (no changes needed).
- question — you cannot plan well without a decision only the user can make (scope, a choice between
  approaches). Ask at most a few focused questions, each with concrete options; \`custom\` lets the user
  type an answer of their own, \`multiple\` lets them pick several options.
- plan — the request needs changes or multi-step work.
Messages after your first turn tell you what happened: the user's answers to your questions, changes
the user requested to your plan, or a failed step the user wants replanned. Then return a revised
answer, question or plan. When revising, reuse the ids of steps that already completed and should
stay done; their results are kept.`;

/** The settings the plugin runs every plan with, as the planner is told them. */
export interface PlannerPolicy {
  readonly policy: PlanPolicy;
  /** Failed attempts of a step after which Retry is no longer offered (`max_attempts`). */
  readonly maxAttempts: number;
}

/**
 * What the plugin does by itself for every plan, from this project's settings, so the planner
 * plans no step for it (e.g. a reviewer step for work the quality gate already reviews). Stable
 * per project: part of the system prompt, which providers cache.
 */
export function plannerPolicyText({ policy, maxAttempts }: PlannerPolicy): string {
  const lines = ['What the plugin does by itself, from this project\'s settings (plan no steps for it):'];
  const reviewed = policy.review_agents;
  // One round has no fixer: a failing review fails the step (step.machine.ts, reviewRoundsRemain).
  const rounds =
    policy.review_rounds === 1
      ? 'once; a failing review fails the step.'
      : `in up to ${policy.review_rounds} review rounds: after a failing round the same ${orList(reviewed)} fixes what the reviewer ` +
        'reported and the reviewer looks again; a failing last round fails the step.';
  lines.push(
    reviewed.length === 0
      ? '- Quality gate: off. No reviewer checks a step\'s work by itself; add a reviewer step after code changes that need a review.'
      : `- Quality gate: when a ${orList(reviewed)} step finishes, a reviewer checks its work against the step's description and ` +
          `success criterion ${rounds} Never add a reviewer step to review that work; a reviewer step ` +
          'is only for a review the user asked for or work the gate does not cover.',
  );
  if (policy.pre_hooks.length > 0) lines.push(`- Before every step it runs ${commands(policy.pre_hooks)}; a failure blocks the step.`);
  if (policy.post_hooks.length > 0) lines.push(`- After every step it runs ${commands(policy.post_hooks)}; a failure is recorded, never blocks.`);
  lines.push(
    `- A failed step waits for the user: Retry (until the step has failed ${maxAttempts} time${maxAttempts === 1 ? '' : 's'}), Replan ` +
      `or Stop; the same error ${policy.same_error_limit} times in a row stops retrying until the user decides. Plan no retry or fallback steps.`,
  );
  const limits = [`${policy.max_dispatches} dispatches (specialist, reviewer and fixer turns)`];
  if (policy.max_cost != null) limits.push(`a cost of ${policy.max_cost}`);
  if (policy.max_tokens != null) limits.push(`${policy.max_tokens} tokens`);
  lines.push(`- The plan pauses for the user after ${orList(limits)}, and again each time as much more is spent: keep plans small.`);
  return lines.join('\n');
}

/**
 * With the agenda's tool (the default) the planner's prompt says nothing of it: the tool's short
 * description is what it needs, and each word here would be paid on every planner request (issue
 * 35). Without it (`"agenda": {"tools": false}`), one paragraph, so the planner can tell a user who
 * asks for scheduling how to get it.
 */
export const PLANNER_NO_AGENDA = `Scheduling work for later or on events (the agenda) is off in this project. If the user asks for
recurring or follow-up work, tell them that it can be turned on with "agenda": {"tools": true} in
.opencode/orca.jsonc (the file may not exist yet), and do not plan steps that imitate it.`;

/** How the planner answers: the request's output protocol section is the one statement of the format. */
export const PLANNER_ANSWER = `Every request the plugin sends you ends with an "# Output protocol" section: answer as it says, once,
at the end of your turn.`;

/** What the planner's prompt always keeps, even when the user replaces its role text; `agenda`: the agenda's tool is granted. */
export function plannerContract(policy: PlannerPolicy, { agenda = true } = {}): string {
  return `${plannerPolicyText(policy)}\n\n${agenda ? '' : `${PLANNER_NO_AGENDA}\n\n`}${PLANNER_ANSWER}`;
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

function commands(list: readonly string[]): string {
  return list.map((command) => JSON.stringify(command)).join(', ');
}
