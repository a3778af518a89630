import type { HitlQuestion } from '../machines/types.js';
import { APPROVAL_OPTIONS, type Gate } from '../machines/gates.js';

/**
 * The questions a human sees for a gate. Plugin gates use the two-question pattern: the action
 * (fixed options, custom: false) and optional free text (custom: true). A planner's questions
 * pass through as the planner wrote them: the emitter owns the format.
 */
export function gateQuestions(gate: Gate): HitlQuestion[] {
  switch (gate.kind) {
    case 'question':
      return gate.questions;
    case 'approval': {
      const steps = gate.proposal.steps.map((s, i) => `${i + 1}. ${s.id} (${s.agent}): ${s.description}`).join('\n');
      return [
        {
          header: 'Plan approval',
          question: `Plan ${gate.planId}: ${gate.proposal.goal}\n${steps}\nApprove this plan?`,
          options: APPROVAL_OPTIONS.map((label) => ({ label, description: APPROVAL_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('Guidance for the planner (used with Request Changes), or a note for the record. Optional.'),
      ];
    }
    case 'deviation': {
      const attempts = `${gate.failures} failed attempt${gate.failures === 1 ? '' : 's'}`;
      // At an open breaker the auto policy stands aside: say why this question reached a human.
      const breaker = gate.breaker ? `${capitalize(gate.breaker)}.\n` : '';
      return [
        {
          header: (gate.breaker ? `Breaker: step ${gate.stepId}` : `Step ${gate.stepId} failed`).slice(0, 30),
          question:
            `Step ${gate.stepId} (${gate.agent}) failed (${attempts}): ${gate.error}\n${breaker}` +
            (gate.options.includes('Retry') ? 'What now?' : 'Retry is no longer offered after this many failures. What now?'),
          options: gate.options.map((label) => ({
            label,
            description: label === 'Retry' && gate.breaker ? BREAKER_RETRY_HELP : DEVIATION_HELP[label],
          })),
          custom: false,
        },
        guidanceQuestion('Guidance for the retry or the replan, or a note for the record. Optional.'),
      ];
    }
    case 'budget': {
      const steps = `${gate.completed} of ${gate.total} step${gate.total === 1 ? '' : 's'} completed`;
      return [
        {
          header: 'Dispatch budget spent',
          question:
            `Plan ${gate.planId} has used its dispatch budget: ${gate.dispatches} dispatches of the cap ${gate.cap} ` +
            `(specialist, reviewer and fixer turns); ${steps}. No new dispatch starts until you decide.\n` +
            `Continue allows ${gate.increment} more dispatches; Stop ends the plan as failed, keeping what is done.`,
          options: gate.options.map((label) => ({ label, description: BUDGET_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('A note for the record. Optional.'),
      ];
    }
  }
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const guidanceQuestion = (question: string): HitlQuestion => ({
  header: 'Guidance',
  question,
  options: [{ label: 'No guidance', description: 'Go on without a note' }],
  custom: true,
});

const APPROVAL_HELP: Record<string, string> = {
  Approve: 'Run the plan now',
  'Request Changes': 'Send your guidance to the planner for a revised plan',
  Reject: 'Drop this plan',
};
const DEVIATION_HELP: Record<string, string> = {
  Retry: 'Run this step again (with your guidance, if any)',
  Replan: 'Ask the planner for a revised plan; completed steps are kept',
  Stop: 'End the plan as failed',
};
const BREAKER_RETRY_HELP = 'Run this step again anyway: the same error keeps coming back, so guidance helps';
const BUDGET_HELP: Record<string, string> = {
  Continue: 'Raise the cap and go on with the plan',
  Stop: 'End the plan as failed; completed steps keep their outputs',
};

/** The human's answers to gateQuestions(gate), as a choice for decisionEvent. */
export function choiceFromAnswers(gate: Gate, answers: string[][]): { option: string; text?: string; answers?: string[][] } {
  if (gate.kind === 'question') return { option: 'answers', answers };
  const option = answers[0]?.[0] ?? '';
  const text = answers[1]?.[0];
  return { option, ...(text && text !== 'No guidance' ? { text } : {}) };
}
