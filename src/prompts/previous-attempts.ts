import type { FailedAttempt, FailureKind } from '../machines/types.js';

/**
 * How a retry prompt words each earlier attempt, by what failed in it: a specialist told only that
 * "attempts failed" tries to fix whatever the error names, a pre-step hook or the reviewer included.
 */
const WORDS: Record<FailureKind, (a: FailedAttempt) => string> = {
  pre_hook: (a) => `Attempt ${a.attempt} never reached you: a pre-step hook failed first: ${a.error}\n  Fix what the hook needs only if your step is about it.`,
  session: (a) => `Attempt ${a.attempt} never reached you: its session could not be opened: ${a.error}`,
  answer: (a) => `Attempt ${a.attempt} answered that it could not do the step: ${a.error}`,
  turn: (a) => `Attempt ${a.attempt} ended without a readable answer: ${a.error}\n  End your turn with the JSON answer this prompt asks for.`,
  timeout: (a) => `Attempt ${a.attempt} was stopped for being idle too long: ${a.error}`,
  review: (a) => `Attempt ${a.attempt} did the step, but the reviewer failed it in its last review round: ${a.error}`,
  reviewer: (a) => `Attempt ${a.attempt} did the step, but the reviewer could not review it (not a fault of the work): ${a.error}`,
  fix: (a) => `Attempt ${a.attempt} did the step, but fixing what the reviewer found failed: ${a.error}`,
  workspace: (a) => `Attempt ${a.attempt} never reached you: its worktree could not be made: ${a.error}`,
  merge: (a) => `Attempt ${a.attempt} did the step in its own worktree, but its changes did not apply to the user's tree, which changed meanwhile: ${a.error}\n  You start again from the tree as it is now: do the step on top of it.`,
};

/** One earlier attempt in the "# Previous attempts at this step failed" section; a failure recorded without a kind reads as before kinds existed. */
export function previousAttemptText(a: FailedAttempt): string {
  const said = a.kind ? WORDS[a.kind](a) : `Attempt ${a.attempt}: ${a.error}`;
  return `- ${said}${a.guidance ? `\n  The user's guidance: ${a.guidance}` : ''}`;
}
