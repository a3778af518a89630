import { errorSignature } from './error-signature.js';
import { landedBeside, runOnTopOf } from './step-graph.js';
import { mergeConflictText } from './step-text.js';
import type { FailedAttempt, FailureKind, InterruptedTurn, MergeConflict, PlanProposal, SpecialistResult, StepDiff, StepOutput, StepRecord } from './types.js';

/**
 * Pure updates of what the machines keep of each step: the plan's step records (one per step of
 * its proposal) and a step's failed attempts. Keys are removed, never set to undefined: a snapshot
 * must read the same after a JSON round trip.
 */

/**
 * New step records for a proposal; a completed step whose id survives a replan keeps its output.
 * A step id that survives keeps what its turns cost so far.
 */
export function stepRecords(proposal: PlanProposal, previous: StepRecord[]): StepRecord[] {
  return proposal.steps.map((spec) => {
    const kept = previous.find((p) => p.id === spec.id && p.status === 'completed');
    if (kept) return { ...kept, ...spec, status: 'completed', depends_on: spec.depends_on ?? [] };
    const { usage, usage_by_role } = previous.find((p) => p.id === spec.id) ?? {};
    return { ...spec, depends_on: spec.depends_on ?? [], status: 'pending', attempts: 0, failures: [], ...(usage ? { usage } : {}), ...(usage_by_role ? { usage_by_role } : {}) };
  });
}

/** A step whose actor is alive: its turn runs, or it waits at the deviation or merge gate. */
export const isActive = (s: StepRecord) => s.status === 'running' || s.status === 'awaiting_decision' || s.status === 'awaiting_merge';

export const updateStep = (steps: StepRecord[], id: string, patch: Partial<StepRecord>) =>
  steps.map((s) => (s.id === id ? { ...s, ...patch } : s));

/** The steps just spawned are running, each on top of the steps beside it that had landed (in the tree made for it). */
export function withRunning(steps: StepRecord[], started: StepRecord[]): StepRecord[] {
  const ids = new Set(started.map((s) => s.id));
  return steps.map((s) => {
    if (!ids.has(s.id)) return s;
    const { on_top_of: _old, landed_since: _since, ...rest } = s;
    const on_top_of = landedBeside(steps, s);
    return { ...rest, status: 'running' as const, ...(on_top_of.length ? { on_top_of } : {}) };
  });
}

/** A step's attempt failed: the step waits at the deviation gate with the failure (and the breaker, when open) recorded. */
export const withFailure = (
  steps: StepRecord[],
  p: { stepId: string; attempt: number; error: string; kind?: FailureKind; signature: string; breaker?: string },
) =>
  updateStep(steps, p.stepId, {
    status: 'awaiting_decision',
    attempts: p.attempt,
    failures: [
      ...(steps.find((s) => s.id === p.stepId)?.failures ?? []),
      { attempt: p.attempt, error: p.error, ...(p.kind ? { kind: p.kind } : {}), signature: p.signature },
    ],
    ...(p.breaker ? { breaker: p.breaker } : {}),
  });

/** The human's guidance, kept with the failure it answers (the last one). */
export const withGuidance = (failures: FailedAttempt[], guidance?: string) =>
  failures.map((f, i) => (i === failures.length - 1 && guidance ? { ...f, guidance } : f));

export const withStepGuidance = (steps: StepRecord[], stepId: string, guidance?: string) =>
  steps.map((s) => (s.id === stepId && guidance ? { ...s, failures: withGuidance(s.failures, guidance) } : s));

/**
 * Retry chosen: the step runs again in the same tree, its breaker and review round cleared; the
 * steps beside it that landed since its tree was made are recorded (`landed_since`: not in its copy),
 * so its prompt reads the same from the plan file later.
 */
export const withRetrying = (steps: StepRecord[], stepId: string) =>
  steps.map((step) => {
    if (step.id !== stepId) return step;
    const { breaker: _breaker, review_round: _round, landed_since: before = [], ...rest } = step;
    const inCopy = new Set(step.on_top_of ?? []);
    const since = [...new Set([...before, ...landedBeside(steps, step).filter((id) => !inCopy.has(id))])];
    return { ...rest, status: 'running' as const, ...(since.length ? { landed_since: since } : {}) };
  });

