import { readFileSync } from 'node:fs';
import type { FileChange, SpecialistId } from '../machines/types.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { RefusedError } from '../request-errors.js';
import { undoState } from './rewind-plan.js';

/**
 * What a plan (or one step) landed in the user's tree, step by step in the order they landed: the
 * patch git applied there (`orca diff`, `/orca-diff`, the viewer). A step an undo took back is named,
 * its patch left out, so the whole reads as what is in the tree now.
 */
export interface LandedSection {
  step: string;
  agent: SpecialistId;
  /** When it landed; null when Orca recorded no landing (no git, no change, a plan from before it was kept). */
  at: string | null;
  files: FileChange[];
  /** The patch, as git applied it (repository-relative paths); null when there is none to show. */
  patch: string | null;
  /** When an undo took it back (and no redo put it back since). */
  undoneAt: string | null;
}

export function landedSections(file: PlanFile, stepId?: string): LandedSection[] {
  if (stepId !== undefined && !file.steps.some((s) => s.id === stepId)) {
    throw new RefusedError(`Plan ${file.plan_id} has no step ${stepId}; its steps: ${file.steps.map((s) => s.id).join(', ')}.`);
  }
  const { undone } = undoState(file.undos ?? []);
  const undoneAt = (id: string) => (undone.has(id) ? ([...(file.undos ?? [])].reverse().find((u) => u.kind === 'undo' && u.steps.includes(id))?.at ?? null) : null);
  return file.steps
    .filter((s) => (stepId === undefined ? s.status === 'completed' || s.diff?.landed : s.id === stepId))
    .map((s) => {
      const landed = s.diff?.landed;
      const at = undoneAt(s.id);
      return {
        step: s.id,
        agent: s.agent,
        at: landed?.at ?? null,
        files: landed?.files ?? s.diff?.files ?? [],
        patch: landed?.patch_path && at === null ? readPatch(landed.patch_path) : null,
        undoneAt: at,
      };
    })
    .sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
}

function readPatch(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
