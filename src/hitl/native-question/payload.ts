import type { HitlQuestion } from '../../machines/types.js';
import { forTerminal, forTerminalLine } from '../../text/terminal.js';
import { errorMessage } from '../../errors.js';

/**
 * What the question model reads from the prompt's `system` text: the questions, in the shape of
 * OpenCode's `question` tool input. Carried in the request (not in memory) so the in-process model
 * is stateless; kept out of the user message so the session the user sees reads as a question,
 * not as JSON (the question tool part shows exactly what was asked).
 */
export interface QuestionPayload {
  v: 1;
  questions: ToolQuestion[];
}

/** One question as OpenCode 1.18's question tool takes it (option descriptions are required there). */
export interface ToolQuestion {
  header: string;
  question: string;
  options: Array<{ label: string; description: string }>;
  multiple?: boolean;
  custom?: boolean;
}

const OPEN = '<orca-hitl-question v="1">';
const CLOSE = '</orca-hitl-question>';

/**
 * The emitter's questions as the tool takes them: flags pass through; every text is made safe for
 * the terminal the TUI draws it on (a plan's goal or a step's error is model-written).
 */
export function toToolQuestions(questions: readonly HitlQuestion[]): ToolQuestion[] {
  return questions.map((q) => ({
    header: forTerminalLine(q.header),
    question: forTerminal(q.question),
    options: q.options.map((o) => ({ label: forTerminalLine(o.label), description: forTerminalLine(o.description ?? '') })),
    ...(q.multiple !== undefined ? { multiple: q.multiple } : {}),
    ...(q.custom !== undefined ? { custom: q.custom } : {}),
  }));
}

/** The payload between markers, for the prompt's `system` text. */
export function encodeQuestionPayload(questions: readonly HitlQuestion[]): string {
  const payload: QuestionPayload = { v: 1, questions: toToolQuestions(questions) };
  // `<` escaped so no string inside the JSON can close the marker early.
  const json = JSON.stringify(payload, null, 2).replace(/</g, '\\u003c');
  return `${OPEN}\n${json}\n${CLOSE}`;
}

/** The user message the human sees in the question's session: what is asked, and where to answer. */
export function questionMessage(title: string): string {
  return `${title}\nOrca asks you in a question dialog; your answer goes to the plan.`;
}

/** The payload in a message text, or an Error that says what was wrong with it. */
export function decodeQuestionPayload(text: string): QuestionPayload | Error {
  const start = text.lastIndexOf(OPEN);
  const end = text.indexOf(CLOSE, start);
  if (start < 0 || end < 0) return new Error(`Expected the system text to carry ${OPEN}…${CLOSE}.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start + OPEN.length, end));
  } catch (error) {
    return new Error(`Expected JSON between the question markers: ${errorMessage(error)}`);
  }
  const problem = payloadProblem(parsed);
  return problem ? new Error(`Expected a question payload: ${problem}.`) : (parsed as QuestionPayload);
}

function payloadProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value.v !== 1) return 'version 1';
  if (!Array.isArray(value.questions) || value.questions.length === 0) return 'at least one question';
  for (const [i, q] of value.questions.entries()) {
    if (!isRecord(q) || typeof q.question !== 'string' || typeof q.header !== 'string') return `question ${i} with header and question text`;
    if (!Array.isArray(q.options)) return `question ${i} with an options array`;
    if (!q.options.every((o) => isRecord(o) && typeof o.label === 'string' && typeof o.description === 'string')) {
      return `question ${i} with options of label and description`;
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
