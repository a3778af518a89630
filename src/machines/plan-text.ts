import type { HitlQuestion, StepRecord } from './types.js';

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
