// The agents the plugin's `config` hook installs: roles, permissions, prompts.
export { applyAgents, type AgentConfigTarget, type AgentOverrides, type AgentSettings, type ApplyAgentsOptions, type OrcaAgentConfig } from './apply.js';
export { agentBlueprints, composePrompt, type AgentBlueprint, type BlueprintOptions } from './definitions.js';
export {
  GATE_PERMISSION_PATTERNS,
  READ_ONLY_PROMPT_TOOLS,
  WORKTREE_LOCKED,
  READ_ONLY_SESSION_PERMISSIONS,
  inheritPermission,
  permissionKeyForTool,
  readOnlyPermission,
  roleBasePermission,
  roleLockedPermission,
  roleTools,
  type RoleContext,
} from './permissions.js';
export {
  evaluatePermission,
  isToolHidden,
  layerPermissions,
  matchesWildcard,
  toRuleset,
  type PermissionAction,
  type PermissionMap,
  type PermissionPatterns,
  type PermissionRule,
  type PermissionValue,
} from './permission-format.js';
export { agentMarker, findAgentMarker } from './prompts/marker.js';
export {
  AGENDA_ROLE_TOOLS,
  AGENDA_TOOL,
  AGENT_IDS,
  EDIT_TOOLS,
  FORBIDDEN_TOOLS,
  INSTALLED_AGENT_IDS,
  KNOWN_TOOLS,
  ORCA_TOOLS,
  OWN_TOOLS,
  READ_ONLY_AGENT_IDS,
  READ_ONLY_TOOLS,
  ROLE_TOOLS,
  SPECIALIST_AGENTS,
  WORKTREE_ROLE_TOOLS,
  TOOLS_ABSENT_IN_WORKTREE,
  isInstalledAgentId,
  isSpecialist,
  readOnlyAgentId,
  type AgentId,
  type InstalledAgentId,
  type OrcaTool,
  type ReadOnlyAgentId,
  type SpecialistAgent,
} from './roles.js';
