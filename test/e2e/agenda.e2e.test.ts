// The agenda (seed 002) on the real opencode binary: items created through the planner's agenda tool,
// fired by the scheduler of the server that holds the agenda, plans started that wait for a human,
// Orca's lifecycle on the bus, the rails, the CLI from a shell, compaction, and restarts (a pause
// that persists, kill -9 between agenda.started and the firing's outcome, a corrupt log line).
// One project and one scripted model for the whole file; the server restarts twice.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAgenda } from '../../src/agenda/runtime.js';
import { eventsPath } from '../../src/agenda/store.js';
import { newAgendaId } from '../../src/agenda/ids.js';
import type { AgendaItemView } from '../../src/agenda/view.js';
import { snapshotDist } from '../support/dist-snapshot.js';
import { reportOnFailure } from '../support/failure-report.js';
import { createSandbox } from '../support/opencode-sandbox.js';
import { FAKE_MODEL, restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { SHARED_TREE, agentOf, passingReview, scenarioOf, jsonReply } from './team.js';

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
/** Tool rounds the planner has made in this conversation (StructuredOutput is the answer, not a round). */
const roundsDone = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.name !== 'StructuredOutput')).length;

const held: Array<() => void> = [];
/** Scenarios whose first planner turn is held until the test lets it go; a later turn (the plan resumed) answers at once. */
const HELD_ONCE = new Set(['held', 'slowgate']);
const heldAlready = new Set<string>();

function respond(req: RecordedRequest): ScriptedReply | Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    const rounds = decode(firstUser(req));
    if (rounds) {
      const done = roundsDone(req);
      return done < rounds.length ? { toolCalls: rounds[done]! } : jsonReply({ type: 'answer', content: `SCENARIO:${scenario} scheduled` });
    }
    const reply = jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: [{ id: 's1', agent: 'coder', description: 'do it' }], assumptions: [], risks: [], verification: [] });
    // Held: the firing that started this plan is mid-effect until the test lets it go or kills the server.
    if (HELD_ONCE.has(scenario) && !heldAlready.has(scenario)) {
      heldAlready.add(scenario);
      return new Promise((resolve) => held.push(() => resolve(reply)));
    }
    return reply;
  }
  if (agent === 'coder') return jsonReply({ type: 'success', summary: `coder did ${scenario}`, artifacts: [] });
  const review = passingReview(req);
  if (review) return review;
  // OpenCode's compaction agent: summarise.
  return { text: 'Summary of the conversation.' };
}

