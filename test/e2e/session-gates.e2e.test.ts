// Where the human reads: the conversation (issue 34), on the real opencode binary with Orca's own
// defaults. orca_ask_planner returns as soon as the plan waits for a person; each gate's whole
// document lands in the session as a note (no model turn) before its dialog opens, and the dialog
// asks only the decision, in a few rows, one key. The session stays free while the plan runs, and
// its gates still ask there; /orca-pause and /orca-resume pause and resume it from the session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialogRows } from '../../src/hitl/dialog-rows.js';
import { reportOnFailure } from '../support/failure-report.js';
import { longPlanProposal } from '../support/long-plan.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { dismiss, labels, nextQuestion, openQuestions, reply, type QuestionRequest } from './hitl-answers.js';
import { SHARED_TREE, agentOf, builtPluginUrl, jsonReply, passingReview, scenarioOf, userTurns } from './team.js';

const first = { ...longPlanProposal(10), goal: `SCENARIO:free ${longPlanProposal(10).goal}` };
/** The revision after Request Changes: step 3 reworded, the release step dropped. */
const revised = (() => {
  const steps = first.steps.slice(0, 9).map((s) => ({ ...s }));
  steps[2]!.description = `${steps[2]!.description} Keep the old message as a hint after the new one.`;
  return { ...first, steps };
})();
/** A real linter's failure: far longer than any dialog. */
const LINT_ERROR = `npm run lint failed with 40 problems:\n${Array.from({ length: 40 }, (_, i) => `src/cli.ts:${i + 10}:5 error  Unexpected any  @typescript-eslint/no-explicit-any (problem ${i + 1})`).join('\n')}\nend of lint output`;

let model: ScriptedModel;
/** The first step's turn, held while the session is used for something else and the plan paused. */
let releaseFirst: () => void = () => {};
const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  if (agent === 'orca') {
    const result = lastToolResult(req);
    if (!result) return { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
    return { text: `Relayed: ${JSON.parse(result.content).status}` };
  }
  if (agent === 'planner') {
    if (scenarioOf(req) === 'freeask') return jsonReply({ type: 'answer', content: 'four' });
    return jsonReply({ type: 'plan', ...(userTurns(req) === 1 ? first : revised) });
  }
  const review = passingReview(req);
  if (review) return review;
  const step = /Your step: ([\w.-]+)/.exec(req.lastUser)?.[1];
  if (step === 'parser-1') await firstHeld;
  if (step === 'cli-3') return jsonReply({ type: 'failure', error: LINT_ERROR });
  return jsonReply({ type: 'success', summary: `${agent} did ${step}`, artifacts: [], key_findings: [] });
}

