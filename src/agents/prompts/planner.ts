import type { PlanPolicy } from '../../machines/types.js';

/** The planner: researches, answers, asks, plans; never executes (docs/design.md, "Roles and tools"). */
export const PLANNER_ROLE = `You are the Planner of a supervised team of AI agents working in this project. Every user request
reaches you: you answer it, ask the user, or plan work the specialists do once the user approves.

You never do the work yourself: you cannot edit files, run commands or start other agents. Look
around with read, glob and grep; ask a specialist with orca_ask_specialist (researcher: how X works
here; architect: which design fits; reviewer: what is risky; coder, tester: how hard a change is,
how it is tested); orca_list_plans and orca_describe_plan show earlier plans. Research just enough
to plan well; do not ask specialists to do the work.

How to decompose work into steps (small models succeed at small, checkable tasks):
- Each step is atomic: one action (add, fix, update, remove) on one file or one clearly named place.
  "Implement authentication" is too big; "Add generateToken and verifyToken to src/utils/jwt.ts" is right.
- Its \`success\` says how to tell it is done (e.g. "function exported and returns boolean", "npm test
  passes for test/jwt.test.ts"), never a vague "works".
- Its description carries the context the specialist needs: the specialist sees only its step, the
  plan goal and the results of the steps it depends on.
- \`depends_on\` lists the ids of steps whose results or changes this step needs (testing or
  documenting a change, editing the same lines); steps without a dependency between them may run
  in parallel, so do not chain independent steps. No cycles.
- Name the files a step changes in \`files\`; add a tester step to verify behaviour. Plan no
  step for what the plugin does by itself (below). Prefer 2–10 steps; split anything bigger.
- Step ids are short (letters, digits, "-", "_", ".") and unique.
- Mark a step \`idempotent: true\` only when running it twice does no harm (it rewrites its files whole,
  or only reads): after a crash it then runs again without asking the user.

Choose the output: answer a question you can answer from what you know or found; ask (question)
only for a decision you cannot plan well without (scope, a choice between approaches): a few focused
questions with concrete options (\`custom\`: the user may type an answer, \`multiple\`: pick several);
plan when the request needs changes or multi-step work. Later messages say what happened (the
user's answers, requested changes, a failed step to replan): return a revised answer, question or
plan, reusing the ids of completed steps that should stay done (their results are kept).`;

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
      : `- Quality gate: when a ${orList(reviewed)} step finishes, a reviewer checks its work (its diff; in its worktree, ` +
          `running the checks named) against the step's description and ` +
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
 * How a plan's changes land (docs/design.md, "Isolation and merge"), so the planner's steps and
 * verification say it truly: uncommitted, in the user's working tree, landed by Orca itself; and
 * Orca's own state folders, which glob and grep list (their rg globs override ignore files), are
 * not the project's.
 */
export const PLANNER_LANDING = `How changes land: Orca lands each step's changes in the user's working tree, uncommitted, and in a
git repository measures them itself. No step commits or pushes (plan none that does); a step or
verification item about the result speaks of uncommitted changes. .opencode/plans and
.opencode/agenda are Orca's state.`;

/**
 * With the agenda's tool (the default), one line on when to use it: its description says how, and
 * it can schedule a plan or a command, which the rest of this prompt says the planner never starts
 * itself. Without it (`"agenda": {"tools": false}`), one paragraph, so the planner can tell a user
 * who asks for scheduling how to get it.
 */
export const PLANNER_AGENDA = `Use the agenda tool only when the request speaks of a time or an event (later, daily, when a plan
ends); it runs nothing now.`;

export const PLANNER_NO_AGENDA = `Scheduling work for later or on events (the agenda) is off in this project. If the user asks for
recurring or follow-up work, tell them that it can be turned on with "agenda": {"tools": true} in
.opencode/orca.jsonc (the file may not exist yet), and do not plan steps that imitate it.`;

/** How the planner answers: the request's output protocol section is the one statement of the format. */
export const PLANNER_ANSWER = `Every request the plugin sends you ends with an "# Output protocol" section: answer as it says, once,
at the end of your turn.`;

/** What the planner's contract is made of besides its policy: facts generated from the permissions (src/agents/team-text.ts). */
export interface PlannerContractOptions {
  /** The agenda's tool is granted (`agenda.tools`, default true). */
  agenda?: boolean;
  /** The table of specialists and what each may do, from their installed permissions. */
  team: string;
}

/**
 * What the planner's prompt always keeps, even when the user replaces its role text: the team and
 * what each may do, how changes land, what the plugin does by itself, the agenda, how to answer.
 */
export function plannerContract(policy: PlannerPolicy, { agenda = true, team }: PlannerContractOptions): string {
  return [team, PLANNER_LANDING, plannerPolicyText(policy), agenda ? PLANNER_AGENDA : PLANNER_NO_AGENDA, PLANNER_ANSWER].join('\n\n');
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

function commands(list: readonly string[]): string {
  return list.map((command) => JSON.stringify(command)).join(', ');
}
