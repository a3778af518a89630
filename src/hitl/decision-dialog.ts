import { TEXT_NEEDED, type Gate } from '../machines/gates.js';
import type { HitlQuestion } from '../machines/types.js';
import { refusalOf } from '../decisions/decide.js';
import type { AskOutcome, QuestionAsker } from './native-question/index.js';
import { dialogRows, typingKeys, withTypingKeys } from './dialog-rows.js';
import { PAGE_ROWS } from './dialog-pages.js';

/**
 * The dialog under a gate's note (gate-note.ts): the decision only, on one screen, taken with one key.
 * OpenCode 1.18.33's dialog submits a single question at the digit of its option, so each gate is
 * one question of its own options; an option that needs your words (Request Changes, Mark done)
 * asks for them in a second dialog, a text field alone. The whole document is the note above it.
 */

/** A choice for decisionEvent: an option with its text, or the planner's questions answered. */
export type Choice = { option: string; text?: string; answers?: string[][] };

export type DecisionOutcome = { kind: 'chosen'; choice: Choice } | { kind: 'refused'; message: string } | Exclude<AskOutcome, { kind: 'answered' }>;

/** Asked again at most this often after an answer the gate does not take (a typed one, an empty text). */
const MAX_REASKS = 2;

/**
 * Rows a single question's text may take at 80x24 with three options (dialog-pages.ts PAGE_ROWS,
 * checked in tmux); each option fewer gives two rows more, and the tabs of several questions take one.
 */
const questionRows = (options: number, questions: number) => PAGE_ROWS + 2 * (3 - options) - (questions > 1 ? 1 : 0);

const HELP: Record<Exclude<Gate['kind'], 'question'>, Record<string, string>> = {
  approval: { Approve: 'Run the plan now', 'Request Changes': 'Then type what to change (or press %TYPING% and type it here)', Reject: 'Drop this plan' },
  deviation: {
    Retry: 'Run this step again',
    Replan: 'Ask the planner for a revised plan; completed steps are kept',
    Stop: 'End the plan as failed; completed steps keep their outputs',
  },
  merge: {
    'Run again on top': 'Run the step again from your tree as it is now',
    'Resolved by hand': 'You took its changes into your tree yourself: the step is done',
    Stop: 'End the plan as failed; completed steps keep their outputs',
  },
  budget: { Continue: 'Raise the limit that was reached and go on', Stop: 'End the plan as failed; completed steps keep their outputs' },
  resume: {
    'Re-run': 'Run the step again in its session (it may repeat changes it made)',
    'Mark done': 'Then type what it did: your words become its summary',
    Stop: 'End the plan as failed; completed steps keep their outputs',
  },
  verification: {
    Replan: 'Ask the planner for a revised plan, told what failed',
    'Accept as is': 'End the plan completed, the failed check on record',
    Stop: "End the plan as failed; the steps' changes stay in your tree",
  },
};

/** The decision, in a line or two: the document is in the note above. */
function ask(gate: Exclude<Gate, { kind: 'question' }>): string {
  switch (gate.kind) {
    case 'approval':
      // One row at 80x24 with a plan id: the dialog's every row is a row less for reading the plan above it.
      return `Approve ${gate.changes ? 'revised ' : ''}${gate.planId} (${gate.proposal.steps.length} steps, above)?`;
    case 'deviation':
      return (
        `Step ${gate.stepId} (${gate.agent}) failed (${gate.failures} failed attempt${gate.failures === 1 ? '' : 's'}${gate.breaker ? '; circuit breaker open' : ''}); its error is above. ` +
        (gate.options.includes('Retry') ? 'Retry, replan or stop?' : 'Retry is no longer offered. Replan or stop?')
      );
    case 'merge':
      return (
        `Step ${gate.stepId}'s changes did not apply to your tree; the conflicts are above. ` +
        (gate.options.includes('Run again on top') ? 'Run it again on top, resolved by hand, or stop?' : 'Resolved by hand, or stop?')
      );
    case 'budget':
      return `Plan ${gate.planId} reached its budget (what it spent is above). Continue or stop?`;
    case 'resume':
      return `Step ${gate.stepId} (${gate.agent}) was interrupted and may have changed files; what is known is above. Re-run it, mark it done, or stop?`;
    case 'verification':
      return `Every step landed, but plan ${gate.planId}'s verification failed in your project (above). Replan, accept as is, or stop?`;
  }
}

