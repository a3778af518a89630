// What the person in the chair sees when nobody follows a plan, on the real opencode binary:
// a plan decided by /orca-approve or `orca decide` reports to its session without a model turn,
// and a plan whose Orca turn was aborted (Esc) says it is paused, and is listed as paused.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { dismiss, nextQuestion } from './hitl-answers.js';
import { findNote } from '../support/said-notes.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview, scenarioOf } from './team.js';

let model: ScriptedModel;
let releaseSlowCoder: () => void = () => {};
const slowCoder = new Promise<void>((resolve) => (releaseSlowCoder = resolve));

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') {
    if (req.lastUser.includes('LIST PLANS')) return lastToolResult(req) ? { text: 'listed' } : { toolCalls: [{ name: 'orca_list_plans', arguments: {} }] };
    return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  }
  if (agent === 'planner') {
    return jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: [{ id: 's1', agent: 'coder', description: 'do s1' }], assumptions: [], risks: [], verification: [] });
  }
  if (agent === 'coder') {
    if (scenario === 'paused') await slowCoder; // still running when the Orca turn is aborted
    return jsonReply({ type: 'success', summary: `coder did ${scenario}`, artifacts: [] });
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent}`);
}

type Message = { info: { role: string; agent?: string; providerID?: string }; parts: Array<{ type: string; text?: string; synthetic?: boolean }> };

describe('a plan nobody follows reports to its session', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [builtPluginUrl], requestTimeoutMs: 60_000 });
  }, 60_000);
  afterAll(async () => {
    releaseSlowCoder();
    await server?.stop();
    await model?.close();
  });

  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  const messages = async (sessionID: string) => (await server.client.session.messages({ sessionID })).data as unknown as Message[];
  const visible = (m: Message) => m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text).join('');
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli', 'main.js'), ...args, '--dir', server.projectDir], { encoding: 'utf8', timeout: 20_000 });

  /** A plan of a new session, left waiting for approval (the dialog dismissed, the Orca turn over). */
  async function waitingForApproval(scenario: string) {
    const session = (await server.client.session.create({ title: scenario })).data!;
    const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
    await dismiss(server, await nextQuestion(server, new RegExp(`SCENARIO:${scenario} goal`)));
    await turn;
    const last = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === scenario).at(-1)!;
    return { session, planId: JSON.parse(lastToolResult(last)!.content).plan_id as string };
  }

  it('/orca-approve: the reply shows once, and the outcome is posted in the session with no model request', async () => {
    const { session, planId } = await waitingForApproval('approved');
    const before = model.requests.length;
    const res = await server.fetch(`/session/${session.id}/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'orca-approve', arguments: '' }),
      timeoutMs: 20_000,
    });
    expect(res.status).toBe(200);
    // The outcome (notices/outcome-note.ts): the step, its review, what it landed; the rest is the outcome note's own test.
    const outcome = forMarkdown(`Orca: plan ${planId} completed, 1 of 1 step done: SCENARIO:approved goal\n✓ s1 (coder) done · review passed in round 1\n`);
    const all = await waitFor(
      async () => {
        const list = await messages(session.id);
        // The outcome, then the hidden message that gives the session its own model back.
        const at = list.findIndex((m) => m.info.role === 'assistant' && m.parts.some((p) => p.text?.startsWith(outcome)));
        return at > 0 && list.length === at + 2 ? list : undefined;
      },
      { timeoutMs: 30_000, description: 'the outcome posted in the session' },
    );
    // The command: the user's message shows it as typed; the note rides hidden and is said once, as the reply.
    // Progress notes may come between the reply and the outcome, as many as the plan's pace allows.
    const at = all.findIndex((m) => m.info.role === 'user' && visible(m) === '/orca-approve');
    expect(at).toBeGreaterThan(0);
    const [command, reply] = all.slice(at, at + 2);
    const [note, posted, restored] = all.slice(-3);
    expect(command!.parts.filter((p) => p.synthetic).map((p) => p.text)).toEqual([expect.stringMatching(/^orca-hitl note: Orca: Approve recorded/)]);
    expect(visible(reply!)).toBe(forMarkdown(`Orca: Approve recorded for plan ${planId}. It runs now; its outcome will be posted in this session.`));
    // The outcome: a hidden note, said back by the in-process model under the hidden orca-hitl agent
    // (the TUI keeps the user's own agent and model when it reopens the session).
    expect(visible(note!)).toBe('');
    expect(note!.info.agent).toBe('orca-hitl');
    expect(posted!.info.providerID).toBe('orca-hitl');
    expect(visible(restored!)).toBe('');
    expect(restored!.info.agent).toBe('orca');
    // A later prompt that names no model runs on the session's own model, not on the stand-in.
    expect((await server.client.session.get({ sessionID: session.id })).data).toMatchObject({ agent: 'orca', model: { providerID: 'fake' } });
    expect(planFile(planId).status).toBe('completed');
    // Only the plan's own work reached the model: the coder and its reviewer.
    expect(model.requests.slice(before).map(agentOf).filter((a) => !['coder', 'reviewer'].includes(a))).toEqual([]);
  }, 90_000);

  it('orca decide: the session is told of the decision, then of the outcome', async () => {
    const { session, planId } = await waitingForApproval('decided');
    const before = model.requests.length;
    const run = cli('decide', planId, 'approve', '--message', 'ship it');
    expect([run.status, run.stderr]).toEqual([0, '']);
    const decided = forMarkdown(`Orca: Approve recorded for plan ${planId} with orca decide ("ship it"). It runs now; its outcome will be posted here.`);
    const outcome = forMarkdown(`Orca: plan ${planId} completed, 1 of 1 step done: SCENARIO:decided goal\n✓ s1 (coder) done`);
    const texts = await waitFor(
      async () => {
        const list = (await messages(session.id)).filter((m) => m.info.role === 'assistant').map(visible);
        return findNote(list, forMarkdown(`Orca: plan ${planId} completed`)) ? list : undefined;
      },
      { timeoutMs: 30_000, description: 'the outcome posted in the session' },
    );
    // The decision, then the outcome right after it: two texts, or one when the outcome was held while the decision was said.
    const said = texts.join('\n\n');
    const expected = `${decided}\n\n${outcome}`;
    expect(said.slice(said.lastIndexOf(decided), said.lastIndexOf(decided) + expected.length)).toBe(expected);
    expect(model.requests.slice(before).map(agentOf).filter((a) => !['coder', 'reviewer'].includes(a))).toEqual([]);
  }, 90_000);

  it('an aborted Orca turn leaves its plan paused: said in the session, listed as paused by orca plans and orca_list_plans', async () => {
    const session = (await server.client.session.create({ title: 'paused' })).data!;
    const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:paused' }] });
    const approval = await nextQuestion(server, /SCENARIO:paused goal/);
    const res = await server.fetch(`/question/${approval.id}/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [['Approve'], ['No guidance']] }),
      timeoutMs: 5_000,
    });
    expect(res.ok).toBe(true);
    await waitFor(() => model.chatRequests().some((r) => agentOf(r) === 'coder' && scenarioOf(r) === 'paused'), { timeoutMs: 20_000, description: 'the coder at work' });
    await server.client.session.abort({ sessionID: session.id });
    await turn.catch(() => {}); // the aborted turn
    const paused = await waitFor(
      async () => (await messages(session.id)).map(visible).find((t) => t.includes('is paused and saved')),
      { timeoutMs: 20_000, description: 'the paused note in the session' },
    );
    const planId = /plan `(plan_\w+)` is paused/.exec(paused)![1]!;
    expect(paused).toBe(
      forMarkdown(
        `Orca: plan ${planId} is paused and saved: 0 of 1 steps done, s1 (coder) was running. Nothing runs it until it is resumed: ` +
          `type /orca-resume ${planId} (or ask Orca to continue plan ${planId}) and it goes on from its saved state. orca show ${planId} shows where it stopped.`,
      ),
    );

    const plans = cli('plans');
    expect(plans.stdout).toMatch(new RegExp(`^${planId}\\s+in_progress\\s+paused\\s+SCENARIO:paused goal`, 'm'));

    // In the same session, after the note: Orca still has its tools (a note must not change the session's permissions).
    await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'LIST PLANS' }] });
    expect((await server.client.session.get({ sessionID: session.id })).data!.permission ?? []).toEqual([]);
    const listed = model.chatRequests().filter((r) => agentOf(r) === 'orca' && r.lastUser.includes('LIST PLANS')).at(-1)!;
    const entry = JSON.parse(lastToolResult(listed)!.content).plans.find((p: { plan_id: string }) => p.plan_id === planId);
    expect(entry).toMatchObject({ status: 'in_progress', activity: 'paused', resume: expect.stringContaining(`orca_ask_planner with plan_id ${planId}`) });
  }, 90_000);
});
