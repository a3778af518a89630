import type { Gate } from '../machines/gates.js';
import { diffLines } from '../machines/plan-diff.js';
import type { StepSpec } from '../machines/types.js';

type ApprovalGate = Extract<Gate, { kind: 'approval' }>;
type DeviationGate = Extract<Gate, { kind: 'deviation' }>;

/**
 * Everything a human needs to read before deciding at a gate, in full: nothing cut, nothing only
 * counted. For an approval, the whole plan (goal, every step with agent, dependencies,
 * description, files and success criteria, assumptions, risks, verification, the forecast) and,
 * for a revision, every change against the version the human saw. For a failed step, its
 * description and its whole error (a failed review's error carries the reviewer's findings).
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
  if (forecast) blocks.push(forecast);
  return blocks;
}

function stepBlock(step: StepSpec, index: number, total: number): string {
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
  ];
}

const list = (title: string, items: readonly string[]) => `${title}:${items.length ? `\n${items.map((item) => `- ${item}`).join('\n')}` : ' none'}`;
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
