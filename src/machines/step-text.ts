import { errorMessage } from '../errors.js';
import type { MergeConflict, ReviewError, ReviewResult } from './types.js';

/** The step machine's failure texts: what a human reads at the deviation gate and a retry prompt repeats. */

/** A reviewer's FAIL as one error text, in the error report format of docs/design.md, "The quality gate". */
export function reviewErrorsText(errors: ReviewError[]): string {
  return errors
    .map(
      (e, i) =>
        `[${e.id ?? `ERROR-${String(i + 1).padStart(3, '0')}`}] ${e.category}\n` +
        `├── File: ${e.file}${e.line !== undefined ? `\n├── Line: ${e.line}${e.line_end !== undefined ? `-${e.line_end}` : ''}` : ''}\n` +
        `├── Issue: ${e.issue}\n${e.found !== undefined ? `├── Found: ${e.found}\n` : ''}${e.expected !== undefined ? `├── Expected: ${e.expected}\n` : ''}└── Fix: ${e.fix}`,
    )
    .join('\n');
}

/** The attempt's failure when the reviewer still fails the work (after the last round, or the same errors again). */
export function reviewFailureText(result: ReviewResult, round: number, rounds: number): string {
  const errors = result.type === 'fail' ? result.errors : [];
  return `REVIEW FAILED in round ${round} of ${rounds}: ${errors.length} error${errors.length === 1 ? '' : 's'}\n${reviewErrorsText(errors)}`;
}

/** The attempt's failure when the idle watch fired: `who` is the specialist, its fixing, or the reviewer. */
export const idleTimeoutText = (who: string, idleMs: number) =>
  `TIMEOUT: the ${who} was idle for ${Math.round(idleMs / 1000)} s (timeouts.step_idle_seconds); its session was aborted`;

/** Why automatic retrying stopped: the same error `limit` times in a row. */
export const breakerText = (limit: number, stepId: string) =>
  `circuit breaker: the same error ${limit} times in a row on step ${stepId}; automatic retrying stopped, a human decides`;

/** The warning a failed post-step hook run leaves with the step's result (it never blocks). */
export const postHooksFailedText = (error: unknown) => `post_step hooks: ${errorMessage(error)}`;

/** The warning a step keeps when git could not tell what it changed (it is judged on its claim then). */
export const diffUnavailableText = (error: string) => `what the step changed could not be measured: ${error}`;

/**
 * Why a step's last changes did not land, as a run on top of the user's tree is told: the files, and
 * `landed`, the steps whose changes to them reached the user's tree first.
 */
export function mergeConflictText(merge: { conflicts: MergeConflict[]; error?: string }, landed: readonly string[] = []): string {
  const files = merge.conflicts.map((c) => c.path);
  const clash = files.length ? `its changes clashed with the user's tree in ${files.join(', ')}` : "its changes did not apply to the user's tree";
  const first = landed.length ? `, where ${landed.length === 1 ? 'step' : 'steps'} ${landed.join(', ')} landed ${landed.length === 1 ? 'a change' : 'changes'} first` : '';
  return `MERGE: ${clash}${first}${merge.error ? ` (${merge.error})` : ''}; run again on top of the tree as it is now`;
}
