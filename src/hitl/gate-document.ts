import type { Gate } from '../machines/gates.js';
import { diffLines } from '../machines/plan-diff.js';
import type { StepDiff, StepSpec } from '../machines/types.js';
import { changeSummary, conflictHunks, diffFileLines, SHARED_TREE_WORDS } from '../text/step-diff.js';

type ApprovalGate = Extract<Gate, { kind: 'approval' }>;
type DeviationGate = Extract<Gate, { kind: 'deviation' }>;
type MergeGate = Extract<Gate, { kind: 'merge' }>;

/**
 * Everything a human needs to read before deciding at a gate, in full: nothing cut, nothing only
 * counted. For an approval, the whole plan (goal, every step with agent, dependencies,
 * description, files and success criteria, assumptions, risks, verification, the forecast) and,
 * for a revision, every change against the version the human saw. For a failed step, its
 * description and its whole error (a failed review's error carries the reviewer's findings) and
 * what it really changed (git). For a step whose changes did not apply, the conflicting files with
 * their clashing regions (each cut: the whole is in the files and the patch), what git said, what
 * the step changed, and where to take its changes from by hand.
 * It comes in blocks (a step, the risks…): pages put a blank line between them and never split a
 * block they can keep whole; a question that holds it all puts them one under the other.
 * Other gates carry all they have in their question already: null.
 */
export function gateDocument(gate: Gate, { forecast }: { forecast?: string } = {}): string[] | null {
  switch (gate.kind) {
    case 'approval':
      return planDocument(gate, forecast);
    case 'deviation':
      return deviationDocument(gate);
    case 'merge':
      return mergeDocument(gate);
    default:
      return null;
  }
}

function planDocument(gate: ApprovalGate, forecast: string | undefined): string[] {
  const { proposal: p } = gate;
  const blocks = [`Plan ${gate.planId}: ${count(p.steps.length, 'step')}\nGoal: ${p.goal}`];
  if (gate.changes) blocks.push(`What changed since the version you saw:\n${diffLines(gate.changes).join('\n')}`);
  p.steps.forEach((step, i) => blocks.push(stepBlock(step, i, p.steps.length)));
  // Each list a block of its own, so a page never parts a heading from its items.
  if (p.assumptions.length + p.risks.length + p.verification.length === 0) blocks.push('No assumptions, risks or verification given.');
  else blocks.push(list('Assumptions', p.assumptions), list('Risks', p.risks), list('Verification', p.verification));
  if (p.relevant_files?.length) blocks.push(`Relevant files: ${p.relevant_files.join(', ')}`);
  if (gate.failing_before?.length) blocks.push(failingBeforeBlock(gate.failing_before));
  if (forecast) blocks.push(forecast);
  return blocks;
}

/** The configured checks that failed before the plan: not the plan's, as its verification will say. */
export function failingBeforeBlock(checks: NonNullable<ApprovalGate['failing_before']>): string {
  return `Failing before this plan (its verification reports them as old, not the plan's):\n${checks.map((c) => `- ${c.command}: ${c.lines[0] ?? 'fails'}`).join('\n')}`;
}

/** One step in full: id, agent, dependencies, description; its files, success criterion and whether it is safe to run twice. */
export function stepBlock(step: StepSpec, index: number, total: number): string {
  return [
    `Step ${index + 1} of ${total}: ${step.id} (${step.agent})${step.depends_on?.length ? `, after ${step.depends_on.join(', ')}` : ''}: ${step.description}`,
    ...(step.files?.length ? [`Files: ${step.files.join(', ')}`] : []),
    ...(step.success ? [`Done when: ${step.success}`] : []),
    ...(step.idempotent ? ['Safe to run twice (idempotent): re-runs after a crash without asking.'] : []),
  ].join('\n');
}

function deviationDocument(gate: DeviationGate): string[] {
  const attempts = count(gate.failures, 'failed attempt');
  return [
    `Plan ${gate.planId}: step ${gate.stepId} (${gate.agent}) failed (${attempts}).${gate.breaker ? `\n${gate.breaker}.` : ''}`,
    `The error of its last attempt, in full:\n${gate.error}`,
    ...(gate.diff ? [changedBlock(gate.diff, 'What the failed attempt changed')] : []),
  ];
}

function mergeDocument(gate: MergeGate): string[] {
  return [
    `Plan ${gate.planId}: step ${gate.stepId} (${gate.agent}), attempt ${gate.attempt}: its changes did not apply to your working tree ` +
      `(${gate.conflicts.length ? `conflicts in ${count(gate.conflicts.length, 'file')}` : 'git named no conflicting file'}). Your tree is as it was.`,
    ...gate.conflicts.map((c) => [`Conflict in ${c.path}:`, ...conflictHunks(c)].join('\n')),
    ...(gate.error ? [`What git said:\n${gate.error}`] : []),
    ...(gate.diff ? [changedBlock(gate.diff, 'What the step changed')] : []),
    resolveBlock(gate),
  ];
}

/** "What the step changed: 3 files +12 −4" and one line per file, undeclared ones flagged. */
export function changedBlock(diff: StepDiff, title: string): string {
  return [
    `${title}: ${changeSummary(diff)}`,
    ...diffFileLines(diff).map((line) => `- ${line}`),
    ...(diff.where === 'shared' ? [`(${SHARED_TREE_WORDS})`] : []),
  ].join('\n');
}

/** Where a person takes the step's changes from by hand. */
export function resolveBlock(gate: Pick<MergeGate, 'worktree' | 'diff'>): string {
  return [
    'To take its changes by hand, then answer Resolved by hand:',
    `- its worktree: ${gate.worktree ?? 'not kept'}`,
    `- its patch: ${gate.diff?.patch_path ?? 'not written'}`,
  ].join('\n');
}

/** "Risks:" and one "- item" line each, or "Risks: none". */
export const list = (title: string, items: readonly string[]) => `${title}:${items.length ? `\n${items.map((item) => `- ${item}`).join('\n')}` : ' none'}`;
export const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