export const withCompleted = (steps: StepRecord[], p: { stepId: string; output: StepRecord['output']; warnings?: string[]; diff?: StepDiff }) =>
  steps.map((s) => {
    if (s.id !== p.stepId) return s;
    const { conflicts: _conflicts, ...rest } = s;
    return { ...rest, status: 'completed' as const, output: p.output, ...(p.warnings?.length ? { warnings: p.warnings } : {}), ...(p.diff ? { diff: p.diff } : {}) };
  });

/** The step's changes did not apply to the user's tree: it waits at the merge gate with what clashed. */
export const withMergeConflict = (steps: StepRecord[], p: { stepId: string; attempt: number; conflicts: MergeConflict[]; error?: string; diff?: StepDiff }) =>
  updateStep(steps, p.stepId, { status: 'awaiting_merge', attempts: p.attempt, conflicts: p.conflicts, ...(p.diff ? { diff: p.diff } : {}) });

/**
 * Run again on top: the clash becomes the attempt's failure (what clashed, the steps that landed in
 * those files first, the human's guidance) and the step runs again in a tree made from the user's
 * as it is now, on top of every step beside it completed so far.
 */
export const withRunOnTop = (steps: StepRecord[], stepId: string, guidance?: string) => {
  const { on_top_of, landed } = runOnTopOf(steps, stepId);
  return steps.map((s) => {
    if (s.id !== stepId) return s;
    const { conflicts = [], on_top_of: _old, landed_since: _since, ...rest } = s;
    const failure = mergeFailure(s.attempts, { conflicts }, landed);
    return {
      ...rest,
      status: 'running' as const,
      ...(on_top_of.length ? { on_top_of } : {}),
      failures: [...s.failures, { ...failure, ...(guidance ? { guidance } : {}) }],
    };
  });
};

/** A clash at the merge gate as the failure of its attempt: the text, and what clashed with which steps' changes. */
export const mergeFailure = (attempt: number, merge: { conflicts: MergeConflict[]; error?: string }, landed: string[]): FailedAttempt => ({
  ...failedAttempt(attempt, { error: mergeConflictText(merge, landed), kind: 'merge' }),
  ...(merge.conflicts.length ? { conflicts: merge.conflicts } : {}),
  ...(landed.length ? { landed } : {}),
});

/** The plan stopped: every running step, and every one waiting for a decision, is stopped. */
export const withStopped = (steps: StepRecord[]) => steps.map((s) => (isActive(s) ? { ...s, status: 'stopped' as const } : s));

/** A failed attempt as a step records it, with the signature the breaker compares. */
export const failedAttempt = (attempt: number, p: { error: string; kind: FailureKind }): FailedAttempt => ({
  attempt,
  error: p.error,
  kind: p.kind,
  signature: errorSignature(p.error),
});

/** A specialist's successful result as the step's output (what later steps are threaded); null otherwise. */
export const stepOutputOf = (result: SpecialistResult | InterruptedTurn): StepOutput | null =>
  result.type === 'success' ? { summary: result.summary, artifacts: result.artifacts, key_findings: result.key_findings ?? [] } : null;

/** Failures of attempts that never reached the specialist: their tree, if any, holds nothing of theirs. */
const NEVER_RAN: ReadonlySet<string> = new Set(['pre_hook', 'session', 'workspace']);

/**
 * The earlier attempts whose changes are still in the tree the next attempt works in: a Retry goes on
 * in the same tree (the step chart keeps its workspace) and undoes nothing, while Run again on top
 * starts from the user's tree as it is now. So: those after the last clash at the merge gate that
 * reached the specialist.
 */
export function keptAttempts(failures: readonly FailedAttempt[]): number[] {
  const lastClash = failures.findLastIndex((f) => f.kind === 'merge');
  return failures
    .slice(lastClash + 1)
    .filter((f) => !f.kind || !NEVER_RAN.has(f.kind))
    .map((f) => f.attempt);
}
