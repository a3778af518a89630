// The ruleset OpenCode 1.18.33 evaluates for a config-defined agent (Agent.state in the binary):
// its defaults, then the user's global permission, then the agent's own; then it re-allows
// reading its truncated tool output unless that is denied outright.
import { toRuleset, type PermissionMap, type PermissionRule } from '../../src/agents/index.js';

const TOOL_OUTPUT = '/home/user/.local/share/opencode/tool-output/*';

export const OPENCODE_DEFAULTS: PermissionMap = {
  '*': 'allow',
  doom_loop: 'ask',
  external_directory: { '*': 'ask', [TOOL_OUTPUT]: 'allow' },
  question: 'deny',
  plan_enter: 'deny',
  plan_exit: 'deny',
  read: { '*': 'allow', '*.env': 'ask', '*.env.*': 'ask', '*.env.example': 'allow' },
};

export function agentRuleset(agent: PermissionMap, global: PermissionMap = {}): PermissionRule[] {
  const rules = [...toRuleset(OPENCODE_DEFAULTS), ...toRuleset(global), ...toRuleset(agent)];
  const outputDenied = rules.some((r) => r.permission === 'external_directory' && r.action === 'deny' && r.pattern === TOOL_OUTPUT);
  return outputDenied ? rules : [...rules, { permission: 'external_directory', pattern: TOOL_OUTPUT, action: 'allow' }];
}

/** Tools a test asks about: 1.18's built-ins, Orca's four, and an MCP server's tool. */
export { KNOWN_TOOLS } from '../../src/agents/index.js';
export const MCP_TOOL = 'github_create_issue';
