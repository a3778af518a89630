// Where a plan stands, in the session, on the real opencode binary (issue 27.2): OpenCode 1.18.33's
// TUI draws a plugin tool's running part as `⚙ orca_ask_planner [message=…, progress=…]` from its
// input, never its title. While the plan runs, the call's input carries a progress entry (each
// step done, running or waiting, with what it cost); once the call returns, the part holds exactly
// what the model sent, and no model request ever carries the progress.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview, scenarioOf, SHARED_TREE } from './team.js';
import { NOTE_PREFIX } from '../../src/hitl/native-question/index.js';

const MESSAGE = 'SCENARIO:progress build three modules';
let model: ScriptedModel;
let releaseS2: () => void = () => {};
const s2Held = new Promise<void>((resolve) => (releaseS2 = resolve));
/** The step the Esc scenario's plan is running when the turn is aborted: released at the end. */
let releaseEsc: () => void = () => {};
const escHeld = new Promise<void>((resolve) => (releaseEsc = resolve));
/** The detached plan's first step: held until the session has answered another message. */
let releaseDetach: () => void = () => {};
const detachHeld = new Promise<void>((resolve) => (releaseDetach = resolve));

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    if (scenario === 'detachask') return jsonReply({ type: 'answer', content: 'SCENARIO:detachask four' });
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${scenario} three modules`,
      steps: [
        { id: 's1', agent: 'coder', description: 'module one' },
        { id: 's2', agent: 'tester', description: 'module two', depends_on: ['s1'] },
        { id: 's3', agent: 'document-writer', description: 'module three', depends_on: ['s2'] },
      ],
      assumptions: [],
      risks: [],
      verification: [],
    });
  }
  const review = passingReview(req);
  if (review) return review;
  const step = /Your step: ([\w.-]+)/.exec(req.lastUser)?.[1];
  if (step === 's2' && scenario === 'progress') await s2Held; // still running while the test looks at the session
  if (step === 's1' && scenario === 'esc') await escHeld; // running when the turn is aborted
  if (step === 's1' && scenario === 'detach') await detachHeld; // running while the session is used for something else
  if (step) return { ...jsonReply({ type: 'success', summary: `${agent} did ${step}`, artifacts: [] }), usage: { prompt_tokens: 1000, completion_tokens: 234 } };
  throw new Error(`unscripted ${agent}`);
}

type ToolPart = { type: 'tool'; tool: string; state: { status: string; input: Record<string, unknown>; title?: string } };
type Message = { info: { role: string }; parts: Array<({ type: string } & Partial<ToolPart>) | { type: 'text'; text?: string }> };

describe('a running plan shows where it stands in its orca_ask_planner call', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: {
        plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } }, ...SHARED_TREE }]],
        // $ per million tokens: each specialist turn (1,000 in, 234 out) costs $0.0147.
        provider: { fake: { models: { 'fake-model': { cost: { input: 10, output: 20 } } } } },
      },
      requestTimeoutMs: 60_000,
    });
  }, 60_000);
  afterAll(async () => {
    releaseS2();
    releaseEsc();
    await server?.stop();
    await model?.close();
  });

  const callPart = async (sessionID: string) => {
    const messages = (await server.client.session.messages({ sessionID })).data as unknown as Message[];
    return messages.flatMap((m) => m.parts).find((p): p is ToolPart => p.type === 'tool' && p.tool === 'orca_ask_planner');
  };

  it('should list the steps done, running and waiting with their cost while the plan runs, and leave the call as the model sent it', async () => {
    const session = (await server.client.session.create({ title: 'progress' })).data!;
    const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: MESSAGE }] });

    // s1 done, s2 held: the running part's input says so, line by line.
    const running = await waitFor(
      async () => {
        const part = await callPart(session.id);
        const progress = part?.state.status === 'running' ? part.state.input.progress : undefined;
        return typeof progress === 'string' && progress.includes('▶ s2') ? { part: part!, lines: progress.split('\n') } : undefined;
      },
      { timeoutMs: 60_000, description: 'the call to show s2 running' },
    );
    expect(running.part.state.input.message).toBe(MESSAGE);
    expect(running.lines[0]).toMatch(/^plan_\w+ · 1\/3 done · s2 \(tester\) running · \$0\.0\d+$/);
    expect(running.lines.slice(1)).toEqual([
      // The specialist's turn (1,234 tokens, $0.0147) and its review's, which the scripted model prices alike or lower.
      expect.stringMatching(/^✓ s1 \(coder\) done · \$0\.0[1-9]\d* · [\d,]+ tokens$/),
      '▶ s2 (tester) running',
      '· s3 (document-writer) waiting',
    ]);

    releaseS2();
    await turn;
    // The title is the progress entry's first line, one value: every update of the running call
    // carries both alike or neither (none left with a progress title once the entry is taken back).
    const updates = server.events
      .ofType('message.part.updated')
      .map((e) => e.properties.part as ToolPart & { id: string; sessionID: string })
      .filter((p) => p?.tool === 'orca_ask_planner' && p.sessionID === session.id && p.state.status === 'running');
    expect(updates.some((p) => /^plan_\w+ · 1\/3 done · s2 \(tester\) running/.test(p.state.title ?? ''))).toBe(true);
    for (const p of updates) {
      const progress = p.state.input.progress;
      expect(p.state.title ?? null, 'the title of a running update').toBe(typeof progress === 'string' ? progress.split('\n')[0] : null);
    }
    const done = (await callPart(session.id))!;
    expect(done.state.status).toBe('completed');
    // OpenCode completes the part with the input it stored: Orca put back what the model sent.
    expect(done.state.input).toEqual({ message: MESSAGE });
    expect(done.state.title).toMatch(/^plan plan_\w+: completed · /);
    // No model request carried the progress: Orca's own reply after the result neither.
    const orcaRequests = model.chatRequests().filter((r) => agentOf(r) === 'orca');
    expect(orcaRequests.length).toBeGreaterThanOrEqual(2);
    for (const request of model.chatRequests()) expect(JSON.stringify(request.messages)).not.toContain('▶ s2');
  }, 120_000);

  it('should leave the call as the model sent it when the turn is aborted (Esc) while a step runs', async () => {
    const session = (await server.client.session.create({ title: 'esc' })).data!;
    const message = 'SCENARIO:esc build three modules';
    const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: message }] });
    await waitFor(
      async () => {
        const part = await callPart(session.id);
        return part?.state.status === 'running' && String(part.state.input.progress).includes('▶ s1 (coder) running');
      },
      { timeoutMs: 60_000, description: 'the call to show s1 running' },
    );
    await server.client.session.abort({ sessionID: session.id });
    await turn;
    // Orca posts its note that the plan is paused once it has put the call back (after OpenCode ended it).
    await waitFor(
      async () => {
        const messages = (await server.client.session.messages({ sessionID: session.id })).data as unknown as Message[];
        return messages.some((m) => m.parts.some((p) => p.type === 'text' && /^Orca: plan `plan_\w+` is paused and saved/.test(String('text' in p ? p.text : ''))));
      },
      // The put-back waits for OpenCode to end the aborted turn (up to 30 s under load), the note follows.
      { timeoutMs: 45_000, description: 'the note that the plan is paused' },
    );
    // OpenCode marked the call aborted, and it stays ended; the model sent only the message.
    const part = (await callPart(session.id))!;
    expect(part.state.status).toBe('error');
    expect(part.state.input).toEqual({ message });
  }, 120_000);
});

// ask_planner_returns: "early" (issue 27.2, the parent not blocked; the default since issue 34): with
// the approval answered by the auto policy, the call returns once the plan runs; the session takes
// another message at once; notes, not model turns, tell it of each step done and of the outcome.
describe('with ask_planner_returns "early", the session is free while its plan runs', () => {
  let server: OpencodeServer;
  let model: ScriptedModel;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } }, ask_planner_returns: 'early', ...SHARED_TREE }]] },
      requestTimeoutMs: 60_000,
    });
  }, 60_000);
  afterAll(async () => {
    releaseDetach();
    await server?.stop();
    await model?.close();
  });

  /** Every text the session shows, in order (the notes are turns of Orca's in-process stand-in, no model). */
  const texts = async (sessionID: string) =>
    ((await server.client.session.messages({ sessionID })).data as unknown as { parts: { type: string; text?: string }[] }[]).flatMap((m) =>
      m.parts.filter((p) => p.type === 'text').map((p) => p.text ?? ''),
    );

  it('should return "running" while a step runs, answer the next message at once, and post each step done and the outcome as notes', async () => {
    const session = (await server.client.session.create({ title: 'detach' })).data!;
    const first = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:detach build three modules' }] });
    expect(first.error).toBeUndefined();
    // The turn ended while s1 is still held: its result says the plan runs, with no outcome to report.
    const relayed = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === 'detach').at(-1)!;
    const result = JSON.parse(lastToolResult(relayed)!.content);
    expect(result).toMatchObject({ status: 'running', plan_id: expect.stringMatching(/^plan_/) });
    expect(result.steps.map((step: { id: string; status: string }) => [step.id, step.status])).toEqual([
      ['s1', 'running'],
      ['s2', 'pending'],
      ['s3', 'pending'],
    ]);
    // Orca was told what "running" means; its prompt says so only with this option.
    expect(relayed.system).toContain('- running: the user approved the plan and it runs on its own');

    // The session is not blocked: another message goes to the planner and back while s1 still runs.
    const second = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:detachask what is 2+2' }] });
    expect(second.error).toBeUndefined();
    expect(model.chatRequests().some((r) => agentOf(r) === 'planner' && scenarioOf(r) === 'detachask')).toBe(true);
    const planFile = () => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${result.plan_id}.json`), 'utf8'));
    expect(planFile().steps[0].status).toBe('running');

    releaseDetach();
    const notes = await waitFor(
      async () => {
        const all = await texts(session.id);
        // Said back by the in-process model: the note's own user message (hidden, NOTE_PREFIX) comes first, and
        // may carry the last step's note and the outcome together while their reply is on its way.
        return all.some((t) => !t.startsWith(NOTE_PREFIX) && t.includes(`Orca: plan \`${result.plan_id}\` completed, 3 of 3 steps done`)) ? all : undefined;
      },
      { timeoutMs: 90_000, description: 'the outcome note' },
    );
    expect(planFile().status).toBe('completed');
    // Notes held while the one before was said are said together, a blank line apart (session-notes.ts):
    // steps done close together share a message.
    const said = notes.flatMap((t) => t.split(/\n\n(?=Orca: )/));
    for (const [done, step] of [[1, 's1'], [2, 's2'], [3, 's3']] as const) {
      expect(
        said.some((t) => t.startsWith(`Orca: plan \`${result.plan_id}\` · ${done}/3 done`) && t.includes(`✓ ${step} (`)),
        `a note "${done}/3 done" for ${step} among ${JSON.stringify(said)}`,
      ).toBe(true);
    }
    // The notes cost no model turn: orca's model saw the two messages only.
    expect(model.chatRequests().filter((r) => agentOf(r) === 'orca' && ['detach', 'detachask'].includes(scenarioOf(r) ?? '')).length).toBe(4);
  }, 180_000);
});
