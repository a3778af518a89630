export { createWorkspaces, type Workspaces, type WorkspacesOptions } from './workspace-ports.js';
export { workspaceSupport, type GitRepository, type WorkspaceSupport } from './support.js';
export { WorkspaceSetupError } from './setup.js';
export { GitError } from './git.js';
export { isStaleClaim, listWorktrees, removeSlot, SLOT_LOCK_REASON, type OrcaWorktree, type SlotClaim } from './worktrees.js';
export { hiddenOpencodeConfig } from './slot-placement.js';