type Part = { type: string; text?: string; synthetic?: boolean };
type Message = { info: { role: string }; parts: Part[] };
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('gates asked in the session that started the plan, the session free', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, SHARED_TREE]] }, orcaDefaults: true, requestTimeoutMs: 120_000 });
  }, 60_000);
  afterAll(async () => {
    releaseFirst();
    await server?.stop();
    await model?.close();
  });

  /** Every text the session shows, in order (Orca's notes are turns of its in-process stand-in). */
  const texts = async (sessionID: string) =>
    ((await server.client.session.messages({ sessionID })).data as unknown as Message[]).flatMap((m) => m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text ?? ''));
  const notesWith = async (sessionID: string, words: string) => (await texts(sessionID)).filter((t) => t.includes(words));
  /** Waits for a question matching `match` and checks it is the decision alone: one question, a few rows. */
  async function decision(match: RegExp, options: string[]): Promise<QuestionRequest> {
    const question = await nextQuestion(server, match, 90_000);
    expect(question.questions).toHaveLength(1);
    expect(labels(question)).toEqual(options);
    expect(dialogRows(question.questions[0]!.question)).toBeLessThanOrEqual(3);
    return question;
  }
  /** The index in the event log of the first event that carries a text part containing `words`. */
  const partEvent = (words: string) =>
    server.events.events.findIndex((e) => e.type === 'message.part.updated' && typeof e.properties?.part?.text === 'string' && e.properties.part.text.includes(words));
  async function command(sessionID: string, name: string, args = '') {
    const res = await server.fetch(`/session/${sessionID}/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: name, arguments: args }),
      timeoutMs: 30_000,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { parts: Part[] };
    return body.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
  }
  const orcaTurns = () => model.chatRequests().filter((r) => agentOf(r) === 'orca').length;
  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));

  it('posts each document before its one-key dialog, keeps the session free while the plan runs, and pauses and resumes it from the session', async () => {
    const session = (await server.client.session.create({ title: 'free session' })).data!;
    // 1. The turn ends at the approval gate: the call returned "asking", the session is idle.
    const turn = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:free make config errors readable' }] });
    expect(turn.error).toBeUndefined();
    const relayed = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
    const result = JSON.parse(lastToolResult(relayed)!.content);
    expect(result).toMatchObject({ status: 'asking', plan_id: expect.stringMatching(/^plan_/), waiting_for: 'approval', steps: 10 });
    const planId = result.plan_id as string;
    expect(relayed.system).toContain("- asking: the plan waits for the user's decision");

    // 2. The whole plan is in the session, as a note, before the dialog asks; the dialog asks only the decision.
    const approval = await decision(/^Approve plan_\w+ \(10 steps, above\)\?$/, ['Approve', 'Request Changes', 'Reject']);
    expect(dialogRows(approval.questions[0]!.question)).toBe(1); // every row of the dialog is a row less for the plan above it
    const [plan] = await notesWith(session.id, 'waits for your approval: 10 steps');
    expect(plan).toBeDefined();
    for (const [i, step] of first.steps.entries()) expect(flat(plan!)).toContain(flat(`Step ${i + 1} of 10: ${step.id} (${step.agent})`) + (step.depends_on ? `, after ${step.depends_on.join(', ')}` : '') + `: ${flat(step.description)}`);
    for (const item of [...first.assumptions, ...first.risks, ...first.verification]) expect(flat(plan!)).toContain(flat(item));
    const asked = server.events.events.findIndex((e) => e.type === 'question.asked' && e.properties?.id === approval.id);
    expect(partEvent('waits for your approval: 10 steps')).toBeGreaterThanOrEqual(0);
    expect(partEvent('waits for your approval: 10 steps')).toBeLessThan(asked);
    expect(orcaTurns()).toBe(2); // the call and Orca's sentence: the note and the dialog cost no model turn

    // 3. Esc: the plan waits at its gate, and the session says how to answer; /orca-resume asks again, document first.
    await dismiss(server, approval);
    await waitFor(async () => (await notesWith(session.id, 'The dialog was closed')).length === 1 || undefined, { timeoutMs: 30_000, description: 'the note after Esc' });
    expect(planFile(planId).waiting_for).toBe('approval');
    expect(await command(session.id, 'orca-resume')).toContain(`It waits for approval: what to read and the dialog follow here.`);
    const again = await decision(/^Approve plan_\w+ \(10 steps, above\)\?$/, ['Approve', 'Request Changes', 'Reject']);
    expect(await notesWith(session.id, 'waits for your approval: 10 steps')).toHaveLength(2);

    // 4. Request Changes: its words in a text field of their own; the revision's note starts with what changed, then the overview.
    await reply(server, again, [['Request Changes']]);
    const words = await nextQuestion(server, /^What should the planner change in plan plan_\w+\?/, 30_000);
    expect(words.questions[0]!.options).toEqual([]);
    // The TUI opens the text field only at its digit (or Enter): the dialog says so (issue 49.6).
    expect(words.questions[0]!.question).toContain('Press Enter (or 1), type your answer, then Enter.');
    await reply(server, words, [['Keep the old messages as hints']]);
    const second = await decision(/^Approve revised plan_\w+ \(9 steps, above\)\?$/, ['Approve', 'Request Changes', 'Reject']);
    const [revision] = await notesWith(session.id, 'waits for your approval (a revised version): 9 steps');
    expect(flat(revision!)).toContain(flat(`What changed since the version you saw: - removed release-10 (document-writer): ${first.steps[9]!.description}`));
    expect(revision!.indexOf('What changed since')).toBeLessThan(revision!.indexOf('Goal: '));
    expect(revision!.indexOf('Order: ')).toBeLessThan(revision!.indexOf('Step 1 of 9'));
    expect(flat(revision!)).toContain(flat(`- changed cli-3 description: ${first.steps[2]!.description} → ${revised.steps[2]!.description}`));
    await reply(server, second, [['Approve']]);

    // 5. The plan runs; the session answers another message meanwhile.
    await waitFor(() => planFile(planId).steps[0].status === 'running' || undefined, { timeoutMs: 30_000, description: 'the first step running' });
    const other = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:freeask what is 2+2' }] });
    expect(other.error).toBeUndefined();
    expect(planFile(planId).steps[0].status).toBe('running');

    // 6. /orca-pause stops it where it is; /orca-resume runs it again from its saved state, followed here.
    expect(await command(session.id, 'orca-pause')).toContain(`plan \`${planId}\` is paused and saved: 0 of 9 steps done, parser-1 (coder) was running.`);
    releaseFirst();
    expect(await command(session.id, 'orca-resume')).toMatch(/resumed: 0 of 9 steps done\./);
    // The first step's turn was stopped by the pause and left nothing to reuse: a file-changing step asks before running again.
    const interrupted = await decision(/^Step parser-1 \(coder\) was interrupted/, ['Re-run', 'Mark done', 'Stop']);
    expect(await notesWith(session.id, 'parser-1 (coder) of plan')).not.toHaveLength(0);
    await reply(server, interrupted, [['Re-run']]);

    // 7. A step fails: its whole error is in the session, fenced, before Retry / Replan / Stop.
    const failed = await decision(/^Step cli-3 \(coder\) failed \(1 failed attempt\); its error is above\. Retry, replan or stop\?$/, ['Retry', 'Replan', 'Stop']);
    const [error] = await notesWith(session.id, 'Orca: step cli-3 (coder) of plan');
    expect(error).toContain(`The error of its last attempt, in full:\n\`\`\`\n${LINT_ERROR}\n\`\`\``);
    await reply(server, failed, [['Stop']]);
    await waitFor(async () => (await notesWith(session.id, 'stopped, 2 of 9 steps done')).length === 1 || undefined, { timeoutMs: 30_000, description: 'the outcome note' });
    for (const done of [1, 2]) expect(await notesWith(session.id, `· ${done}/9 done`)).toHaveLength(1);
    expect(planFile(planId).status).toBe('failed');
    expect(await openQuestions(server)).toEqual([]);
    expect(orcaTurns()).toBe(4); // the two messages the user sent, nothing more
  }, 600_000);
});