/** The dialog's question(s) for a gate, `note` (why it is asked again) on top. */
export function decisionQuestions(gate: Gate, note?: string): HitlQuestion[] {
  const top = note ? `Note: ${note}\n` : '';
  if (gate.kind === 'question') {
    // The planner's own questions; a text too long for the screen is cut (it is whole in the note above).
    // One that only takes typed words says which key opens its text field.
    return gate.questions.map((q, i) => {
      const text = `${i === 0 ? top : ''}${withTypingKeys(q).question}`;
      const rows = questionRows(q.options.length, gate.questions.length);
      return { ...q, question: dialogRows(text) <= rows ? text : `${cutToRows(text, rows - 1)}\n(In full in the note above.)` };
    });
  }
  const help = HELP[gate.kind];
  return [
    {
      header: HEADERS[gate.kind].slice(0, 30),
      question: `${top}${ask(gate)}`,
      // "Type your own answer" comes after the options: its digit is one more than theirs.
      options: gate.options.map((label) => ({ label, description: (help[label] ?? '').replace('%TYPING%', String(gate.options.length + 1)) })),
      // Approval: what you type is what the planner should change. Elsewhere the 1.18 dialog offers typing anyway (ignores custom: false).
      custom: gate.kind === 'approval',
    },
  ];
}

const HEADERS: Record<Exclude<Gate['kind'], 'question'>, string> = {
  approval: 'Plan approval',
  deviation: 'Failed step',
  merge: 'Changes not applied',
  budget: 'Budget reached',
  resume: 'Interrupted step',
  verification: 'Verification failed',
};

/** The text field alone, for an option that needs your words. */
export function textQuestion(gate: Gate, option: string): HitlQuestion {
  const what =
    option === 'Mark done' && 'stepId' in gate
      ? `What did step ${gate.stepId} do? Your words become its summary.`
      : `What should the planner change in plan ${gate.planId}?`;
  return { header: option.slice(0, 30), question: `${what}\n${typingKeys(1)} (Esc: the plan keeps waiting.)`, options: [], custom: true };
}

/**
 * The answers to decisionQuestions as a choice: the planner's questions' answers as they are; else an
 * option by its label (any case), and at the approval gate any other text is what the planner should
 * change (Request Changes with it). Anything else is returned as typed, for refusalOf to refuse.
 */
export function choiceOf(gate: Gate, answers: string[][]): Choice {
  if (gate.kind === 'question') return { option: 'answers', answers };
  const typed = (answers[0]?.[0] ?? '').trim();
  const option = (gate.options as readonly string[]).find((label) => label.toLowerCase() === typed.toLowerCase());
  if (option) return { option };
  if (gate.kind === 'approval' && typed && gate.options.includes('Request Changes')) return { option: 'Request Changes', text: typed };
  return { option: typed };
}

/**
 * Ask the gate's decision in the dialog until it is one the gate takes: a typed answer that is no
 * option, or an empty text where one is needed, is asked again with a note (at most twice), checked as
 * every channel checks it (refusalOf). Esc on either dialog is `dismissed`.
 */
export async function askDecision(
  asker: QuestionAsker,
  gate: Gate,
  { callerSessionId, title, signal }: { callerSessionId: string; title: string; signal: AbortSignal },
): Promise<DecisionOutcome> {
  let note: string | undefined;
  for (let asked = 0; ; asked++) {
    const questions = decisionQuestions(gate, note);
    const answer = await asker.ask({ callerSessionId, title, questions, signal });
    if (answer.kind !== 'answered') return answer;
    const choice = choiceOf(gate, answer.answers);
    if (TEXT_NEEDED[choice.option] && !choice.text?.trim()) {
      const text = await asker.ask({ callerSessionId, title, questions: [textQuestion(gate, choice.option)], signal });
      if (text.kind !== 'answered') return text;
      const words = text.answers[0]?.[0]?.trim();
      if (words) choice.text = words;
    }
    const refused = refusalOf(gate, choice, 'question');
    if (!refused) return { kind: 'chosen', choice };
    if (asked >= MAX_REASKS) return { kind: 'refused', message: refused.message };
    note = refused.message;
  }
}

/** `text` cut at a word to at most `rows` dialog rows, ending in "…". */
function cutToRows(text: string, rows: number): string {
  let out = '';
  for (const word of text.replace(/\s+/g, ' ').split(' ')) {
    const next = out ? `${out} ${word}` : word;
    if (dialogRows(`${next} …`) > rows) break;
    out = next;
  }
  return `${out} …`;
}
