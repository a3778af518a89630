import type { FileChange, LaterChange, MergeConflict, StepDiff } from '../machines/types.js';
import { forTerminal } from './terminal.js';

/**
 * What a step really changed (git's StepDiff) and what did not apply (a merge gate's conflicts), in
 * the words a person reads: `orca show`, the dialog, notes, the viewer, the tool results. Paths and
 * hunks come from git and from files a model wrote: they are data, so the hunks are made
 * terminal-safe here (forTerminal, idempotent) before any channel cuts or wraps them.
 */

/** How a shared-tree diff is to be read (StepDiff.where === 'shared'). */
export const SHARED_TREE_WORDS = 'shared tree: may include changes of steps running beside it';

/** A file outside the step's declared ones. */
export const NOT_DECLARED = 'not declared';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** "+10 −2", or "binary" when git counts no lines. */
export const lineCounts = (f: Pick<FileChange, 'added' | 'removed'>) => (f.added === null || f.removed === null ? 'binary' : `+${f.added} −${f.removed}`);

/** "3 files +12 −4" (binary files counted as files, not lines), or "no file changed". */
export function diffTotals(diff: Pick<StepDiff, 'files'>): string {
  if (diff.files.length === 0) return 'no file changed';
  const added = diff.files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = diff.files.reduce((n, f) => n + (f.removed ?? 0), 0);
  return `${plural(diff.files.length, 'file')} +${added} −${removed}`;
}

/** "3 files +12 −4, 1 not declared": the totals and how many changed files the step did not declare. */
export function changeSummary(diff: Pick<StepDiff, 'files' | 'undeclared'>): string {
  return `${diffTotals(diff)}${diff.undeclared.length ? `, ${diff.undeclared.length} ${NOT_DECLARED}` : ''}`;
}

/** "src/a.ts +10 −2", "logo.png binary (added)", "b.ts +0 −0 (renamed from a.ts)", with "(not declared)" when outside the declared files. */
export function fileChangeText(f: FileChange, undeclared: boolean): string {
  const status = f.status === 'renamed' ? `renamed${f.from ? ` from ${f.from}` : ''}` : f.status === 'modified' ? '' : f.status;
  const notes = [status, undeclared ? NOT_DECLARED : ''].filter(Boolean);
  return `${f.path} ${lineCounts(f)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

/** One line per changed file, at most `max` (then "… N more files"). */
export function diffFileLines(diff: Pick<StepDiff, 'files' | 'undeclared'>, max = Infinity): string[] {
  const undeclared = new Set(diff.undeclared);
  const lines = diff.files.slice(0, max).map((f) => fileChangeText(f, undeclared.has(f.path)));
  if (diff.files.length > max) lines.push(`… ${plural(diff.files.length - max, 'more file')}`);
  return lines;
}

/**
 * Why two steps' +/- counts do not add up: the step changed files on top of the changes of `before`
 * (changedBefore), so where it rewrote their lines both count them. Null when it changed nobody's.
 */
export function overlapText(before: readonly LaterChange[]): string | null {
  if (before.length === 0) return null;
  const what = before.map((b) => `${b.files.join(', ')} on top of ${b.id}'s change`).join('; ');
  return `changed ${what}: where it rewrote those lines, both steps' +/- count them, so summed they exceed the net change`;
}

/** A step's result outdated where later steps changed its files on top of it (changedAfter); null when none did. */
export function changedSinceText(later: readonly LaterChange[]): string | null {
  if (later.length === 0) return null;
  return `${later.map((c) => `${c.id} changed ${c.files.join(', ')}`).join('; ')} since, on top of this step's change: where their results differ, the later one holds`;
}

/**
 * The diff for a tool result, which the orca agent reads on every call: the totals, the files (at
 * most `maxFiles`, undeclared ones flagged), the shared-tree caveat and where the whole patch is.
 */
export function diffDigest(diff: StepDiff, maxFiles = 10): { changed: string; files: string[]; undeclared?: string[]; note?: string; patch?: string } {
  return {
    changed: changeSummary(diff),
    files: diffFileLines(diff, maxFiles),
    ...(diff.undeclared.length ? { undeclared: diff.undeclared.slice(0, maxFiles) } : {}),
    ...(diff.where === 'shared' ? { note: SHARED_TREE_WORDS } : {}),
    ...(diff.patch_path ? { patch: diff.patch_path } : {}),
  };
}

/** How much of each conflict is shown: hunks per file, lines per hunk, characters per line. */
export interface ConflictCut {
  hunks: number;
  lines: number;
  width: number;
}

/** Enough to see what clashes at a gate; the whole of it is in the files and the patch. */
export const CONFLICT_CUT: ConflictCut = { hunks: 3, lines: 12, width: 160 };

/** A hunk as shown: terminal-safe, at most `cut.lines` lines of `cut.width` characters, then how many lines were left out. */
export function hunkLines(hunk: string, cut: Pick<ConflictCut, 'lines' | 'width'> = CONFLICT_CUT): string[] {
  const lines = forTerminal(hunk).replace(/\n+$/, '').split('\n');
  const shown = lines.slice(0, cut.lines).map((line) => (line.length > cut.width ? `${line.slice(0, cut.width - 1)}…` : line));
  if (lines.length > cut.lines) shown.push(`… ${plural(lines.length - cut.lines, 'more line')}`);
  return shown;
}

/** A conflicting file's hunks as shown (at most `cut.hunks`, each cut by hunkLines), then how many hunks were left out. */
export function conflictHunks(conflict: MergeConflict, cut: ConflictCut = CONFLICT_CUT): string[] {
  const hunks = conflict.hunks.slice(0, cut.hunks).map((hunk) => hunkLines(hunk, cut).join('\n'));
  if (conflict.hunks.length > cut.hunks) hunks.push(`… ${plural(conflict.hunks.length - cut.hunks, 'more conflicting region')}`);
  return hunks;
}

/** "a.ts, b.ts and 3 more": the conflicting files in one line. */
export function conflictPaths(conflicts: readonly MergeConflict[], max = 3): string {
  const paths = conflicts.map((c) => c.path);
  if (paths.length === 0) return 'no file named by git';
  return paths.length > max ? `${paths.slice(0, max).join(', ')} and ${paths.length - max} more` : paths.join(', ');
}
