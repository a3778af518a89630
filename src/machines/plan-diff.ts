import type { PlanProposal, StepSpec } from './types.js';

/** What changed between two versions of a plan: what a human approving the new one needs to see. */
export interface PlanDiff {
  goal?: { from: string; to: string };
  added: Array<Pick<StepSpec, 'id' | 'agent' | 'description'>>;
  removed: Array<Pick<StepSpec, 'id' | 'agent' | 'description'>>;
  changed: Array<{ id: string; agent: string; fields: Array<{ field: StepField; from: string; to: string }> }>;
  /** Steps completed before the revision that the new version keeps (they do not run again). */
  kept: string[];
  /** Steps present in both versions with nothing changed. */
  unchanged: number;
}

const STEP_FIELDS = ['agent', 'description', 'depends_on', 'files', 'success', 'idempotent'] as const;
type StepField = (typeof STEP_FIELDS)[number];

const show = (value: unknown) =>
  value === undefined ? '—' : Array.isArray(value) ? (value.length ? value.join(', ') : '—') : String(value);

/** `before` → `after`, steps matched by id; `completed` are the ids of steps done before the revision. */
export function diffProposals(before: PlanProposal, after: PlanProposal, completed: ReadonlySet<string>): PlanDiff {
  const old = new Map(before.steps.map((s) => [s.id, s]));
  const now = new Set(after.steps.map((s) => s.id));
  const brief = ({ id, agent, description }: StepSpec) => ({ id, agent, description });
  const diff: PlanDiff = {
    ...(before.goal !== after.goal ? { goal: { from: before.goal, to: after.goal } } : {}),
    added: after.steps.filter((s) => !old.has(s.id)).map(brief),
    removed: before.steps.filter((s) => !now.has(s.id)).map(brief),
    changed: [],
    kept: after.steps.filter((s) => completed.has(s.id)).map((s) => s.id),
    unchanged: 0,
  };
  for (const step of after.steps) {
    const was = old.get(step.id);
    if (!was) continue;
    const fields = STEP_FIELDS.filter((f) => show(was[f]) !== show(step[f])).map((field) => ({ field, from: show(was[field]), to: show(step[field]) }));
    if (fields.length > 0) diff.changed.push({ id: step.id, agent: step.agent, fields });
    else diff.unchanged += 1;
  }
  return diff;
}

export const isEmptyDiff = (d: PlanDiff) => !d.goal && d.added.length + d.removed.length + d.changed.length === 0;

/** Every change, one line each: for orca_describe_plan and `orca show`. */
export function diffLines(d: PlanDiff): string[] {
  if (isEmptyDiff(d)) return ['no change to the steps or the goal'];
  return [
    ...(d.goal ? [`goal: ${d.goal.from} → ${d.goal.to}`] : []),
    ...d.added.map((s) => `+ ${s.id} (${s.agent}): ${s.description}`),
    ...d.removed.map((s) => `- ${s.id} (${s.agent}): ${s.description}`),
    ...d.changed.flatMap((c) => c.fields.map((f) => `~ ${c.id} ${f.field}: ${f.from} → ${f.to}`)),
    ...(d.kept.length ? [`kept (completed, not run again): ${d.kept.join(', ')}`] : []),
  ];
}

/** At most `max` short lines for the approval dialog (the whole diff is one orca_describe_plan / orca show away). */
export function diffSummary(d: PlanDiff, max = 6): string[] {
  if (isEmptyDiff(d)) return ['No change to the steps or the goal.'];
  const lines = [
    ...(d.goal ? ['goal changed'] : []),
    ...d.added.map((s) => `+ ${s.id} (${s.agent})`),
    ...d.removed.map((s) => `- ${s.id} (${s.agent})`),
    ...d.changed.map((c) => `~ ${c.id}: ${c.fields.map((f) => f.field).join(', ')}`),
    ...(d.kept.length ? [`kept done: ${d.kept.join(', ')}`] : []),
  ];
  return lines.length <= max ? lines : [...lines.slice(0, max - 1), `… ${lines.length - max + 1} more (orca show)`];
}

/** A plan file's changes against the version before it (its last revision), or null when it has none. */
export function changesSinceRevision(file: {
  goal: string;
  steps: Array<StepSpec & { status: string }>;
  assumptions: string[];
  risks: string[];
  verification: string[];
  revisions: PlanProposal[];
}): PlanDiff | null {
  const previous = file.revisions.at(-1);
  if (!previous) return null;
  const current: PlanProposal = { goal: file.goal, steps: file.steps, assumptions: file.assumptions, risks: file.risks, verification: file.verification };
  return diffProposals(previous, current, new Set(file.steps.filter((s) => s.status === 'completed').map((s) => s.id)));
}
