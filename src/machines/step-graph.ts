import type { LaterChange, StepRecord } from './types.js';

/**
 * Where a step stands among the plan's others: the steps before and after it (by `depends_on`), the
 * ones beside it (no dependency either way), and whose changes were in the tree it worked in. Pure,
 * over the plan's step records.
 */

function reach(byId: Map<string, StepRecord>, from: StepRecord, next: (s: StepRecord) => string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...next(from)];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id) || !byId.has(id)) continue;
    seen.add(id);
    todo.push(...next(byId.get(id)!));
  }
  return seen;
}

/** The ids of the steps `step` depends on, directly or not. */
export function stepsBefore(steps: readonly StepRecord[], step: StepRecord): Set<string> {
  return reach(new Map(steps.map((s) => [s.id, s])), step, (s) => s.depends_on ?? []);
}

/** The steps with no dependency path to or from `step`: they may run before, beside or after it. */
export function stepsBeside(steps: readonly StepRecord[], step: StepRecord): StepRecord[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const dependents = new Map<string, string[]>();
  for (const s of steps) for (const d of s.depends_on ?? []) dependents.set(d, [...(dependents.get(d) ?? []), s.id]);
  const before = reach(byId, step, (s) => s.depends_on ?? []);
  const after = reach(byId, step, (s) => dependents.get(s.id) ?? []);
  return steps.filter((s) => s.id !== step.id && !before.has(s.id) && !after.has(s.id));
}

/** The steps beside `step` that have completed: their changes are in the user's tree, so in a tree made for it now. */
export const landedBeside = (steps: readonly StepRecord[], step: StepRecord): string[] =>
  stepsBeside(steps, step)
    .filter((s) => s.status === 'completed')
    .map((s) => s.id);

const changedPaths = (s: StepRecord) => new Set(s.diff?.files.map((f) => f.path) ?? []);

/** The files both completed steps changed, `later` with `earlier`'s change in its tree (it depends on it, or it had landed when its tree was made). */
function overlap(steps: readonly StepRecord[], earlier: StepRecord, later: StepRecord): string[] {
  if (earlier.id === later.id || earlier.status !== 'completed' || later.status !== 'completed' || !earlier.diff || !later.diff) return [];
  const mine = changedPaths(earlier);
  const files = [...changedPaths(later)].filter((path) => mine.has(path));
  if (files.length === 0) return [];
  return later.on_top_of?.includes(earlier.id) || stepsBefore(steps, later).has(earlier.id) ? files : [];
}

/**
 * The completed steps that changed some of the files `stepId` changed, later and on top of its
 * change. Where they differ, theirs is what the files hold now, and the two steps' line counts
 * overlap there. Only steps git measured count.
 */
export function changedAfter(steps: readonly StepRecord[], stepId: string): LaterChange[] {
  const step = steps.find((s) => s.id === stepId);
  if (!step) return [];
  return steps.flatMap((later) => {
    const files = overlap(steps, step, later);
    return files.length ? [{ id: later.id, agent: later.agent, files }] : [];
  });
}

/** The other way round: the completed steps whose changes `stepId` changed files of, on top of them. */
export function changedBefore(steps: readonly StepRecord[], stepId: string): LaterChange[] {
  const step = steps.find((s) => s.id === stepId);
  if (!step) return [];
  return steps.flatMap((earlier) => {
    const files = overlap(steps, earlier, step);
    return files.length ? [{ id: earlier.id, agent: earlier.agent, files }] : [];
  });
}

/**
 * Run again on top of the user's tree as it is now, for a step at the merge gate: the tree made for
 * it holds every step beside it completed so far (`on_top_of`), and `landed` names those among them
 * that were not in its last tree and changed a file whose change did not apply.
 */
export function runOnTopOf(steps: readonly StepRecord[], stepId: string): { on_top_of: string[]; landed: string[] } {
  const step = steps.find((s) => s.id === stepId);
  if (!step) return { on_top_of: [], landed: [] };
  const on_top_of = landedBeside(steps, step);
  const clashing = new Set((step.conflicts ?? []).map((c) => c.path));
  const before = new Set(step.on_top_of ?? []);
  const landed = on_top_of.filter((id) => {
    if (before.has(id)) return false;
    const other = steps.find((s) => s.id === id);
    return other?.diff?.files.some((f) => clashing.has(f.path)) ?? false;
  });
  return { on_top_of, landed };
}

/**
 * The plan's steps in the order they can start: each wave holds the steps whose dependencies are all
 * in earlier waves, so the steps of one wave may run at the same time (the plan's concurrency and, in
 * a shared tree, overlapping files may still hold some back). Ids in the plan's order; a step in a
 * cycle (refused before a plan is accepted) is left out.
 */
export function stepWaves(steps: ReadonlyArray<Pick<StepRecord, 'id' | 'depends_on'>>): string[][] {
  const waves: string[][] = [];
  const placed = new Set<string>();
  const known = new Set(steps.map((s) => s.id));
  for (;;) {
    const wave = steps.filter((s) => !placed.has(s.id) && (s.depends_on ?? []).every((d) => placed.has(d) || !known.has(d))).map((s) => s.id);
    if (wave.length === 0) return waves;
    wave.forEach((id) => placed.add(id));
    waves.push(wave);
  }
}