describe('the agenda on the real server', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let rootDir: string | undefined;
  // The server restarts twice and the CLI runs from a shell: both load this copy, which a build elsewhere meanwhile leaves alone.
  let dist: Awaited<ReturnType<typeof snapshotDist>> | undefined;
  let cliPath = '';
  const timings: Record<string, number> = {};
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    dist = await snapshotDist('orca-agenda-dist-');
    cliPath = join(dirname(fileURLToPath(dist.url)), 'cli', 'main.js');
    model = await startScriptedModel({ respond });
    const sandbox = createSandbox({});
    rootDir = sandbox.rootDir;
    mkdirSync(join(sandbox.projectDir, '.opencode'), { recursive: true });
    // A short poll so the file runs in seconds; a per-session cap above the project's, so the 31st item meets max_pending_project.
    // The planner's agenda tool is there by default (with no options at all: test/e2e/agenda-defaults.e2e.test.ts).
    writeFileSync(join(sandbox.projectDir, '.opencode', 'orca.jsonc'), JSON.stringify({ review: { enabled: false }, agenda: { poll_seconds: 1, max_pending_per_session: 100 } }));
    server = await startOpencode({ modelUrl: model.url, config: { plugin: [[dist.url, SHARED_TREE]] }, projectDir: sandbox.projectDir, homeDir: sandbox.homeDir, requestTimeoutMs: 60_000 });
  }, 60_000);

  afterAll(async () => {
    held.splice(0).forEach((release) => release());
    await server?.stop();
    await model?.close();
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
    dist?.remove();
    console.log(`agenda e2e wall times (s): ${JSON.stringify(timings)}`);
  });

  const timed = async <T>(name: string, fn: () => Promise<T>) => {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      timings[name] = Math.round((Date.now() - t0) / 100) / 10;
    }
  };

  const agenda = () => readAgenda(server.projectDir);
  const item = (agendaId: string): AgendaItemView => agenda().get(agendaId);
  const settled = (agendaId: string, timeoutMs = 20_000) =>
    waitFor(() => (['executed', 'failed', 'expired', 'cancelled'].includes(item(agendaId).status) ? item(agendaId) : null), { timeoutMs, description: `${agendaId} to settle` });
  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  const plansOf = (agendaId: string) =>
    readdirSync(join(server.projectDir, '.opencode', 'plans'))
      .filter((f) => /^plan_\w{26}\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', f), 'utf8')))
      .filter((p) => p.agenda_item?.agenda_id === agendaId);
  const requestsOf = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);
  const toasts = () => server.events.ofType('tui.toast.show').map((e) => `${e.properties?.title}: ${e.properties?.message}`);

  /** A user turn: Orca relays it to the planner, whose scripted turn makes these tool calls, round by round. */
  async function planner(scenario: string, rounds: Call[][], sessionID?: string) {
    const session = sessionID ?? (await server.client.session.create({ title: scenario })).data!.id;
    // The model is named: after a slash command answered by orca-hitl, a prompt without one would stay on that provider.
    await server.client.session.prompt({ sessionID: session, agent: 'orca', model: FAKE_MODEL, parts: [{ type: 'text', text: `SCENARIO:${scenario} TOOLS:${encode(rounds)}` }] });
    const last = requestsOf('planner', scenario).at(-1)!;
    return { session, results: toolResults(last).map((r) => ({ name: r.name, content: r.content, json: parseOrNull(r.content) })) };
  }
  const create = (trigger: unknown, action: unknown, reason = 'e2e'): Call => ({ name: 'agenda', arguments: { op: 'create', trigger, action, reason } });
  const emit = (kind: string, message = ''): Call => ({ name: 'agenda', arguments: { op: 'emit', kind, message } });
  const in_ = (ms: number) => new Date(Date.now() + ms).toISOString();

  async function command(sessionID: string, name: string, args = '') {
    const res = await server.fetch(`/session/${sessionID}/command`, { method: 'POST', body: JSON.stringify({ command: name, arguments: args }), timeoutMs: 20_000 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { info: { providerID: string }; parts: Array<{ type: string; text?: string }> };
    expect(body.info.providerID).toBe('orca-hitl'); // answered by the plugin: no model turn
    await modelGivenBack(sessionID);
    return body.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
  }

  /**
   * After a command's turn on the in-process model, the plugin gives the session its own agent and
   * model back with a hidden message (notices/session-notes.ts). The next prompt waits for it, as a
   * person typing does: a prompt sent within the same milliseconds could see that message land in
   * the middle of its turn.
   */
  async function modelGivenBack(sessionID: string) {
    await waitFor(
      async () => {
        const messages = ((await server.client.session.messages({ sessionID })).data ?? []) as Array<{ info: { role: string; agent?: string } }>;
        const users = messages.filter((m) => m.info.role === 'user');
        const hasOwn = users.some((m) => m.info.agent !== 'orca-hitl');
        return !hasOwn || users.at(-1)?.info.agent !== 'orca-hitl';
      },
      { timeoutMs: 10_000, description: `session ${sessionID} to get its own agent and model back after the command` },
    );
  }

  let userSession: string;
  let firstPlan: string;
  let followUp: string;

  it('a time trigger a few seconds ahead starts a plan that waits for approval; no step runs before /orca-approve, then it completes and its plan.completed starts the follow-up', async () => {
    await timed('time → plan → approve → cascade', async () => {
      const { session, results } = await planner('timed', [[create({ type: 'time', executeAt: in_(3_000) }, { type: 'plan', message: 'SCENARIO:nightly run the nightly checks' }, 'nightly checks')]]);
      userSession = session;
      const created = results[0]!.json;
      expect(created).toMatchObject({ scheduled: true, status: 'pending', reason: 'nightly checks' });

      const fired = await settled(created.agendaId);
      expect(fired).toMatchObject({ status: 'executed', late: false, lastResult: expect.stringMatching(/proposed "SCENARIO:nightly goal" \(1 step\(s\)\): waits for approval/) });
      firstPlan = fired.planId!;
      await waitFor(() => planFile(firstPlan).status === 'pending_approval', { description: 'the plan file at pending_approval' });
      expect(planFile(firstPlan)).toMatchObject({ waiting_for: 'approval', agenda_item: { agenda_id: created.agendaId, firing: 1 }, steps: [{ id: 's1', status: 'pending', attempts: 0 }] });
      expect(planFile(firstPlan).snapshot.context.caller_session_id).toBe(session);
      expect(requestsOf('coder', 'nightly')).toEqual([]);

      // "When this plan completes, run the integration tests": a follow-up on plan.completed:<plan_id>.
      const next = await planner('cascade', [[create({ type: 'event', eventKind: `plan.completed:${firstPlan}` }, { type: 'plan', message: 'SCENARIO:integration run the integration tests' })]], session);
      followUp = next.results[0]!.json.agendaId;
      expect(await command(session, 'orca-approve', firstPlan)).toBe(`Orca: Approve recorded for plan \`${firstPlan}\`. It runs now; its outcome will be posted in this session.`);
      await waitFor(() => planFile(firstPlan).status === 'completed', { timeoutMs: 20_000, description: 'the approved plan to complete' });
      expect(requestsOf('coder', 'nightly')).toHaveLength(1);
      const cascaded = await settled(followUp);
      expect(cascaded).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/waits for approval/) });
      expect(item(followUp).trigger).toEqual({ type: 'event', eventKind: `plan.completed:${firstPlan}` });
      expect(agenda().events({ kindFilter: `plan.completed:${firstPlan}` })).toHaveLength(1);
      await waitFor(() => planFile(cascaded.planId!).status === 'pending_approval', { description: 'the follow-up plan file at pending_approval' });
      expect(planFile(cascaded.planId!)).toMatchObject({ agenda_item: { agenda_id: followUp, firing: 1 } });
    });
  }, 90_000);

  it('fires on all of two kinds, expires, cancels, schedules a nested item, and stops a cascade at max_cascade_depth', async () => {
    await timed('all, expiry, cancel, schedule, depth cap', async () => {
      const chain = Array.from({ length: 9 }, (_, i) => create({ type: 'event', eventKind: `chain.${i}` }, { type: 'emit', kind: `chain.${i + 1}`, message: `hop ${i + 1}` }));
      const { results } = await planner('bus', [
        [
          create({ type: 'event', eventKind: ['a.done', 'b.done'], matchMode: 'all' }, { type: 'emit', kind: 'all.fired', message: '' }),
          create({ type: 'event', eventKind: 'never.happens', expiresAt: in_(2_000) }, { type: 'emit', kind: 'x', message: '' }),
          create({ type: 'event', eventKind: 'cancel.me' }, { type: 'emit', kind: 'x', message: '' }),
          create({ type: 'event', eventKind: 'sched.go' }, { type: 'schedule', trigger: { type: 'event', eventKind: 'sched.next' }, action: { type: 'emit', kind: 'sched.done', message: '' }, reason: 'nested' }),
          ...chain,
        ],
        [emit('a.done'), emit('sched.go'), emit('chain.0')],
      ]);
      const [all, expiring, cancelMe, sched, ...links] = results.slice(0, 13).map((r) => r.json.agendaId as string);
      expect(item(all!).status).toBe('pending'); // a.done alone is not all
      const stopped = await settled(links[8]!);
      expect(stopped).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^BLOCKED \[max_cascade_depth\]: agn_\w+ was fired at cascade depth 8 \(limit 8\)/) });
      expect(links.slice(0, 8).map((l) => item(l).status)).toEqual(Array(8).fill('executed'));
      await waitFor(() => toasts().find((t) => t.includes('max_cascade_depth (8) reached')), { description: 'the depth cap reported in a toast' });

      await planner('bus2', [[emit('b.done'), { name: 'agenda', arguments: { op: 'cancel', agendaId: cancelMe, reason: 'no longer needed' } }]]);
      expect(await settled(all!)).toMatchObject({ status: 'executed', lastResult: 'emitted all.fired' });
      expect(item(cancelMe!)).toMatchObject({ status: 'cancelled', cancelReason: 'no longer needed' });
      expect(await settled(expiring!)).toMatchObject({ status: 'expired' });
      await waitFor(() => toasts().find((t) => t.startsWith('Agenda item expired')), { description: 'the expiry toast' });
      const nested = (await settled(sched!)).lastResult!.replace('scheduled ', '');
      expect(item(nested)).toMatchObject({ status: 'pending', depth: 1, createdBy: `agenda:${sched}` });
      await planner('bus3', [[emit('sched.next')]]);
      expect(await settled(nested)).toMatchObject({ status: 'executed', lastResult: 'emitted sched.done' });
    });
  }, 90_000);

  it('answers the rails through the tool as BLOCKED [rule]: the 31st pending item, the 60 s spacing, the per-kind cap, the emit rate', async () => {
    await timed('rails', async () => {
      const session = (await server.client.session.create({ title: 'rails' })).data!.id;
      expect(await command(session, 'agenda-clear')).toMatch(/^Orca agenda: (cancelled \d+ item\(s\)|nothing pending)/);
      const blocked = (results: Array<{ content: string }>) => results.filter((r) => r.content.startsWith('BLOCKED')).map((r) => r.content);

      const thirtyOne = await planner('cap', [Array.from({ length: 31 }, (_, i) => create({ type: 'event', eventKind: `cap.${i}` }, { type: 'emit', kind: 'x', message: '' }))], session);
      expect(blocked(thirtyOne.results)).toEqual([expect.stringMatching(/^BLOCKED \[max_pending_project\]: 30 items are pending in this project \(limit 30\); cancel some first$/)]);
      // The session went idle with items of it pending (event triggers: nothing fires meanwhile): the reminder toast.
      await waitFor(() => toasts().find((t) => /^Orca: waiting for you: 30 agenda item\(s\) pending/.test(t)), { timeoutMs: 10_000, description: 'the idle reminder' });
      await command(session, 'agenda-clear');

      const spacing = await planner('spacing', [[create({ type: 'time', executeAt: in_(7_200_000) }, { type: 'emit', kind: 'x', message: '' })], [create({ type: 'time', executeAt: in_(7_230_000) }, { type: 'emit', kind: 'x', message: '' })]], session);
      expect(blocked(spacing.results)).toEqual([expect.stringMatching(/^BLOCKED \[min_interval_seconds\]: agn_\w+ is due within 60 s of /)]);

      // Each call differs (its reason): OpenCode denies a planner's third identical call in a row (doom_loop).
      const kind = await planner('kind', [Array.from({ length: 6 }, (_, i) => create({ type: 'event', eventKind: 'same.kind' }, { type: 'emit', kind: 'x', message: '' }, `listener ${i}`))], session);
      expect(blocked(kind.results)).toEqual(['BLOCKED [max_pending_per_event_kind]: 5 pending items already wait for "same.kind" (limit 5)']);

      const rate = await planner('rate', [Array.from({ length: 31 }, (_, i) => emit(`rate.${i}`, `emit ${i}`))]);
      expect(blocked(rate.results)).toEqual([expect.stringMatching(/^BLOCKED \[max_emits_per_session_per_hour\]: session ses_\w+ emitted 30 events in the last hour \(limit 30\)$/)]);
      await command(session, 'agenda-clear');
    });
  }, 90_000);

  it('refuses a command action naming /orca-approve, and no plan is approved by it', async () => {
    await timed('gate command refused', async () => {
      const waiting = planFile(item(followUp).planId!);
      const { results } = await planner('gate', [[create({ type: 'time', executeAt: in_(1_000) }, { type: 'command', command: '/orca-approve', arguments: waiting.plan_id })]], userSession);
      expect(results[0]!.content).toBe('BLOCKED [gate_command]: /orca-approve answers a human gate; an agenda item never does (an LLM is never a gate)');
      const nested = await planner('gate2', [[create({ type: 'event', eventKind: 'later' }, { type: 'schedule', trigger: { type: 'event', eventKind: 'x' }, action: { type: 'command', command: 'orca-approve' }, reason: 'sneaky' })]], userSession);
      expect(nested.results[0]!.content).toMatch(/^BLOCKED \[gate_command\]/);
      expect(planFile(waiting.plan_id)).toMatchObject({ status: 'pending_approval', decisions: [] });
    });
  }, 60_000);

  it('gives the compaction of the Orca session its waiting plan: plan_id and status', async () => {
    await timed('compaction', async () => {
      const before = model.requests.length;
      const res = await server.fetch(`/session/${userSession}/summarize`, { method: 'POST', body: JSON.stringify({ providerID: 'fake', modelID: 'fake-model' }), timeoutMs: 30_000 });
      expect(res.status).toBe(200);
      const waitingPlan = item(followUp).planId!;
      const compaction = await waitFor(() => model.requests.slice(before).find((r) => JSON.stringify(r.messages).includes('Orca state to keep in the summary')), { description: 'the compaction request' });
      const text = JSON.stringify(compaction.messages);
      expect(text).toContain(`plan_id ${waitingPlan}`);
      expect(text).toContain('status: pending_approval; waiting_for: approval');
    });
  }, 60_000);

  it('orca emit from a shell (the built CLI) reaches the running server and fires the matching item', async () => {
    await timed('orca emit', async () => {
      const { results } = await planner('shell', [[create({ type: 'event', eventKind: 'tests.failed' }, { type: 'emit', kind: 'ci.reacted', message: 'on it' })]], userSession);
      const id = results[0]!.json.agendaId;
      const cli = spawnSync(process.execPath, [cliPath, 'emit', 'tests.failed', '--message', 'CI run 7 is red', '--dir', server.projectDir], { encoding: 'utf8', timeout: 20_000 });
      expect([cli.status, cli.stderr]).toEqual([0, '']);
      expect(cli.stdout).toMatch(/^emitted tests\.failed \(evt_\w{26}\): delivered to the running server\n$/);
      expect(await settled(id)).toMatchObject({ status: 'executed', lastResult: 'emitted ci.reacted' });
      expect(agenda().events({ kindFilter: 'tests.failed' })).toMatchObject([{ source: 'cli', message: 'CI run 7 is red' }]);
    });
  }, 60_000);

  it("a plan firing slow to reach its gate does not hold up the tick: an item due meanwhile fires within seconds", async () => {
    await timed('firing beside the tick', async () => {
      const { results } = await planner('slow', [
        [
          create({ type: 'time', executeAt: in_(500) }, { type: 'plan', message: 'SCENARIO:slowgate a plan whose planner is slow' }, 'slow plan'),
          create({ type: 'event', eventKind: 'meanwhile.done' }, { type: 'emit', kind: 'meanwhile.reacted', message: '' }, 'due meanwhile'),
        ],
      ], userSession);
      const [slow, meanwhile] = results.map((r) => r.json.agendaId as string);
      await waitFor(() => item(slow!).status === 'running' && requestsOf('planner', 'slowgate').length === 1, { timeoutMs: 20_000, description: 'the plan firing waiting for its planner' });
      const t0 = Date.now();
      const cli = spawnSync(process.execPath, [cliPath, 'emit', 'meanwhile.done', '--dir', server.projectDir], { encoding: 'utf8', timeout: 20_000 });
      expect(cli.stdout).toMatch(/delivered to the running server/);
      // Before, this waited for the plan's first stop (up to 60 s): the tick ran one firing at a time.
      expect(await settled(meanwhile!, 20_000)).toMatchObject({ status: 'executed', lastResult: 'emitted meanwhile.reacted' });
      timings['meanwhile fired after the emit'] = Math.round((Date.now() - t0) / 100) / 10;
      expect(item(slow!).status).toBe('running');
      held.splice(0).forEach((release) => release());
      expect(await settled(slow!)).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/proposed "SCENARIO:slowgate goal" \(1 step\(s\)\): waits for approval/) });
    });
  }, 60_000);

  it('kill -9 after agenda.started and before the outcome: the restart finds the plan and does not run the item twice; a corrupt line is skipped, an overdue item fires late, a hand-written gate command is refused', async () => {
    await timed('kill -9, restart, reconcile', async () => {
      const { results } = await planner('crash', [[create({ type: 'time', executeAt: in_(500) }, { type: 'plan', message: 'SCENARIO:held a plan whose planner is slow' })]], userSession);
      const id = results[0]!.json.agendaId;
      // agenda.started is in the log, the plan file records the firing, its planner turn is in flight.
      await waitFor(() => item(id).status === 'running' && plansOf(id).length === 1 && requestsOf('planner', 'held').length === 1, { timeoutMs: 20_000, description: 'the firing mid-effect' });
      expect(readFileSync(eventsPath(server.projectDir), 'utf8')).not.toMatch(new RegExp(`"agenda\\.(executed|failed)","at":"[^"]+","agendaId":"${id}"`));
      await server.kill9();
      held.splice(0).forEach((release) => release());

      // While no server runs: a torn line, an item that comes due, and a hand-written gate command.
      const log = eventsPath(server.projectDir);
      const lines = readFileSync(log, 'utf8').split('\n').length;
      const overdue = newAgendaId();
      const gate = newAgendaId();
      const past = new Date(Date.now() - 5 * 60_000).toISOString();
      const waiting = item(followUp).planId!;
      appendFileSync(log, '{"type":"agenda.created","at":"torn\n');
      appendFileSync(log, `${JSON.stringify({ type: 'agenda.created', at: past, agendaId: overdue, trigger: { type: 'time', executeAt: past }, action: { type: 'plan', message: 'SCENARIO:late overdue' }, reason: 'due while down', createdBy: 'cli', depth: 0 })}\n`);
      appendFileSync(log, `${JSON.stringify({ type: 'agenda.created', at: past, agendaId: gate, trigger: { type: 'time', executeAt: past }, action: { type: 'command', command: '/orca-approve', arguments: waiting, sessionId: userSession }, reason: 'hand-written', createdBy: 'cli', depth: 0 })}\n`);

      server = await restartOpencode(server);
      const reconciled = await settled(id, 60_000);
      expect(reconciled).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/was created before the restart .*; not started again/) });
      expect(plansOf(id)).toHaveLength(1);
      expect(reconciled.planId).toBe(plansOf(id)[0].plan_id);
      expect(requestsOf('planner', 'held')).toHaveLength(1);
      expect(readFileSync(log, 'utf8')).toMatch(new RegExp(`"agenda\\.executed".*"agendaId":"${id}".*"reconciled":true`));

      await waitFor(() => server.logs().includes(`events.jsonl:${lines} skipped: not JSON`), { description: 'the corrupt line reported' });
      expect(agenda().problems).toEqual([expect.objectContaining({ line: lines, reason: expect.stringMatching(/^not JSON/) })]);
      // A planner turn on a server just restarted, beside the rest of the suite: give it time.
      expect(await settled(overdue, 60_000)).toMatchObject({ status: 'executed', late: true, lastResult: expect.stringMatching(/waits for approval/) });
      await waitFor(() => toasts().find((t) => t.startsWith('Agenda item executed late')), { description: 'the late toast' });
      expect(await settled(gate)).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^BLOCKED \[gate_command\]: \/orca-approve answers a human gate/) });
      expect(planFile(waiting)).toMatchObject({ status: 'pending_approval', decisions: [] });

      // The plan the interrupted firing created is listed as interrupted, and orca agenda continue resumes it from there.
      const heldPlan = reconciled.planId!;
      const orcaCli = (...argv: string[]) => spawnSync(process.execPath, [cliPath, ...argv, '--dir', server.projectDir], { encoding: 'utf8', timeout: 20_000 });
      const listed = orcaCli('agenda');
      expect([listed.status, listed.stderr]).toEqual([0, '']);
      expect(listed.stdout).toContain(`\nPlans the agenda started that were interrupted (nothing runs them):\n  ${id} fired `);
      expect(listed.stdout).toContain(`→ ${heldPlan} interrupted while the planner drafted it (nothing runs it); resume with: orca agenda continue ${id}\n`);
      expect(orcaCli('agenda', 'show', id).stdout).toContain(`  plan now ${heldPlan} interrupted while the planner drafted it (nothing runs it)\n`);
      const continued = orcaCli('agenda', 'continue', id);
      expect([continued.status, continued.stderr]).toEqual([0, '']);
      const resumeId = /^(agn_\w{26}) resumes /.exec(continued.stdout)?.[1];
      expect(continued.stdout).toBe(`${resumeId} resumes ${heldPlan} now in the running server, from its saved state; orca agenda show ${resumeId} says where it stops next\n`);
      expect(await settled(resumeId!)).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(new RegExp(`^${heldPlan} resumed: ${heldPlan} proposed "SCENARIO:held goal" \\(1 step\\(s\\)\\): waits for approval`)) });
      // The firing's outcome is read from the plan's live state; its file is written right behind it.
      await waitFor(() => planFile(heldPlan).status === 'pending_approval', { timeoutMs: 20_000, description: 'the resumed plan saved at its approval gate' });
      expect(planFile(heldPlan)).toMatchObject({ status: 'pending_approval', agenda_item: { agenda_id: id, firing: 1 } });
      expect(plansOf(id)).toHaveLength(1);
      expect(orcaCli('agenda').stdout).not.toContain('interrupted');
      expect(orcaCli('agenda', 'show', id).stdout).toContain(`  plan now ${heldPlan} waits for approval\n`);
    });
  }, 150_000);

  it('/agenda-pause persists across a restart and nothing fires while paused; /agenda-resume by the human fires what is due', async () => {
    await timed('pause across a restart, resume', async () => {
      expect(await command(userSession, 'agenda-pause')).toBe('Orca agenda: paused. Nothing fires until /agenda-resume.');
      const { results } = await planner('paused', [[create({ type: 'time', executeAt: in_(0) }, { type: 'emit', kind: 'pause.done', message: '' })]], userSession);
      const id = results[0]!.json.agendaId;
      expect(await command(userSession, 'agenda')).toMatch(/It is PAUSED/);
      server = await restartOpencode(server);
      await waitFor(() => toasts().find((t) => t.startsWith('Agenda paused: The agenda is paused: 1 due item(s) wait')), { timeoutMs: 20_000, description: 'the paused agenda at start' });
      expect(item(id).status).toBe('pending');
      expect(await command(userSession, 'agenda-resume')).toBe('Orca agenda: resumed. 1 item(s) came due while it was paused and fire now.');
      expect(await settled(id)).toMatchObject({ status: 'executed', lastResult: 'emitted pause.done' });
    });
  }, 90_000);
});

function parseOrNull(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
