import type { FileChange } from '../machines/types.js';
import { landedSections } from '../rewind/landed-diff.js';
import { landedDiffLines, type DiffLine } from '../rewind/rewind-words.js';
import type { PlanRead } from './plan-source.js';

/**
 * What GET /api/plans/:id/diff answers: what the plan (or one step) landed in the user's working tree,
 * step by step in the order they landed, each patch as `orca diff` prints it (the same sections, the
 * same line kinds), so the page colours it without parsing a patch. A model wrote much of it: the page
 * shows every line as text.
 */
export interface DiffView {
  plan_id: string;
  /** The step asked for, or null for the whole plan. */
  step: string | null;
  sections: DiffSection[];
  /** Set when the lines were cut at MAX_DIFF_BYTES: says so, and what prints them all. */
  cut: string | null;
}

export interface DiffSection {
  step: string;
  agent: string;
  /** When it landed; null when Orca recorded no landing. */
  at: string | null;
  /** When an undo took it back (no redo put it back since); its patch is then left out. */
  undone_at: string | null;
  files: FileChange[];
  /** The section in words, as `orca diff` heads it (without its `#`). */
  title: string;
  /** The patch's lines, each with its kind (added, removed, hunk, or none). */
  lines: DiffLine[];
}

/** About 400 KB of patch text in one answer: beyond that a browser's page stops being readable, the terminal is the place. */
export const MAX_DIFF_BYTES = 400_000;

export function diffView({ file }: PlanRead, step: string | null, maxBytes = MAX_DIFF_BYTES): DiffView {
  let budget = maxBytes;
  let cut = false;
  const sections = landedSections(file, step ?? undefined).map((section): DiffSection => {
    const [head, ...patch] = landedDiffLines(file.plan_id, [section]);
    const lines: DiffLine[] = [];
    for (const line of patch) {
      const size = Buffer.byteLength(line[0], 'utf8') + 1;
      if (cut || size > budget) {
        cut = true;
        break;
      }
      budget -= size;
      lines.push(line);
    }
    return { step: section.step, agent: section.agent, at: section.at, undone_at: section.undoneAt, files: section.files, title: head![0].replace(/^# /, ''), lines };
  });
  return {
    plan_id: file.plan_id,
    step,
    sections,
    cut: cut ? `Cut at ${Math.round(maxBytes / 1000)} KB: orca diff ${file.plan_id}${step ? ` --step ${step}` : ''} prints it all.` : null,
  };
}
