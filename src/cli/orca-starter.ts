import { PACKAGE_NAME } from './package-info.js';

/** Where editors fetch the options schema once the package is published (a clone's init writes the file's own URL). */
export const schemaUrl = (version: string) => `https://unpkg.com/${PACKAGE_NAME}@${version}/schema/orca.schema.json`;

/** `.opencode/orca.jsonc` as `orca init` writes it: every option, commented out at its default. */
export function orcaStarter(version: string, schema = schemaUrl(version)): string {
  return `// Options of the Orca plugin (${PACKAGE_NAME}).
//
// Read when OpenCode starts, over ~/.config/opencode/orca.jsonc and over the options of the
// plugin entry in opencode.json (objects merge key by key, other values replace). An unknown
// key or a wrong value stops the plugin from loading, with a message that names the file and
// the key. \`orca doctor\` checks them.
{
  "$schema": "${schema}",

  // Per agent: "model" ("provider/model"), "temperature", "prompt" (replaces the role text;
  // the output protocol is kept), "disable", "output" ("text", the default: the reply ends with
  // one JSON object; or "structured": OpenCode structured output, whose sessions OpenCode 1.18
  // cannot list). Role permissions always apply on top.
  // "agents": { "coder": { "model": "anthropic/claude-sonnet-4-5", "temperature": 0.2 } },

  // How many ready steps run at once (1 to 16). Steps whose \`files\` overlap never run together,
  // nor two file-changing steps (coder, tester, document-writer) unless both declared their files.
  // "concurrency": 4,

  // Failed attempts of a step after which Retry is no longer offered (1 to 100); Replan and
  // Stop stay available.
  // "max_attempts": 10,

  // The reviewer gate: after a step of these agents a reviewer checks the work; FAIL goes to a
  // fixer pass (the same agent) and back, at most max_rounds rounds. "enabled": false turns it off.
  // "review": { "enabled": true, "agents": ["coder"], "max_rounds": 3 },

  // Circuit breakers: the same error this many times in a row hands the step to a human; a plan
  // pauses for Continue / Stop after max_dispatches specialist, reviewer and fixer turns; identical
  // tool failures in one session get a redirect message, then the session is aborted.
  // "breakers": { "same_error": 3, "max_dispatches": 100, "tool_failures": { "redirect_at": 3, "abort_at": 4 } },

  // What a plan may spend before it pauses for Continue / Stop, like max_dispatches: money (in
  // the currency of your models' configured prices) and tokens of every class, cache reads
  // included. Continue raises the limit that was reached by as much again. No limit unless set.
  // "budget": { "max_cost": 2.5, "max_tokens": 5000000 },

  // A specialist idle this long is aborted and its step fails with TIMEOUT; hooks are killed after hook_seconds.
  // "timeouts": { "step_idle_seconds": 600, "hook_seconds": 30 },

  // Shell commands before each attempt (a failure blocks the step) and after each completed step
  // (never blocks), run with ORCA_PLAN_ID, ORCA_STEP_ID, ORCA_AGENT, ORCA_ATTEMPT and ORCA_HOOK set.
  // "hooks": { "pre_step": ["npm run lint"], "post_step": [] },

  // Remove old plans from .opencode/plans once at start, in the background (logged): drafts never
  // approved, and finished plans, unchanged for more than this many days; each only when set.
  // Never a plan a process runs or an approved one not finished. \`orca prune\` lists them first.
  // "prune": { "drafts_after_days": 30, "finished_after_days": 90 },

  "hitl": {
    // Decisions taken without a human, for headless runs (opencode run, CI). Each is off unless
    // set here, and each automatic decision is recorded in the plan's decisions with channel "auto".
    "auto": {
      // At the approval gate: "approve" or "reject" every proposed plan.
      // "approval": "approve",

      // When a step fails: "retry", "replan" or "stop". "retry" stops once Retry is no longer offered.
      // At a circuit breaker (the same error again and again) none applies: a human decides.
      // "deviation": "stop",

      // At the budget gate (100 specialist, reviewer and fixer turns per plan, and budget.max_cost /
      // budget.max_tokens when set): "continue" raises the limit reached by as much again, or "stop".
      // "budget": "stop",

      // Planner questions: "first_option" answers each with its first option.
      // "questions": "first_option"
    }
  }
}
`;
}
