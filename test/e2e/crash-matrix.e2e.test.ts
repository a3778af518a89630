// The crash matrix of "Resume interrupted plans": a 4-step chain s1 → s2 → s3 → s4 is killed
// with SIGKILL at every point of its life (drafting, the approval dialog, each step in flight, each
// step just completed), the server is restarted on the same project and home, the plan is resumed
// with `RESUME plan_…`, and it must finish without running a completed step again and with an
// in-flight step run at most once more, in the same session and under the same idempotency key.
// A step in flight at the kill left no result: the resume gate asks before it runs again (Re-run),
// or the human marks it done with their words as its summary and it is not dispatched again.
// One scripted model serves the whole file; one project holds one plan per point.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { isPage, nextQuestion, openQuestions, readOn, reply } from './hitl-answers.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { agentOf, jsonReply, scenarioOf, orcaResumeRelay, passingReview } from './team.js';

const STEPS = [
  { id: 's1', agent: 'coder' },
  { id: 's2', agent: 'tester', depends_on: ['s1'] },
  { id: 's3', agent: 'coder', depends_on: ['s2'] },
  { id: 's4', agent: 'tester', depends_on: ['s3'] },
] as const;

type Point = {
  name: string;
  kind: 'drafting' | 'pending_approval' | 'dispatched' | 'reviewing' | 'completed';
  k?: number;
  /** The answer at the resume gate (default Re-run). */
  atResume?: 'Re-run' | 'Mark done';
};
const MARKED_DONE = 'the coder had finished s3 before the crash';
const POINTS: Point[] = [
  { name: 'drafting', kind: 'drafting' },
  { name: 'pending_approval', kind: 'pending_approval' },
  ...[1, 2, 3, 4].map((k) => ({ name: `dispatched:s${k}`, kind: 'dispatched' as const, k })),
  { name: 'dispatched:s3 marked done', kind: 'dispatched', k: 3, atResume: 'Mark done' },
  // s1 and s3 are coder steps: killed while the reviewer checks them.
  ...[1, 3].map((k) => ({ name: `reviewing:s${k}`, kind: 'reviewing' as const, k })),
  ...[1, 2, 3, 4].map((k) => ({ name: `completed:s${k}`, kind: 'completed' as const, k })),
];

/** The scenario tag travels in every prompt of a plan (the user's message, then the goal). */
const tagOf = (point: Point) => point.name.replace(':', '_').replace(/ /g, '_');
const stepOf = (req: RecordedRequest) => /# Your step: (s\d)\b/.exec(req.lastUser)?.[1];
const reviewedStepOf = (req: RecordedRequest) => /# Quality gate: review of step (s\d)\b/.exec(req.lastUser)?.[1];
/** A request that starts a turn (its last message is the user's), not one answering a tool result. */
const startsTurn = (req: RecordedRequest) => req.messages.at(-1)?.role === 'user';

// Held requests: a key is armed before its request arrives; the request then waits for release.
const armed = new Set<string>();
const held = new Map<string, () => void>();
const holdKey = (scenario: string, what: string) => `${scenario}:${what}`;
function releaseAll() {
  for (const [key, release] of held) {
    held.delete(key);
    release();
  }
}

const ok = (summary: string) => jsonReply({ type: 'success', summary, artifacts: [], key_findings: [] });

