import type { HitlQuestion, PlanVerification, StepRecord } from './types.js';

/** What the plan machine tells its planner: each is the next message the planner reads. */

/** The user's answers to the planner's own questions. */
export function answersMessage(questions: HitlQuestion[], answers: string[][]): string {
  const lines = questions.map((q, i) => `Q: ${q.question}\nA: ${(answers[i] ?? []).join(', ') || '(no answer)'}`);
  return `The user answered your questions:\n\n${lines.join('\n\n')}`;
}

/** Request Changes at the approval gate, with the user's words. */
export const changesRequestedMessage = (text: string) => `The user requested changes to the plan:\n${text}`;

/** Replan at a failed step's gate: what failed last, the user's guidance, and what survives a revision. */
export function replanMessage(step: StepRecord, guidance?: string): string {
  const last = step.failures.at(-1);
  return [
    `Step "${step.id}" (${step.agent}) failed and the user chose Replan.`,
    `Error of attempt ${last?.attempt ?? step.attempts}: ${last?.error ?? 'unknown'}`,
    guidance ? `User guidance: ${guidance}` : '',
    'Completed steps keep their outputs when you reuse their ids. Return a revised plan.',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Replan at the verification gate: each failed check with what it said, the user's guidance, and what survives a revision. */
export function verificationReplanMessage(verification: PlanVerification | null, guidance?: string): string {
  const failed = (verification?.checks ?? []).filter((c) => !c.passed);
  return [
    "Every step landed in the user's project, but the plan's verification failed there, and the user chose Replan.",
    ...failed.map((c) => `Failed: ${c.name}\n${c.output}`),
    verification?.changed.length ? `The verification changed these files: ${verification.changed.join(', ')}` : '',
    guidance ? `User guidance: ${guidance}` : '',
    "Completed steps keep their outputs when you reuse their ids; their changes are in the user's project already. Return a revised plan that makes the verification pass.",
  ]
    .filter(Boolean)
    .join('\n');
}
