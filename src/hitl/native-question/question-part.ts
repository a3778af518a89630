import { quote } from '../../text/quote.js';

/** The question tool's part in the child session, reduced to what decides the outcome. */
export type QuestionPartState =
  | { status: 'pending' | 'running' }
  | { status: 'completed'; answers: unknown }
  | { status: 'error'; error: string };

/** What the tool part says about the human's reply. */
export type PartOutcome = { kind: 'answered'; answers: string[][] } | { kind: 'dismissed' } | { kind: 'unavailable'; reason: string };

/** OpenCode 1.18's error text when the human dismisses the dialog (Esc, POST /question/:id/reject). */
const DISMISSED = /dismissed/i;

/** The question tool part among a session's messages (the v1 `session.messages` shape), last one wins. */
export function findQuestionPart(messages: unknown): QuestionPartState | undefined {
  if (!Array.isArray(messages)) return undefined;
  let found: QuestionPartState | undefined;
  for (const message of messages as Array<{ parts?: unknown }>) {
    for (const part of Array.isArray(message?.parts) ? (message.parts as Array<Record<string, any>>) : []) {
      if (part?.type !== 'tool' || part.tool !== 'question') continue;
      const state = part.state ?? {};
      if (state.status === 'completed') found = { status: 'completed', answers: state.metadata?.answers };
      else if (state.status === 'error') found = { status: 'error', error: String(state.error ?? 'unknown error') };
      else found = { status: state.status === 'running' ? 'running' : 'pending' };
    }
  }
  return found;
}

/** The outcome a finished question part stands for; anything unexpected is `unavailable` with why. */
export function partOutcome(part: QuestionPartState | undefined, questionCount: number): PartOutcome {
  if (!part) return { kind: 'unavailable', reason: 'the child session has no question tool part' };
  switch (part.status) {
    case 'completed':
      if (!isAnswers(part.answers)) {
        return { kind: 'unavailable', reason: `expected state.metadata.answers to be string[][], got ${quote(part.answers)}` };
      }
      if (part.answers.length !== questionCount) {
        return { kind: 'unavailable', reason: `expected ${questionCount} answer arrays, got ${part.answers.length}` };
      }
      return { kind: 'answered', answers: part.answers };
    case 'error':
      return DISMISSED.test(part.error) ? { kind: 'dismissed' } : { kind: 'unavailable', reason: `the question tool failed: ${part.error}` };
    default:
      return { kind: 'unavailable', reason: `the question tool part is still ${part.status} after the run ended` };
  }
}

function isAnswers(value: unknown): value is string[][] {
  return Array.isArray(value) && value.every((a) => Array.isArray(a) && a.every((s) => typeof s === 'string'));
}
