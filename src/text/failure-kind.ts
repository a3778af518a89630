import type { FailureKind } from '../machines/types.js';

/** What failed in an attempt, in a few words for people and the orca agent (`orca show`, the tool result, the viewer). */
export const FAILURE_KIND_WORDS: Record<FailureKind, string> = {
  pre_hook: 'pre-step hook failed',
  session: 'session not opened',
  answer: 'the specialist reported failure',
  turn: 'no readable answer',
  timeout: 'idle timeout',
  review: 'review failed',
  reviewer: 'the reviewer could not review',
  fix: 'fix failed',
  workspace: 'worktree not made',
  merge: "changes did not apply to the user's tree",
};
