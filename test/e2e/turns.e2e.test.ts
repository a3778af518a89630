// Every turn Orca starts, on the real opencode binary with the scripted model: the text protocol
// by default (so OpenCode can list every child session, and the TUI shows it), child sessions that
// say what they are, a finished turn reused after kill -9, and a model that refuses structured
// output falling back to the text protocol.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { writePluginFile, type PluginFile } from '../support/plugin-file.js';
import { nextQuestion, reply } from './hitl-answers.js';
import { agentOf, builtPluginUrl, jsonReply, orcaResumeRelay, passingReview, scenarioOf } from './team.js';
import { allSessions } from '../support/all-sessions.js';

const REFUSAL = 'Thinking mode does not support this tool_choice';
const ok = (summary: string) => jsonReply({ type: 'success', summary, artifacts: [], key_findings: [] }, `I did it: ${summary}.`);
const plan = (scenario: string, steps: Array<{ id: string; agent: string; depends_on?: string[] }>) =>
  jsonReply(
    { type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: steps.map((s) => ({ description: `do ${s.id}`, ...s })), assumptions: [], risks: [], verification: [] },
    'Here is the plan.',
  );
const stepOf = (req: RecordedRequest) => /# Your step: (\w+)/.exec(req.lastUser)?.[1];
/** A request that starts a turn (its last message is the user's), not one answering a tool result. */
const startsTurn = (req: RecordedRequest) => req.messages.at(-1)?.role === 'user';
/** Structured output's forced tool choice, as OpenCode sends it. */
const forcesToolChoice = (req: RecordedRequest) => req.tools.includes('StructuredOutput') && req.body.tool_choice !== undefined && req.body.tool_choice !== 'auto';

type Journal = Array<{ kind: string; [key: string]: unknown }>;
const planFileOf = (server: OpencodeServer, planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
const journalOf = (server: OpencodeServer, planId: string): Journal =>
  readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.journal.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Start an Orca turn without waiting for it (it blocks while the plan runs or waits on the human). */
async function startTurn(server: OpencodeServer, text: string) {
  const session = (await server.client.session.create({ title: text })).data!;
  const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] });
  void done.catch(() => {}); // a killed server fails this request
  return { session, done };
}

type UserMessage = { info: { role: string }; parts: Array<{ type: string; text?: string; synthetic?: boolean }> };
const firstUserText = (messages: UserMessage[]) =>
  messages.find((m) => m.info.role === 'user')?.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text).join('\n') ?? '';

