import type { FailedAttempt, FailureKind, MergeConflict } from '../machines/types.js';
import { conflictHunks, conflictPaths } from '../text/step-diff.js';
import { fenceFor } from './step-diff.js';

/**
 * How a retry prompt words each earlier attempt, by what failed in it: a specialist told only that
 * "attempts failed" tries to fix whatever the error names, a pre-step hook or the reviewer included.
 * `to` is who reads it: the specialist of the next attempt (`latest`: the one just before it), or
 * that attempt's reviewer, who is told what happened, not what to do.
 */
type Reader = { you: string; specialist: boolean; latest: boolean };
const WORDS: Record<FailureKind, (a: FailedAttempt, to: Reader) => string> = {
  pre_hook: (a, to) => `Attempt ${a.attempt} never reached ${to.you}: a pre-step hook failed first: ${a.error}${to.specialist ? '\n  Fix what the hook needs only if your step is about it.' : ''}`,
  session: (a, to) => `Attempt ${a.attempt} never reached ${to.you}: its session could not be opened: ${a.error}`,
  answer: (a) => `Attempt ${a.attempt} answered that it could not do the step: ${a.error}`,
  turn: (a, to) => `Attempt ${a.attempt} ended without a readable answer: ${a.error}${to.specialist ? '\n  End your turn with the JSON answer this prompt asks for.' : ''}`,
  timeout: (a) => `Attempt ${a.attempt} was stopped for being idle too long: ${a.error}`,
  review: (a) => `Attempt ${a.attempt} did the step, but the reviewer failed it in its last review round: ${a.error}`,
  reviewer: (a) => `Attempt ${a.attempt} did the step, but the reviewer could not review it (not a fault of the work): ${a.error}`,
  fix: (a) => `Attempt ${a.attempt} did the step, but fixing what the reviewer found failed: ${a.error}`,
  workspace: (a, to) => `Attempt ${a.attempt} never reached ${to.you}: its worktree could not be made: ${a.error}`,
  merge: (a, to) =>
    `Attempt ${a.attempt} did the step in its own worktree, but its changes did not apply to the user's tree, which changed meanwhile: ${a.error}\n` +
    (to.specialist && to.latest
      ? `  Its changes are not in your copy: you start again from the user's tree as it is now${a.landed?.length ? ` (${a.landed.join(', ')} included)` : ''}. Do the step on top of it.`
      : `  Its changes were left out: the next attempt started again from the user's tree as it was then${a.landed?.length ? ` (${a.landed.join(', ')} included)` : ''}.`) +
    (to.specialist ? clashText(a) : ''),
};

/** Conflicting files shown to a run on top (the rest are named), and how much of each: both sides of a region (seen cut at 12 lines, the attempt's side hidden). */
const MAX_CLASH_FILES = 3;
const CLASH_CUT = { hunks: 3, lines: 40, width: 160 };

/** Where a clash happened, as git marked it: the regions of each file, cut, fenced (the text is the user's and a model's). */
function clashText(a: FailedAttempt): string {
  const conflicts: MergeConflict[] = a.conflicts?.filter((c) => c.hunks.length > 0) ?? [];
  if (conflicts.length === 0) return '';
  const shown = conflicts.slice(0, MAX_CLASH_FILES).map((c) => {
    const text = conflictHunks(c, CLASH_CUT).join('\n');
    const fence = fenceFor(text);
    return `${c.path}:\n${fence}\n${text}\n${fence}`;
  });
  const rest = conflicts.length > MAX_CLASH_FILES ? `\n(and ${conflictPaths(conflicts.slice(MAX_CLASH_FILES))})` : '';
  return `\n  Where they clashed (from <<<<<<< to ======= the user's tree now, from ======= to >>>>>>> attempt ${a.attempt}'s change):\n${shown.join('\n')}${rest}`;
}

/**
 * One earlier attempt in the "# Previous attempts at this step failed" section, as its specialist
 * reads it (`latest`: the attempt just before); a failure recorded without a kind reads as before
 * kinds existed.
 */
export function previousAttemptText(a: FailedAttempt, { reader = 'specialist', latest = false }: { reader?: 'specialist' | 'reviewer'; latest?: boolean } = {}): string {
  const to = { you: reader === 'specialist' ? 'you' : 'the specialist', specialist: reader === 'specialist', latest };
  const said = a.kind ? WORDS[a.kind](a, to) : `Attempt ${a.attempt}: ${a.error}`;
  return `- ${said}${a.guidance ? `\n  The user's guidance: ${a.guidance}` : ''}`;
}

/**
 * What a retry works on: the tree still holds the changes of the attempts `kept` names (nothing is
 * undone between attempts; keptAttempts says which), in the step's own copy or the project's files.
 */
export function keptChangesText(kept: readonly number[], inWorktree: boolean, reader: 'specialist' | 'reviewer'): string | null {
  if (kept.length === 0) return null;
  const which = `attempt${kept.length === 1 ? '' : 's'} ${kept.join(', ')}`;
  const where = inWorktree ? (reader === 'specialist' ? 'your copy' : 'the copy') : "the project's files";
  return reader === 'specialist'
    ? `What ${which} changed is still in ${where}: nothing was undone. Keep what is right, fix the rest.`
    : `What ${which} changed is still in ${where}, part of this step's changes: nothing was undone between attempts.`;
}

/** The earlier attempts as a list, the latest last, for the next attempt's specialist or its reviewer. */
export const previousAttemptsList = (attempts: readonly FailedAttempt[], reader: 'specialist' | 'reviewer') =>
  attempts.map((a, i) => previousAttemptText(a, { reader, latest: i === attempts.length - 1 })).join('\n');
