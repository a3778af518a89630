import type { StepDiff } from '../machines/types.js';
import { diffTotals, lineCounts } from '../text/step-diff.js';

/**
 * What a step really changed, as the reviewer reads it (docs/design.md, "Isolation and merge"):
 * git's list of files with their line counts, the files outside the step's declared ones flagged,
 * and the patch itself, cut so a large change cannot crowd out the rest of the prompt.
 */

/** Characters of patch a review prompt carries; the rest is named, with where the whole patch is. */
export const REVIEW_PATCH_MAX = 16_000;

/** "src/a.ts (modified, +10 −2)", one line per file, undeclared ones flagged. */
function reviewFileLines(diff: StepDiff): string[] {
  const undeclared = new Set(diff.undeclared);
  return diff.files.map(
    (f) =>
      `- ${f.path} (${f.status}${f.from ? ` from ${f.from}` : ''}, ${lineCounts(f)})${undeclared.has(f.path) ? ' — NOT DECLARED in the step\'s files' : ''}`,
  );
}

/** A fence longer than any run of backticks in the text, so a patch cannot close it early. */
export const fenceFor = (text: string) => '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

/** The review prompt's section on the step's real changes; `patch` is the patch's text when it could be read. */
export function diffSection(diff: StepDiff, patch: string | null): string {
  const where =
    diff.where === 'worktree'
      ? "measured by git in the step's own worktree: these are exactly the step's changes, whatever its report says; git diff in that copy shows nothing, Orca has recorded them"
      : 'measured by git in the shared project directory while the step ran: a step running beside it may have changed some of these files too';
  const lines = [`# What really changed (${where})`];
  if (diff.files.length === 0) lines.push('Nothing: git finds no file changed.');
  else lines.push(`${diffTotals(diff)}:`, ...reviewFileLines(diff));
  if (diff.undeclared.length > 0) lines.push(`Changed outside the step's declared files: ${diff.undeclared.join(', ')}. Say whether each belongs to this step.`);
  if (patch) {
    const cut = patch.length > REVIEW_PATCH_MAX;
    const shown = cut ? patch.slice(0, REVIEW_PATCH_MAX) : patch;
    const fence = fenceFor(shown);
    lines.push(`${fence}diff\n${shown}${shown.endsWith('\n') ? '' : '\n'}${fence}`);
    if (cut) lines.push(`(the patch is cut at ${REVIEW_PATCH_MAX} characters of ${patch.length}; read the changed files for the rest${diff.patch_path ? `, or ${diff.patch_path}` : ''})`);
  }
  return lines.join('\n');
}
