// The agenda with the default options (issue 35): no .opencode/orca.jsonc and no plugin options.
// "Run the tests every night and tell me if they fail" reaches a planner that has the agenda's one
// tool, schedules it, and what it schedules fires; a wrong call reads back what was expected.
// The fuller agenda (rails, cascades, restarts, the CLI) is test/e2e/agenda.e2e.test.ts.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAgenda } from '../../src/agenda/runtime.js';
import type { AgendaItemView } from '../../src/agenda/view.js';
import { reportOnFailure } from '../support/failure-report.js';
import { createSandbox } from '../support/opencode-sandbox.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, scenarioOf } from './team.js';

type Call = { name: string; arguments: unknown };
const encode = (rounds: Call[][]) => Buffer.from(JSON.stringify(rounds)).toString('base64url');
const decode = (text: string): Call[][] | null => {
  const m = /TOOLS:([A-Za-z0-9_-]+)/.exec(text);
  return m ? (JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Call[][]) : null;
};
const firstUser = (req: RecordedRequest) => {
  const user = req.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
};
const roundsDone = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.name !== 'StructuredOutput')).length;

/** Orca relays; the planner makes the tool calls its message carries, round by round, then answers; a plan a firing starts is proposed. */
function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    const rounds = decode(firstUser(req));
    if (rounds) return roundsDone(req) < rounds.length ? { toolCalls: rounds[roundsDone(req)]! } : jsonReply({ type: 'answer', content: `SCENARIO:${scenario} scheduled` });
    return jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: [{ id: 's1', agent: 'tester', description: 'run the tests' }], assumptions: [], risks: [], verification: [] });
  }
  if (agent === 'tester') return jsonReply({ type: 'success', summary: 'tests ran', artifacts: [] });
  return { text: 'ok' };
}

describe('the agenda with the default options', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let rootDir: string | undefined;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    // No git repository: steps would work in the shared tree, so no worktree is prepared while the planner drafts (the agenda needs none).
    const sandbox = createSandbox({ git: false });
    rootDir = sandbox.rootDir;
    // The plugin by its URL alone, the harness's own settings left out: every option at its default, the agenda's poll (5 s) included.
    server = await startOpencode({ modelUrl: model.url, config: { plugin: [builtPluginUrl] }, orcaDefaults: true, projectDir: sandbox.projectDir, homeDir: sandbox.homeDir, requestTimeoutMs: 60_000 });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  });

  const item = (agendaId: string): AgendaItemView => readAgenda(server.projectDir).get(agendaId);
  const requestsOf = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);
  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));

  /** A user turn: Orca relays it to the planner, whose scripted turn makes these tool calls, round by round. */
  async function planner(scenario: string, rounds: Call[][], sessionID?: string) {
    const session = sessionID ?? (await server.client.session.create({ title: scenario })).data!.id;
    await server.client.session.prompt({ sessionID: session, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario} TOOLS:${encode(rounds)}` }] });
    const last = requestsOf('planner', scenario).at(-1)!;
    return { session, results: toolResults(last).map((r) => ({ name: r.name, content: r.content, json: parseOrNull(r.content) })) };
  }
  const agenda = (args: Record<string, unknown>): Call => ({ name: 'agenda', arguments: args });

  it('schedules "run the tests every night and tell me if they fail" through the one agenda tool, and what it schedules fires', async () => {
    // A nightly hour half a day from now, so the test never runs near a firing of it.
    const hour = (new Date().getUTCHours() + 12) % 24;
    const soon = new Date(Date.now() + 3_000).toISOString();
    const { results } = await planner('nightly', [
      [agenda({ op: 'create', trigger: { type: 'cron', expression: `0 ${hour} * * *` }, action: { type: 'plan', message: 'SCENARIO:tests run the tests and report what fails' }, reason: 'run the tests every night' })],
      [agenda({ op: 'create', trigger: { type: 'time', executeAt: soon }, action: { type: 'plan', message: 'SCENARIO:tests run the tests now' }, reason: 'a first run now' })],
      [agenda({ op: 'create', trigger: 'tonight' })],
    ]);

    // The planner's request: the agenda is one tool, and its prompt says in one line when to use it (issue 50).
    const plannerRequest = requestsOf('planner', 'nightly')[0]!;
    const sent = (plannerRequest.body.tools as Array<{ function: { name: string } }>).filter((t) => t.function.name.startsWith('agenda'));
    expect(sent.map((t) => t.function.name)).toEqual(['agenda']);
    expect(JSON.stringify(sent[0]).length).toBeLessThan(800);
    expect(plannerRequest.system.split('\n').filter((line) => /agenda/i.test(line))).toEqual([
      // Orca's own state folder, which the planner's glob lists, and the one line on the tool.
      expect.stringContaining('.opencode/agenda'),
      'Use the agenda tool only when the request speaks of a time or an event (later, daily, when a plan',
    ]);

    const [nightly, now, wrong] = results;
    expect(nightly!.json).toMatchObject({ scheduled: true, status: 'pending', trigger: { type: 'cron', expression: `0 ${hour} * * *` }, reason: 'run the tests every night', nextDueAt: expect.stringMatching(new RegExp(`T${String(hour).padStart(2, '0')}:00:00`)) });
    expect(nightly!.json.tell_user).toMatch(/agendaId, when it fires and what it does/);
    expect(now!.json).toMatchObject({ scheduled: true, status: 'pending' });
    expect(wrong!.json).toMatchObject({ status: 'failure', error_type: 'InvalidToolArgumentsError', expected: { trigger: expect.stringContaining('{"type":"cron","expression":"0 2 * * *"') } });
    expect(wrong!.json.error).toMatch(/^agenda op create was called with invalid arguments: `trigger` must be an object: .*got "tonight"; `action` must be an object: .*got nothing/);

    // The default poll (5 s) fires the time item: a plan that waits for the user's approval, no step run.
    const fired = await waitFor(() => (item(now!.json.agendaId).status === 'executed' ? item(now!.json.agendaId) : null), { timeoutMs: 30_000, description: 'the time item to fire' });
    expect(fired.lastResult).toMatch(/proposed "SCENARIO:tests goal" \(1 step\(s\)\): waits for approval/);
    await waitFor(() => planFile(fired.planId!).status === 'pending_approval', { description: 'the plan at its approval gate' });
    expect(planFile(fired.planId!)).toMatchObject({ waiting_for: 'approval', agenda_item: { agenda_id: now!.json.agendaId, firing: 1 } });
    expect(requestsOf('tester', 'tests')).toEqual([]);
    expect(item(nightly!.json.agendaId).status).toBe('pending');

    // What the planner reads back when asked what is scheduled (in a new conversation: the first one now shows the plan to approve).
    const listed = (await planner('list', [[agenda({ op: 'list' })]])).results[0]!.json;
    expect(listed).toMatchObject({ paused: false, active: 1, items: [{ agendaId: nightly!.json.agendaId }], finished: { total: 1, latest: [{ agendaId: now!.json.agendaId, status: 'executed', planId: fired.planId }] } });
  }, 120_000);
});

function parseOrNull(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
