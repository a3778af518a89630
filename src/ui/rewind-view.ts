import { isFinalPlanStatus, type FileChange } from '../machines/types.js';
import type { PlanFile, UndoRecord } from '../persistence/plan-file.js';
import { undoState } from '../rewind/rewind-plan.js';

/**
 * What the plan landed in the user's tree, and its undos, as the page's "What it landed" card shows
 * them. Which buttons it offers is a hint read from the plan file; what an Undo or Redo may do is the
 * rewind chart's to say, in the dry run the button asks for first.
 */
export interface RewindView {
  /** The plan has ended (completed, failed, rejected): only then can its changes be taken back. */
  ended: boolean;
  /** Undo… is offered: the plan ended and a step's landed changes are in the tree. */
  undo: boolean;
  /** Redo… is offered: the plan ended and an undo is there to put back. */
  redo: boolean;
  /** The steps whose landing Orca recorded, in the order they landed. */
  landed: LandedStepView[];
  /** The plan's undos and redos, oldest first. */
  records: UndoView[];
}

export interface LandedStepView {
  step: string;
  agent: string;
  at: string;
  files: FileChange[];
  /** When an undo took it back (and no redo put it back since). */
  undone_at: string | null;
}

export interface UndoView {
  kind: UndoRecord['kind'];
  at: string;
  steps: string[];
  channel: UndoRecord['channel'];
  files: FileChange[];
}

export function rewindView(file: PlanFile): RewindView {
  const records = file.undos ?? [];
  const undoneAt = undoneSince(records);
  const ended = isFinalPlanStatus(file.status);
  const landed = file.steps
    .flatMap((s): LandedStepView[] => (s.diff?.landed ? [{ step: s.id, agent: s.agent, at: s.diff.landed.at, files: s.diff.landed.files ?? s.diff.files, undone_at: undoneAt.get(s.id) ?? null }] : []))
    .sort((a, b) => a.at.localeCompare(b.at));
  return {
    ended,
    undo: ended && landed.some((s) => s.undone_at === null),
    redo: ended && undoState(records).stack.length > 0,
    landed,
    records: records.map(({ kind, at, steps, channel, files }) => ({ kind, at, steps, channel, files })),
  };
}

/** Each step out of the tree now, with the time of the undo that took it out. */
export function undoneSince(records: readonly UndoRecord[]): Map<string, string> {
  const { undone, stack } = undoState(records);
  const at = new Map<string, string>();
  for (const record of stack) for (const id of record.steps) if (undone.has(id)) at.set(id, record.at);
  return at;
}