describe('what the user sees in child sessions, and structured output refused', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  function respond(req: RecordedRequest): ScriptedReply {
    const agent = agentOf(req);
    const scenario = scenarioOf(req);
    if (agent === 'orca') return orcaResumeRelay(req);
    if (agent === 'planner') {
      if (scenario === 'visible') return plan(scenario, [{ id: 'impl', agent: 'coder' }, { id: 'check', agent: 'tester', depends_on: ['impl'] }]);
      return plan(scenario, [{ id: 't1', agent: 'researcher' }, { id: 't2', agent: 'researcher', depends_on: ['t1'] }]);
    }
    if (agent === 'researcher' && forcesToolChoice(req)) {
      // A reasoning model refusing structured output: a 400 ends the prompt; a 5xx OpenCode retries forever.
      return { httpError: { status: scenario === 'refused_retrying' ? 500 : 400, message: REFUSAL } };
    }
    if (['coder', 'tester', 'researcher'].includes(agent)) return ok(`${agent} did ${stepOf(req)} of ${scenario}`);
    const review = passingReview(req);
    if (review) return review;
    throw new Error(`unscripted ${agent} in ${scenario}`);
  }

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      // The researcher is configured for structured output; its model refuses it (see respond).
      config: { plugin: [[builtPluginUrl, { agents: { researcher: { output: 'structured' } } }]] },
      requestTimeoutMs: 120_000,
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  const chat = (scenario: string) => model.chatRequests().filter((r) => scenarioOf(r) === scenario);
  const resultOf = (scenario: string) => JSON.parse(lastToolResult(chat(scenario).filter((r) => agentOf(r) === 'orca').at(-1)!)!.content);

  async function runApproved(scenario: string) {
    const { session, done } = await startTurn(server, `SCENARIO:${scenario}`);
    const q = await nextQuestion(server, new RegExp(`SCENARIO:${scenario} goal`), 60_000);
    await reply(server, q, [['Approve'], ['No guidance']]);
    await done;
    const result = resultOf(scenario);
    expect(result).toMatchObject({ status: 'completed' });
    return { session, result, planId: result.plan_id as string };
  }

  it('lists the messages of every child session Orca created, each titled and opened with a line naming plan, step, agent and attempt', async () => {
    const { session, planId } = await runApproved('visible');
    const children = (await allSessions(server.client)).filter((s) => s.parentID === session.id);
    const expected = [
      { title: `Orca planner · ${planId}`, first: `Orca · ${planId} · planner` },
      { title: `Orca: approve plan ${planId}?`, first: `Orca: approve plan ${planId}?` },
      { title: 'Orca coder · impl attempt 1', first: `Orca · ${planId} · step impl (coder) · attempt 1` },
      { title: 'Orca reviewer · impl attempt 1', first: `Orca · ${planId} · step impl (reviewer) · attempt 1 · review round 1` },
      { title: 'Orca tester · check attempt 1', first: `Orca · ${planId} · step check (tester) · attempt 1` },
    ];
    expect(children.map((c) => c.title).sort()).toEqual(expected.map((e) => e.title).sort());
    for (const child of children) {
      // GET /session/:id/message fails for a session prompted with structured output (opencode#26929).
      const res = await server.fetch(`/session/${child.id}/message`);
      expect(res.status, `GET /session/${child.id}/message (${child.title})`).toBe(200);
      const messages = (await res.json()) as UserMessage[];
      const want = expected.find((e) => e.title === child.title)!;
      expect(firstUserText(messages).split('\n')[0], child.title).toBe(want.first);
      // What the TUI shows of a session is its parts: the question's payload travels only in the prompt's system text.
      const shown = messages.flatMap((m) => m.parts).map((p) => p.text ?? '').join('\n');
      expect(shown, child.title).not.toContain('orca-hitl-question');
    }
    // The text protocol: no Orca turn offered structured output to the default agents.
    for (const req of chat('visible').filter((r) => ['planner', 'coder', 'reviewer'].includes(agentOf(r)))) {
      expect(req.tools, agentOf(req)).not.toContain('StructuredOutput');
    }
  }, 120_000);

  for (const scenario of ['refused', 'refused_retrying'] as const) {
    const how = scenario === 'refused' ? 'ends the prompt with HTTP 400' : 'makes OpenCode retry (HTTP 500, session status "retry")';
    it(`asks again with the text protocol in the same session when the model refuses structured output (it ${how}), and the plan's next researcher turn skips structured output`, async () => {
      const started = Date.now();
      const { planId, result } = await runApproved(scenario);
      expect(result.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([['t1', 'completed'], ['t2', 'completed']]);
      const researcher = chat(scenario).filter((r) => agentOf(r) === 'researcher' && startsTurn(r));
      const t1 = researcher.filter((r) => stepOf(r) === 't1');
      const t2 = researcher.filter((r) => stepOf(r) === 't2');
      // t1: the structured attempt (refused; OpenCode may retry it before Orca aborts), then the same turn as text.
      expect(forcesToolChoice(t1[0]!)).toBe(true);
      const textAttempt = t1.find((r) => !r.tools.includes('StructuredOutput'))!;
      expect(textAttempt.lastUser).toMatch(/# Output protocol\nEnd your reply with one JSON object/);
      expect(textAttempt.messages.filter((m) => m.role === 'user')).toHaveLength(2); // same session: the refused prompt is in it
      expect(t1.filter((r) => !forcesToolChoice(r))).toHaveLength(1);
      // t2: straight to the text protocol.
      expect(t2).toHaveLength(1);
      expect(t2[0]!.tools).not.toContain('StructuredOutput');
      const plan = planFileOf(server, planId);
      expect(plan.steps.map((s: { attempts: number }) => s.attempts)).toEqual([1, 1]);
      // The refused attempt is a turn of the step too: t1 counts two, t2 one.
      expect(plan.steps.map((s: { usage?: { turns: number } }) => s.usage?.turns)).toEqual([2, 1]);
      expect(journalOf(server, planId).filter((e) => e.kind === 'protocol')).toEqual([
        expect.objectContaining({ agent: 'researcher', protocol: 'text', reason: expect.stringContaining(REFUSAL), session_id: plan.steps[0].session_id }),
      ]);
      // OpenCode 1.18 still cannot list the refused session: its first prompt carried the json_schema format (opencode#26929).
      const listed = await server.fetch(`/session/${plan.steps[0].session_id}/message`);
      console.log(`${scenario}: GET /session/:id/message of the refused session answers ${listed.status}`);
      console.log(`${scenario}: ${((Date.now() - started) / 1000).toFixed(1)} s; t1 requests: ${t1.map((r) => (forcesToolChoice(r) ? 'structured' : 'text')).join(', ')}`);
    }, 120_000);
  }
});

/**
 * Orca wrapped so that it never hears the end of s1's turn: OpenCode finishes the turn and stores
 * the answer, the wrapper writes `markerFile` and holds the reply. A kill -9 then hits exactly
 * between "the specialist finished" and "Orca recorded its result".
 */
const holdingOrca = (markerFile: string) => `
import { writeFileSync } from 'node:fs';
import { OrcaPlugin } from ${JSON.stringify(builtPluginUrl)};

export const OrcaHoldingS1 = async (input, options) => {
  const session = input.client.session;
  const prompt = session.prompt;
  session.prompt = async function heldPrompt(request) {
    const result = await prompt.call(this, request);
    if (JSON.stringify(request?.body?.parts ?? []).includes('# Your step: s1')) {
      writeFileSync(${JSON.stringify(markerFile)}, JSON.stringify({ sessionID: request.path.id }));
      await new Promise(() => {});
    }
    return result;
  };
  return OrcaPlugin(input, options);
};
`;

describe('a finished turn reused after kill -9', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let wrapper: PluginFile;
  let markerDir: string;
  let marker: string;
  reportOnFailure(() => ({ server, model }));
  const OPTIONS = { hitl: { auto: { approval: 'approve' } } };

  function respond(req: RecordedRequest): ScriptedReply {
    const agent = agentOf(req);
    const scenario = scenarioOf(req);
    if (agent === 'orca') return orcaResumeRelay(req);
    if (agent === 'planner') return plan(scenario, [{ id: 's1', agent: 'tester' }, { id: 's2', agent: 'tester', depends_on: ['s1'] }]);
    if (agent === 'tester') return ok(`tester did ${stepOf(req)}`);
    throw new Error(`unscripted ${agent} in ${scenario}`);
  }

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    markerDir = mkdtempSync(join(tmpdir(), 'orca-held-'));
    marker = join(markerDir, 'held.json');
    wrapper = writePluginFile(holdingOrca(marker), 'holding-orca.js');
    server = await startOpencode({ modelUrl: model.url, config: { plugin: [[wrapper.url, OPTIONS]] }, requestTimeoutMs: 120_000 });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    wrapper?.remove();
    if (markerDir) rmSync(markerDir, { recursive: true, force: true });
  });

  it('restarts, resumes and takes the answer the killed server already had, without asking the specialist again', async () => {
    const started = Date.now();
    await startTurn(server, 'SCENARIO:reuse');
    const { sessionID } = await waitFor(() => existsSync(marker) && (JSON.parse(readFileSync(marker, 'utf8')) as { sessionID: string }), {
      timeoutMs: 60_000,
      description: "s1's turn to end in OpenCode (the wrapper's marker)",
    });
    const held = model.chatRequests().find((r) => agentOf(r) === 'tester' && stepOf(r) === 's1')!;
    const planId = /plan_\w{26}/.exec(held.lastUser)![0];
    // OpenCode has the answer; the plan has not recorded it.
    const messages = (await (await server.fetch(`/session/${sessionID}/message`)).json()) as UserMessage[];
    expect(messages.at(-1)?.parts.some((p) => p.type === 'text' && p.text?.includes('"tester did s1"'))).toBe(true);
    expect(planFileOf(server, planId).steps[0]).toMatchObject({ id: 's1', status: 'running', session_id: sessionID });

    await server.kill9();
    server = await restartOpencode(server, { config: { plugin: [[builtPluginUrl, OPTIONS]] } });
    const resumed = await startTurn(server, `SCENARIO:reuse RESUME ${planId}`);
    await waitFor(() => planFileOf(server, planId).status === 'completed', { timeoutMs: 60_000, description: `plan ${planId} to complete after resume` });
    await resumed.done;

    const s1 = model.chatRequests().filter((r) => agentOf(r) === 'tester' && stepOf(r) === 's1');
    expect(s1, 'no second request for s1').toHaveLength(1);
    expect(planFileOf(server, planId).steps).toMatchObject([
      { id: 's1', status: 'completed', attempts: 1, session_id: sessionID, output: { summary: 'tester did s1' } },
      { id: 's2', status: 'completed', attempts: 1 },
    ]);
    expect(journalOf(server, planId)).toContainEqual(
      expect.objectContaining({ kind: 'reconcile', role: 'specialist', decision: 'reused', session_id: sessionID, idempotency_key: `${planId}:s1:1` }),
    );
    console.log(`reuse after kill -9: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 180_000);
});
