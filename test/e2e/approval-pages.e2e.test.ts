// An informed decision on the real opencode binary when the user asks for the dialog's pages
// (`ask_planner_returns: "outcome"`: the call follows the plan to its end, its session busy, so no
// note can be posted there): before Approve / Request Changes / Reject (and Retry / Replan / Stop)
// is asked, everything the human must read reaches the dialog in full, page by page, each page and
// each question within the rows the 1.18.33 TUI has at 80x24. By default the document is a note in
// the session instead (test/e2e/session-gates.e2e.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ROWS } from '../../src/hitl/dialog-pages.js';
import { APPROVAL_QUESTION_LINES, dialogRows } from '../../src/hitl/dialog-rows.js';
import { reportOnFailure } from '../support/failure-report.js';
import { longPlanProposal } from '../support/long-plan.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { labels, nextQuestion, reply, type QuestionRequest } from './hitl-answers.js';
import { SHARED_TREE, agentOf, builtPluginUrl, jsonReply, orcaResumeRelay, passingReview, scenarioOf, userTurns } from './team.js';

const first = { ...longPlanProposal(10), goal: `SCENARIO:long ${longPlanProposal(10).goal}` };
/** The revision after Request Changes: step 3 reworded, the release step dropped. */
const revised = (() => {
  const steps = first.steps.slice(0, 9).map((s) => ({ ...s }));
  steps[2]!.description = `${steps[2]!.description} Keep the old message as a hint after the new one.`;
  return { ...first, steps };
})();
/** A real linter's failure: far longer than the dialog. */
const LINT_ERROR = `npm run lint failed with 40 problems:\n${Array.from({ length: 40 }, (_, i) => `src/cli.ts:${i + 10}:5 error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any (problem ${i + 1})`).join('\n')}\nend of lint output`;

let model: ScriptedModel;
function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') return jsonReply({ type: 'plan', ...(userTurns(req) === 1 ? first : revised) });
  const review = passingReview(req);
  if (review) return review;
  if (/Your step: cli-3/.test(req.lastUser)) return jsonReply({ type: 'failure', error: LINT_ERROR });
  return jsonReply({ type: 'success', summary: `${agent} did it`, artifacts: [], key_findings: [] });
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('with ask_planner_returns "outcome": the whole plan, then the question, in the real dialog', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, { ask_planner_returns: 'outcome', ...SHARED_TREE }]] }, requestTimeoutMs: 180_000 });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  /** Reads on to the question matching `match`, returning it and the pages read before it. */
  async function readThenAsk(match: RegExp, enough?: (read: string[]) => boolean): Promise<{ pages: string[]; total: number; question: QuestionRequest }> {
    const pages: string[] = [];
    const question = await nextQuestion(server, match, 180_000, pages, enough);
    for (const page of pages) expect(dialogRows(page), page).toBeLessThanOrEqual(PAGE_ROWS);
    expect(dialogRows(question.questions[0]!.question)).toBeLessThanOrEqual(APPROVAL_QUESTION_LINES);
    // Each page's first row says where the reader is ("Page 3 of 12 · …"): the text read is the rest.
    for (const [i, page] of pages.entries()) expect(page).toMatch(new RegExp(`^Page ${i + 1} of \\d+ · `));
    const total = Number(/^Page \d+ of (\d+)/.exec(pages[0] ?? '')?.[1] ?? 0);
    return { pages: pages.map((page) => page.split('\n').slice(1).join('\n')), total, question };
  }

  it('shows every step in full before approval, every change in full before the revision, the whole error before Retry / Replan / Stop', async () => {
    const session = (await server.client.session.create({ title: 'long plan' })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:long make config errors readable' }] });

    // 1. The first version: goal, every step with agent, dependencies, description, files and criterion; the lists; the forecast.
    const one = await readThenAsk(/Approve plan plan_\w+\?$/);
    const read = flat(one.pages.join(' '));
    expect(one.pages.length).toBeGreaterThan(5);
    expect(read).toContain(flat(`Goal: ${first.goal}`));
    for (const [i, step] of first.steps.entries()) {
      const after = step.depends_on ? `, after ${step.depends_on.join(', ')}` : '';
      expect(read).toContain(flat(`Step ${i + 1} of 10: ${step.id} (${step.agent})${after}: ${step.description}`));
      expect(read).toContain(flat(`Files: ${step.files.join(', ')}`));
      expect(read).toContain(flat(`Done when: ${step.success}`));
    }
    for (const item of [...first.assumptions, ...first.risks, ...first.verification]) expect(read).toContain(flat(item));
    expect(read).toContain('Forecast: at least');
    expect(labels(one.question)).toEqual(['Approve', 'Request Changes', 'Reject']);
    await reply(server, one.question, [['Request Changes'], ['Keep the old messages as hints']]);

    // 2. The revision: what changed, in full, first; the reader goes to the decision once the changes are read.
    const two = await readThenAsk(/Approve plan plan_\w+\?$/, (read) => read.at(-1)!.includes('Step 1 of 9'));
    expect(two.pages.length).toBeLessThan(two.total);
    const changes = flat(two.pages.join(' '));
    expect(changes).toContain('What changed since the version you saw:');
    expect(changes).toContain(flat(`~ cli-3 description: ${first.steps[2]!.description} → ${revised.steps[2]!.description}`));
    expect(changes).toContain(flat(`- release-10 (document-writer): ${first.steps[9]!.description}`));
    expect(two.question.questions[0]!.question).toMatch(/Changed: /);
    await reply(server, two.question, [['Approve'], ['No guidance']]);

    // 3. Step cli-3 fails with a linter's long output: the whole of it first, then a question whose options stay on screen.
    const three = await readThenAsk(/^Step cli-3 \(coder\) failed/);
    expect(flat(three.pages.join(' '))).toContain(flat(LINT_ERROR));
    expect(three.question.questions[0]!.question).toContain('(The whole error was shown before this question.)');
    expect(labels(three.question)).toEqual(['Retry', 'Replan', 'Stop']);
    await reply(server, three.question, [['Stop'], ['No guidance']]);

    await done;
    const last = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === 'long').at(-1)!;
    expect(JSON.parse(lastToolResult(last)!.content).status).toBe('stopped');
  }, 600_000);
});
