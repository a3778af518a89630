import { waitFor, type OpencodeServer } from '../support/opencode-server.js';

export type QuestionRequest = {
  id: string;
  sessionID: string;
  questions: Array<{ header: string; question: string; options: Array<{ label: string; description?: string }>; custom?: boolean; multiple?: boolean }>;
};

/** The open question requests of the server (GET /question), as the TUI sees them. */
export async function openQuestions(server: OpencodeServer): Promise<QuestionRequest[]> {
  const res = await server.fetch('/question', { timeoutMs: 5_000 });
  if (!res.ok) throw new Error(`GET /question answered ${res.status}`);
  return (await res.json()) as QuestionRequest[];
}

/** Wait for a question whose first question text matches, then hand it back. */
export async function nextQuestion(server: OpencodeServer, match: RegExp, timeoutMs = 20_000): Promise<QuestionRequest> {
  return waitFor(
    async () => (await openQuestions(server)).find((q) => match.test(q.questions[0]?.question ?? '')),
    { timeoutMs, intervalMs: 100, description: `a question matching ${match}` },
  );
}

/** Answer as the TUI does: one array of labels (or typed text) per question. */
export async function reply(server: OpencodeServer, question: QuestionRequest, answers: string[][]): Promise<void> {
  const res = await server.fetch(`/question/${question.id}/reply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answers }),
    timeoutMs: 5_000,
  });
  if (!res.ok) throw new Error(`POST /question/${question.id}/reply answered ${res.status}: ${await res.text()}`);
}

export async function dismiss(server: OpencodeServer, question: QuestionRequest): Promise<void> {
  const res = await server.fetch(`/question/${question.id}/reject`, { method: 'POST', timeoutMs: 5_000 });
  if (!res.ok) throw new Error(`POST /question/${question.id}/reject answered ${res.status}`);
}

export const labels = (q: QuestionRequest, i = 0) => q.questions[i]!.options.map((o) => o.label);
