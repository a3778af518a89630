import { PACKAGE_NAME } from './package-info.js';

/** Where editors fetch the options schema: the copy shipped in the published package. */
export const schemaUrl = (version: string) => `https://unpkg.com/${PACKAGE_NAME}@${version}/schema/orca.schema.json`;

/** `.opencode/orca.jsonc` as `orca init` writes it: every option, commented out at its default. */
export function orcaStarter(version: string): string {
  return `// Options of the Orca plugin (${PACKAGE_NAME}).
//
// Read when OpenCode starts, over ~/.config/opencode/orca.jsonc and over the options of the
// plugin entry in opencode.json (objects merge key by key, other values replace). An unknown
// key or a wrong value stops the plugin from loading, with a message that names the file and
// the key. \`orca doctor\` checks them.
{
  "$schema": "${schemaUrl(version)}",

  // Per agent: "model" ("provider/model"), "temperature", "prompt" (replaces the role text;
  // the output protocol is kept), "disable". Role permissions always apply on top.
  // "agents": { "coder": { "model": "anthropic/claude-sonnet-4-5", "temperature": 0.2 } },

  // How many ready steps run at once (1 to 16). Steps whose \`files\` overlap never run together.
  // "concurrency": 4,

  // Failed attempts of a step after which Retry is no longer offered (1 to 100); Replan and
  // Stop stay available.
  // "max_attempts": 10,

  "hitl": {
    // Decisions taken without a human, for headless runs (opencode run, CI). Each is off unless
    // set here, and each automatic decision is recorded in the plan's decisions with channel "auto".
    "auto": {
      // At the approval gate: "approve" or "reject" every proposed plan.
      // "approval": "approve",

      // When a step fails: "retry", "replan" or "stop". "retry" stops once Retry is no longer offered.
      // At a circuit breaker (the same error again and again) none applies: a human decides.
      // "deviation": "stop",

      // At the dispatch cap (100 specialist, reviewer and fixer turns per plan): "continue" for
      // as many again, or "stop".
      // "budget": "stop",

      // Planner questions: "first_option" answers each with its first option.
      // "questions": "first_option"
    }
  }
}
`;
}