function script(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${scenario} goal`,
      steps: STEPS.map((s) => ({ description: `do ${s.id}`, ...s })),
      assumptions: [],
      risks: [],
      verification: [],
    });
  }
  if (agent === 'coder' || agent === 'tester') return ok(`${agent} did ${stepOf(req)} of ${scenario}`);
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

function respond(req: RecordedRequest): ScriptedReply | Promise<ScriptedReply> {
  const reply = script(req);
  const agent = agentOf(req);
  const what =
    agent === 'planner'
      ? 'planner'
      : agent === 'coder' || agent === 'tester'
        ? stepOf(req)
        : agent === 'reviewer' && reviewedStepOf(req)
          ? `review:${reviewedStepOf(req)}`
          : undefined;
  const key = what && holdKey(scenarioOf(req), what);
  if (!key || !armed.has(key) || !startsTurn(req)) return reply;
  armed.delete(key);
  return new Promise((resolve) => held.set(key, () => resolve(reply)));
}

/**
 * Every restart loads the plugin again, and `npm run build` empties dist/ first: a build running
 * meanwhile (another terminal) would make a restart fail to load it. Load a private copy instead.
 */
async function snapshotDist(): Promise<{ url: string; remove: () => void }> {
  const dist = join(projectRoot, 'dist');
  const count = () => (existsSync(join(dist, 'index.js')) ? readdirSync(dist, { recursive: true }).length : -1);
  await waitFor(
    async () => {
      const before = count();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return before > 0 && count() === before;
    },
    { timeoutMs: 30_000, intervalMs: 200, description: 'a complete dist/ (run npm run build)' },
  );
  const dir = mkdtempSync(join(tmpdir(), 'orca-crash-matrix-'));
  cpSync(dist, join(dir, 'dist'), { recursive: true });
  cpSync(join(projectRoot, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  return { url: pathToFileURL(join(dir, 'dist', 'index.js')).href, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

type Row = { point: string; resumed: boolean; redispatches: number; plannerReasks: number; byKey: number; seconds: number; phases: string };
const rows: Row[] = [];

describe('crash matrix: kill -9 at every point of a 4-step plan, restart, resume, finish', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  reportOnFailure(() => ({ server, model }));
  const fileStarted = Date.now();

  beforeAll(async () => {
    plugin = await snapshotDist();
    model = await startScriptedModel({ respond });
    server = await startOpencode({ modelUrl: model.url, plugins: [plugin.url], requestTimeoutMs: 60_000 });
  }, 60_000);

  afterAll(async () => {
    releaseAll();
    await server?.stop();
    await model?.close();
    plugin?.remove();
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    console.log(
      [
        line(['point', 'resumed?', 're-dispatches', 'planner re-asked', 'session found by key', 'seconds', 'to kill / restart / resume→completed']),
        line(['---', '---', '---', '---', '---', '---', '---']),
        ...rows.map((r) => line([r.point, r.resumed ? 'yes' : 'NO', String(r.redispatches), String(r.plannerReasks), String(r.byKey), r.seconds.toFixed(1), r.phases])),
        `total (file, incl. first start): ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`,
      ].join('\n'),
    );
  }, 30_000);

  const plansDir = () => join(server.projectDir, '.opencode', 'plans');
  const planFile = (planId: string) => JSON.parse(readFileSync(join(plansDir(), `${planId}.json`), 'utf8'));
  const journal = (planId: string) =>
    readFileSync(join(plansDir(), `${planId}.journal.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { at: string; kind: string; [k: string]: unknown });
  /** The plan whose first request carried the scenario tag (its file exists from the first flush). */
  const planOfScenario = (tag: string) =>
    readdirSync(plansDir())
      .filter((f) => /^plan_\w+\.json$/.test(f))
      .map((f) => f.slice(0, -'.json'.length))
      .find((id) => {
        try {
          return JSON.stringify(planFile(id).goal).includes(`SCENARIO:${tag}`);
        } catch {
          return false;
        }
      });

  const chat = (tag: string) => model.chatRequests().filter((r) => scenarioOf(r) === tag);
  const dispatchesOf = (tag: string, stepId: string) => chat(tag).filter((r) => startsTurn(r) && stepOf(r) === stepId && ['coder', 'tester'].includes(agentOf(r)));
  const plannerTurns = (tag: string) => chat(tag).filter((r) => startsTurn(r) && agentOf(r) === 'planner');
  const reviewsOf = (tag: string, stepId: string) => chat(tag).filter((r) => startsTurn(r) && agentOf(r) === 'reviewer' && reviewedStepOf(r) === stepId);

  /** Start an Orca turn without waiting for it (it blocks while the plan runs or waits on the human). */
  async function startTurn(text: string) {
    const session = (await server.client.session.create({ title: text })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] });
    void done.catch(() => {}); // a killed server fails this request
    return { session, done };
  }

  /** Answer the plan's resume gate whenever it asks: Re-run, or Mark done with the human's summary. */
  async function answerResume(planId: string, choice: 'Re-run' | 'Mark done'): Promise<boolean> {
    const q = (await openQuestions(server)).find((x) => !isPage(x) && x.questions[0]?.question.includes(`Plan ${planId}: step`));
    if (!q) return false;
    await reply(server, q, [[choice], [choice === 'Mark done' ? MARKED_DONE : 'No guidance']]);
    return true;
  }

  /** Answer the scenario's approval dialog (Approve) whenever it is open; returns whether it did. */
  async function approveIfAsked(tag: string): Promise<boolean> {
    await readOn(server);
    // A page shown before the question carries the goal too (a plan whose forecast has history no longer fits the question).
    const q = (await openQuestions(server)).find((x) => !isPage(x) && x.questions[0]?.question.includes(`SCENARIO:${tag} goal`));
    if (!q) return false;
    await reply(server, q, [['Approve'], ['No guidance']]);
    return true;
  }

  for (const point of POINTS) {
    it(`${point.name}: killed, restarted, resumed and completed`, async () => {
      const started = Date.now();
      const tag = tagOf(point);
      const k = point.k ?? 0;
      if (point.kind === 'drafting') armed.add(holdKey(tag, 'planner'));
      if (point.kind === 'dispatched') armed.add(holdKey(tag, `s${k}`));
      if (point.kind === 'reviewing') armed.add(holdKey(tag, `review:s${k}`));
      if (point.kind === 'completed' && k < 4) armed.add(holdKey(tag, `s${k + 1}`));

      // 1. Run the plan up to the kill point (approving it on the way, except at that gate).
      await startTurn(`SCENARIO:${tag}`);
      let planId: string;
      if (point.kind === 'pending_approval') {
        const q = await nextQuestion(server, new RegExp(`SCENARIO:${tag} goal`), 20_000);
        planId = /plan_\w{26}/.exec(q.questions[0]!.question)![0];
      } else {
        planId = await waitFor(
          async () => {
            if (point.kind !== 'drafting') await approveIfAsked(tag);
            const id = planOfScenario(tag);
            if (!id) return undefined;
            if (point.kind === 'drafting' || point.kind === 'dispatched' || point.kind === 'reviewing') {
              const what = point.kind === 'drafting' ? 'planner' : point.kind === 'reviewing' ? `review:s${k}` : `s${k}`;
              return held.has(holdKey(tag, what)) ? id : undefined;
            }
            const file = planFile(id);
            return file.steps[k - 1]?.status === 'completed' ? id : undefined;
          },
          // Up to six turns before the kill point (s3 completed: s1, its review, s2, s3, its review): on a
          // 2-core machine running the rest of the suite beside this file a turn can take seconds.
          { timeoutMs: 60_000, intervalMs: 20, description: `the kill point ${point.name}` },
        );
      }
      const atKill = planFile(planId);
      const completedAtKill = new Set<string>(atKill.steps.filter((s: { status: string }) => s.status === 'completed').map((s: { id: string }) => s.id));
      const sessionAtKill = new Map<string, string>(atKill.steps.filter((s: { session_id?: string }) => s.session_id).map((s: { id: string; session_id: string }) => [s.id, s.session_id]));

      // 2. kill -9, let the held request go (its connection is gone), restart on the same project and home.
      await server.kill9();
      const killedAt = Date.now();
      armed.clear(); // a hold not reached before the kill must not catch the resumed dispatch
      releaseAll();
      const afterKill = planFile(planId);
      server = await restartOpencode(server);
      const restartedAt = Date.now();
      // In flight = OpenCode had stored its prompt in the step's session before the kill: its model
      // request may not have reached the scripted model yet (a busy machine), and the restored plan
      // still finds the prompt unanswered. A session opened but not yet prompted is simply prompted.
      // A step's session is the one its file names, or (its id written behind, not on disk yet at the
      // kill) the one whose metadata carries the step's idempotency key: the restart finds it there.
      const byKey = new Map(
        (((await server.client.session.list()).data ?? []) as Array<{ id: string; metadata?: { orca?: { idempotency_key?: string } } }>)
          .filter((x) => x.metadata?.orca?.idempotency_key)
          .map((x) => [x.metadata!.orca!.idempotency_key!, x.id]),
      );
      const inFlight = new Set<string>();
      const foundByKey = new Set<string>();
      for (const s of afterKill.steps as Array<{ id: string; status: string; session_id?: string }>) {
        const sessionId = s.session_id ?? byKey.get(`${planId}:${s.id}:1`);
        if (s.status === 'completed' || !sessionId) continue;
        if (!s.session_id) foundByKey.add(s.id);
        if (!sessionAtKill.has(s.id)) sessionAtKill.set(s.id, sessionId);
        const messages = (await server.client.session.messages({ sessionID: sessionId })).data ?? [];
        const prompted = messages.some((m) => m.info.role === 'user' && m.parts.some((p) => p.type === 'text' && p.text.includes(`# Your step: ${s.id}`)));
        if (prompted) inFlight.add(s.id);
      }

      // 3. Resume with a new Orca turn, approve when asked, until the plan file says completed.
      const resumed = await startTurn(`SCENARIO:${tag} RESUME ${planId}`);
      let askedToResume = false;
      await waitFor(
        async () => {
          await approveIfAsked(tag);
          if (await answerResume(planId, point.atResume ?? 'Re-run')) askedToResume = true;
          return planFile(planId).status === 'completed';
        },
        { timeoutMs: 60_000, intervalMs: 100, description: `plan ${planId} (${point.name}) to complete after resume` },
      );
      const completedAt = Date.now();
      const turn = await Promise.race([
        resumed.done,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the resumed Orca turn did not end within 20 s')), 20_000)),
      ]);
      expect(turn.error).toBeUndefined();
      const lastOrca = chat(tag).filter((r) => agentOf(r) === 'orca' && /RESUME/.test(r.lastUser) && lastToolResult(r)).at(-1);
      const result = lastOrca ? JSON.parse(lastToolResult(lastOrca)!.content) : undefined;

      // 4. Assertions.
      const file = planFile(planId);
      expect(file.status).toBe('completed');
      expect(result).toMatchObject({ status: 'completed', plan_id: planId });
      const counts = Object.fromEntries(STEPS.map((s) => [s.id, dispatchesOf(tag, s.id).length]));
      for (const s of STEPS) {
        const count = counts[s.id]!;
        if (completedAtKill.has(s.id) || (point.atResume === 'Mark done' && s.id === `s${k}`)) {
          expect(count, `${s.id} was completed at the kill or marked done: never dispatched again`).toBe(1);
        }
        else if (inFlight.has(s.id)) expect(count, `${s.id} was in flight at the kill: at most once more`).toBeLessThanOrEqual(2);
        else expect(count, `${s.id} had not started at the kill`).toBe(1);
        const step = file.steps.find((x: { id: string }) => x.id === s.id);
        // Same idempotency key: still attempt 1, in the session titled for attempt 1.
        expect(step).toMatchObject({ status: 'completed', attempts: 1 });
        if (sessionAtKill.has(s.id)) expect(step.session_id).toBe(sessionAtKill.get(s.id));
        const session = (await server.client.session.get({ sessionID: step.session_id })).data!;
        expect(session.title).toBe(`Orca ${s.agent} · ${s.id} attempt 1`);
        if (count === 2) {
          // The second dispatch went to the same session: its conversation holds the first prompt too.
          const [first, second] = dispatchesOf(tag, s.id);
          expect(second!.messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes(`# Your step: ${s.id}`))).toHaveLength(2);
          expect(first!.aborted).toBe(true);
          expect(journal(planId)).toContainEqual(
            expect.objectContaining({ kind: 'reconcile', role: 'specialist', decision: 'redispatch', idempotency_key: `${planId}:${s.id}:1`, session_id: step.session_id }),
          );
        }
      }
      // Exactly one specialist session per step (no second attempt session was ever opened), and
      // one reviewer session per coder step (the reviewer gate is on for coder by default).
      const sessions = ((await server.client.session.list()).data ?? []) as Array<{ title: string; metadata?: { orca?: { plan_id?: string } } }>;
      const ofPlan = sessions.filter((x) => x.metadata?.orca?.plan_id === planId && /· s\d attempt/.test(x.title));
      const expected = STEPS.flatMap((s) => [
        `Orca ${s.agent} · ${s.id} attempt 1`,
        // A step the human marked done is not reviewed: they vouched for it.
        ...(s.agent === 'coder' && !(point.atResume === 'Mark done' && s.id === `s${k}`) ? [`Orca reviewer · ${s.id} attempt 1`] : []),
      ]);
      expect(ofPlan.map((x) => x.title).sort()).toEqual(expected.sort());

      // A session whose id had not reached the file at the kill was found by its idempotency key and reused.
      for (const id of foundByKey) {
        expect(journal(planId)).toContainEqual(expect.objectContaining({ kind: 'reconcile', decision: 'reused_session', idempotency_key: `${planId}:${id}:1` }));
      }
      // The planner is asked again only when it was the side effect in flight.
      expect(plannerTurns(tag).length).toBe(point.kind === 'drafting' ? 2 : 1);
      // A specialist turn in flight at the kill (coder and tester change files) waits at the resume gate;
      // a reviewer's turn (read-only) simply runs again.
      // A session opened but not yet prompted at the kill is simply prompted: only a prompt sent asks.
      const interrupted = point.kind === 'reviewing' ? undefined : [...inFlight][0];
      if (point.kind === 'dispatched') expect(interrupted).toBe(`s${k}`);
      expect(askedToResume, 'the resume gate asked').toBe(interrupted !== undefined);
      if (interrupted) {
        expect(journal(planId)).toContainEqual(expect.objectContaining({ kind: 'reconcile', decision: 'interrupted', idempotency_key: `${planId}:${interrupted}:1` }));
        expect(file.decisions).toContainEqual(expect.objectContaining({ gate: 'resume', option: point.atResume ?? 'Re-run', step_id: interrupted }));
      }
      if (point.kind === 'dispatched' && point.atResume !== 'Mark done') expect(counts[`s${k}`]).toBe(2);
      if (point.atResume === 'Mark done') {
        expect(file.steps[k - 1]).toMatchObject({ status: 'completed', output: { summary: MARKED_DONE } });
        // The next step is told what the human said the interrupted one did.
        expect(dispatchesOf(tag, `s${k + 1}`)[0]!.lastUser).toContain(MARKED_DONE);
      }
      // Killed during review: the reviewer is asked again (in its session), the coder's work is not redone.
      if (point.kind === 'reviewing') {
        expect(counts[`s${k}`]).toBe(1);
        expect(reviewsOf(tag, `s${k}`)).toHaveLength(2);
        expect(reviewsOf(tag, `s${k}`)[0]!.aborted).toBe(true);
      }
      if (point.kind === 'completed' && k === 4) expect(Object.values(counts)).toEqual([1, 1, 1, 1]);

      // The journal shows the kill and the resume: state entries continue after the restart.
      const after = journal(planId).filter((e) => Date.parse(e.at) > killedAt);
      expect(after).toContainEqual(expect.objectContaining({ kind: 'event', event: expect.objectContaining({ type: 'xstate.init' }) })); // restored
      expect(after).toContainEqual(expect.objectContaining({ kind: 'state', actor: 'plan', state: 'completed' }));
      expect(model.errors()).toEqual([]);

      rows.push({
        point: point.name,
        resumed: result?.status === 'completed',
        redispatches:
          Object.values(counts).reduce((sum, c) => sum + Math.max(0, c - 1), 0) +
          STEPS.reduce((sum, s) => sum + Math.max(0, reviewsOf(tag, s.id).length - 1), 0),
        plannerReasks: plannerTurns(tag).length - 1,
        byKey: foundByKey.size,
        seconds: (Date.now() - started) / 1000,
        phases: [killedAt - started, restartedAt - killedAt, completedAt - restartedAt].map((ms) => (ms / 1000).toFixed(1)).join(' / '),
      });
    }, 180_000);
  }
});
