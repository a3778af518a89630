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

/** A page Orca shows before a decision when the question cannot hold all there is to read (src/hitl/dialog-pages.ts). */
export const isPage = (q: QuestionRequest) => q.questions.length === 1 && /^Page \d+\/\d+$/.test(q.questions[0]!.header);

/**
 * Wait for a question whose first question text matches, then hand it back. Pages shown before a
 * decision are read on the way, as a person reading on does ("Next page"), and kept in `read`.
 */
export async function nextQuestion(
  server: OpencodeServer,
  match: RegExp,
  // The first question of a server also starts its first model turns: slow on a loaded 2-core machine.
  timeoutMs = 45_000,
  read: string[] = [],
  /** Goes straight to the decision (the page's "To the decision") once this holds for the pages read so far. */
  enough: (read: string[]) => boolean = () => false,
): Promise<QuestionRequest> {
  const look = questionWatch(() => server, 1_000);
  return waitFor(
    async () => {
      if (!look.due()) return undefined;
      try {
        const open = await openQuestions(server);
        const found = open.find((q) => !isPage(q) && match.test(q.questions[0]?.question ?? ''));
        if (found) return found;
        await readOn(server, open, read, enough);
        return undefined;
      } catch (error) {
        look.again();
        throw error;
      }
    },
    { timeoutMs, intervalMs: 50, description: `a question matching ${match}` },
  );
}

/**
 * Whether to look at the open dialogs now. A GET /question costs the server some 30 ms of CPU (measured with
 * 1.18.33 on a 2-core machine): polled every 50–100 ms it kept the server busy beside the plans' turns. So
 * look at once, then when a question was asked since the last look (its `question.asked` event), and every
 * `fallbackMs` in case one went by unseen. `server` is read at each call: a restart brings a new event log.
 */
export function questionWatch(server: () => OpencodeServer, fallbackMs: number): { due: () => boolean; again: () => void } {
  let watched: { events: OpencodeServer['events']['events']; seen: number; lookedAt: number } | undefined;
  return {
    due: () => {
      const events = server().events.events;
      if (watched?.events !== events) watched = { events, seen: 0, lookedAt: 0 };
      let asked = false;
      for (; watched.seen < events.length; watched.seen++) if (events[watched.seen]!.type === 'question.asked') asked = true;
      if (!asked && Date.now() - watched.lookedAt < fallbackMs) return false;
      watched.lookedAt = Date.now();
      return true;
    },
    /** A look that failed half-way: look again at the next poll. */
    again: () => {
      if (watched) watched.lookedAt = 0;
    },
  };
}

/** Reads on past the open pages among `open` (all open questions when not given), keeping their texts in `read`. */
export async function readOn(server: OpencodeServer, open?: QuestionRequest[], read: string[] = [], enough: (read: string[]) => boolean = () => false): Promise<void> {
  for (const page of (open ?? (await openQuestions(server))).filter(isPage)) {
    read.push(page.questions[0]!.question);
    const options = page.questions[0]!.options.map((o) => o.label);
    await reply(server, page, [[enough(read) && options.includes('To the decision') ? 'To the decision' : options[0]!]]);
  }
}

/**
 * How long an answer to a question may take to be accepted: a local request, but the server may be
 * starting a step's worktree and its instance as the approval lands, and the machine may be busy (the
 * demo e2e met 5 s beside `npm run bench`).
 */
const ANSWER_TIMEOUT_MS = 30_000;

/** Answer as the TUI does: one array of labels (or typed text) per question. */
export async function reply(server: OpencodeServer, question: QuestionRequest, answers: string[][]): Promise<void> {
  const res = await server.fetch(`/question/${question.id}/reply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answers }),
    timeoutMs: ANSWER_TIMEOUT_MS,
  });
  if (!res.ok) throw new Error(`POST /question/${question.id}/reply answered ${res.status}: ${await res.text()}`);
}

export async function dismiss(server: OpencodeServer, question: QuestionRequest): Promise<void> {
  const res = await server.fetch(`/question/${question.id}/reject`, { method: 'POST', timeoutMs: ANSWER_TIMEOUT_MS });
  if (!res.ok) throw new Error(`POST /question/${question.id}/reject answered ${res.status}`);
}

export const labels = (q: QuestionRequest, i = 0) => q.questions[i]!.options.map((o) => o.label);
