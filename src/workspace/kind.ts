import type { WorkspaceKind } from '../machines/types.js';
import type { WorkspaceSupport } from './support.js';

/**
 * Where this project's file-changing steps work, from the `isolation` option and what git can do
 * here, with the one-line reason when it is not a worktree of their own (said once at start).
 */
export function workspaceKindOf(mode: 'worktree' | 'none', support: WorkspaceSupport): { kind: WorkspaceKind; reason: string | null } {
  if (support.ok) return mode === 'worktree' ? { kind: 'worktree', reason: null } : { kind: 'shared', reason: 'isolation.mode is "none"' };
  if (mode === 'none') return { kind: support.repository ? 'shared' : 'none', reason: 'isolation.mode is "none"' };
  return { kind: support.repository ? 'shared' : 'none', reason: support.reason };
}

/** What the start-up log says of it: where steps work, and why not in worktrees. */
export function workspaceKindText({ kind, reason }: { kind: WorkspaceKind; reason: string | null }): string {
  if (kind === 'worktree') return 'file-changing steps work in their own git worktrees';
  const where = kind === 'shared' ? 'steps share the project directory (git still measures what each changed)' : 'steps share the project directory (no git: what each changed is not measured)';
  return `${where}: ${reason}`;
}
