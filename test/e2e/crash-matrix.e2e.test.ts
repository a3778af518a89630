// The crash matrix of "Resume interrupted plans": a 4-step chain s1 → s2 → s3 → s4 is killed
// with SIGKILL at every point of its life (drafting, the approval dialog, each step in flight, each
// step just completed), the server is restarted on the same project and home, the plan is resumed
// with `RESUME plan_…`, and it must finish without running a completed step again and with an
// in-flight step run at most once more, in the same session and under the same idempotency key.
// A step in flight at the kill left no result: the resume gate asks before it runs again (Re-run),
// or the human marks it done with their words as its summary and it is not dispatched again.
// One scripted model serves the matrix; one project holds one plan per point. The last describe
// kills plans of 2 and 4 parallel steps with every step in flight: each step waits at its own
// resume gate after the restart, and each must be asked.
//
// The points run in batches, so that a kill and a restart serve several points: every plan of a
// batch starts at once and is held at its own kill point, the server is killed and restarted once,
// then every plan of the batch is resumed at once (an Orca turn each), its dialogs answered by plan
// id and scenario tag. A point "just completed" cannot be held there: the next step's dispatch races
// the kill, as after a real crash. So a batch has at most one such point, let go last, and the kill
// follows its step's completion as closely as the file shows it. Each point keeps its own test,
// asserting on what its batch recorded.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { fetchWithTimeout } from '../support/wait-for.js';
import { isPage, questionWatch, openQuestions, readOn, reply, type QuestionRequest } from './hitl-answers.js';
import { SHARED_TREE, agentOf, jsonReply, scenarioOf, orcaResumeRelay, passingReview } from './team.js';
import { allSessions } from '../support/all-sessions.js';
import { snapshotDist } from '../support/dist-snapshot.js';

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

/**
 * Killed just after step k completed, for k < 4: the next step's dispatch races the kill. After s4
 * the plan is done: nothing races, it waits for the kill like a held point.
 */
const races = (point: Point) => point.kind === 'completed' && point.k! < STEPS.length;

/**
 * Points with as many turns before their kill point go together (a batch waits for its slowest),
 * at most one racing point each.
 */
const BATCHES: string[][] = [
  ['drafting', 'pending_approval', 'dispatched:s1', 'reviewing:s1', 'completed:s1'],
  ['dispatched:s2', 'dispatched:s3', 'dispatched:s3 marked done', 'completed:s2'],
  ['reviewing:s3', 'dispatched:s4', 'completed:s4', 'completed:s3'],
];
const batched = BATCHES.flat();
if (batched.length !== POINTS.length || POINTS.some((p) => !batched.includes(p.name))) throw new Error('Expected BATCHES to hold every point once.');
if (BATCHES.some((names) => names.filter((name) => races(POINTS.find((p) => p.name === name)!)).length > 1)) {
  throw new Error('Expected at most one racing point (completed:s1..s3) per batch: one kill cannot follow two completions.');
}

/**
 * Plans of `parallel<N>` scenarios: N tester steps with no dependency, each declaring its own file,
 * so all N run at once in the shared tree (the default concurrency is 4) and a kill finds all of
 * them in flight. Tester steps change files (the resume gate asks before they run again) and get
 * no reviewer (by default only coder steps do).
 */
const parallelWidth = (scenario: string) => Number(/^parallel(\d)$/.exec(scenario)?.[1] ?? 0);
const parallelSteps = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `s${i + 1}`, agent: 'tester', description: `do s${i + 1}`, files: [`s${i + 1}.txt`] }));

/** The scenario tag travels in every prompt of a plan (the user's message, then the goal). */
const tagOf = (point: Point) => point.name.replace(':', '_').replace(/ /g, '_');
const stepOf = (req: RecordedRequest) => /# Your step: (s\d)\b/.exec(req.lastUser)?.[1];
const reviewedStepOf = (req: RecordedRequest) => /# Quality gate: review of step (s\d)\b/.exec(req.lastUser)?.[1];
/** A request that starts a turn (its last message is the user's), not one answering a tool result. */
const startsTurn = (req: RecordedRequest) => req.messages.at(-1)?.role === 'user';

// Held requests: a key is armed before its request arrives; the request then waits for release.
const armed = new Set<string>();
const held = new Map<string, { go: () => void; req: RecordedRequest }>();
const holdKey = (scenario: string, what: string) => `${scenario}:${what}`;
function release(key: string) {
  held.get(key)?.go();
  held.delete(key);
}
function releaseAll() {
  for (const key of [...held.keys()]) release(key);
}
/**
 * After a kill -9: every held request's connection seen closed by the model (it marks the request
 * aborted) before its reply is let go. A busy event loop may take in the closed connection after the
 * reply was written into it, and the request would read as answered (as worktree-crash.e2e waits).
 */
async function releaseAllKilled(): Promise<void> {
  await waitFor(() => [...held.values()].every(({ req }) => req.aborted === true), {
    timeoutMs: 30_000,
    intervalMs: 20,
    description: 'the model to see the connection of every held request closed by the kill',
  });
  releaseAll();
}

/** The request a point is held at when the server is killed (none for pending_approval and completed:s4). */
function killHold(point: Point): string | undefined {
  const k = point.k ?? 0;
  if (point.kind === 'drafting') return 'planner';
  if (point.kind === 'dispatched') return `s${k}`;
  if (point.kind === 'reviewing') return `review:s${k}`;
  // A racing point waits at the last turn of step k (the review of a coder step: the reviewer gate is
  // on for coder by default) until the rest of its batch is held.
  if (races(point)) return STEPS[k - 1]!.agent === 'coder' ? `review:s${k}` : `s${k}`;
  return undefined;
}

const ok = (summary: string) => jsonReply({ type: 'success', summary, artifacts: [], key_findings: [] });

function script(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    const width = parallelWidth(scenario);
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${scenario} goal`,
      steps: width ? parallelSteps(width) : STEPS.map((s) => ({ description: `do ${s.id}`, ...s })),
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
  return new Promise((resolve) => held.set(key, { go: () => resolve(reply), req }));
}

type Turn = { session: { id: string }; done: Promise<{ error?: unknown }> };

/** What a batch recorded of one point, for its test to assert on. */
type Run = {
  point: Point;
  tag: string;
  k: number;
  batch: BatchTimes;
  planId?: string;
  /** When the plan was held at its kill point (or, racing, at the last turn before it). */
  heldAt?: number;
  completedAtKill: Set<string>;
  sessionAtKill: Map<string, string>;
  inFlight: Set<string>;
  foundByKey: Set<string>;
  askedToResume: boolean;
  /** The approval questions answered or seen open, by id: the one open at the kill, then the one asked after the resume. */
  approvalIds: string[];
  /** The plan file right after the kill, before the restart. */
  fileAfterKill?: { status: string; waiting_for?: string };
  resumed?: Turn;
  completedAt?: number;
  /** The resumed Orca turn's answer, or why it had none. */
  turn?: { error?: unknown };
  /** What stopped the batch from taking this point to its end. */
  failure?: Error;
};
type BatchTimes = { index: number; started: number; killedAt: number; restartedAt: number };

/** Phases, in seconds from the start of the batch: held at the kill point, killed; then restart, and resume until completed. */
type Row = { point: string; batch: number; resumed: boolean; redispatches: number; plannerReasks: number; byKey: number; seconds: number; phases: string };
const rows: Row[] = [];

/** The Orca turns of a batch block while their plans run: minutes on a loaded machine, more than the client's 60 s deadline. */
const TURN_TIMEOUT_MS = 600_000;
/** Per wait of a batch (all its plans at their kill points; all of them completed): generous, the machine is shared. */
const BATCH_WAIT_MS = 180_000;

describe('crash matrix: kill -9 at every point of a 4-step plan, restart, resume, finish', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  reportOnFailure(() => ({ server, model }));
  const fileStarted = Date.now();
  const batchTimes: BatchTimes[] = [];

  beforeAll(async () => {
    plugin = await snapshotDist('orca-crash-matrix-');
    model = await startScriptedModel({ respond });
    // Points in worktrees (a step running there, its merge in flight) are worktree-crash.e2e's.
    server = await startOpencode({ modelUrl: model.url, config: { plugin: [[plugin.url, SHARED_TREE]] }, requestTimeoutMs: 60_000 });
  }, 60_000);

  afterAll(async () => {
    releaseAll();
    await server?.stop();
    await model?.close();
    plugin?.remove();
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    const s = (ms: number) => (ms / 1000).toFixed(1);
    console.log(
      [
        line(['point', 'batch', 'resumed?', 're-dispatches', 'planner re-asked', 'session found by key', 'seconds', 'held / kill / restart / resume→completed']),
        line(['---', '---', '---', '---', '---', '---', '---', '---']),
        ...rows.map((r) =>
          line([r.point, String(r.batch), r.resumed ? 'yes' : 'NO', String(r.redispatches), String(r.plannerReasks), String(r.byKey), r.seconds.toFixed(1), r.phases]),
        ),
        ...batchTimes.map((b) => `batch ${b.index}: killed after ${s(b.killedAt - b.started)} s, restarted in ${s(b.restartedAt - b.killedAt)} s`),
        `total (file, incl. first start): ${s(Date.now() - fileStarted)} s`,
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
          // Exactly this tag: dispatched_s3 must not find the plan of dispatched_s3_marked_done.
          return new RegExp(`SCENARIO:${tag}\\b`).test(JSON.stringify(planFile(id).goal));
        } catch {
          return false;
        }
      });

  const chat = (tag: string) => model.chatRequests().filter((r) => scenarioOf(r) === tag);
  const dispatchesOf = (tag: string, stepId: string) => chat(tag).filter((r) => startsTurn(r) && stepOf(r) === stepId && ['coder', 'tester'].includes(agentOf(r)));
  const plannerTurns = (tag: string) => chat(tag).filter((r) => startsTurn(r) && agentOf(r) === 'planner');
  const reviewsOf = (tag: string, stepId: string) => chat(tag).filter((r) => startsTurn(r) && agentOf(r) === 'reviewer' && reviewedStepOf(r) === stepId);

  /** Start an Orca turn without waiting for it (it blocks while the plan runs or waits on the human). */
  async function startTurn(text: string): Promise<Turn> {
    const session = (await server.client.session.create({ title: text })).data!;
    const done = server.client.session.prompt(
      { sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] },
      { fetch: (input, init) => fetchWithTimeout(input, { ...init, timeoutMs: TURN_TIMEOUT_MS }) },
    );
    void done.catch(() => {}); // a killed server fails this request
    return { session, done };
  }

  /** The open approval question of a scenario's plan (pages before it are read on separately). */
  const approvalOf = (open: QuestionRequest[], tag: string) =>
    open.find((x) => !isPage(x) && x.questions[0]?.question.includes(`SCENARIO:${tag} goal`));

  /** A GET /question costs the server CPU: look after a question.asked event, or every 2 s (hitl-answers.ts). */
  const look = questionWatch(() => server, 2_000);

  /**
   * One look at the dialogs open for a batch, as the person at the TUI: reads every page on,
   * approves the plans `approve` names, and (when `resume`) answers each plan's resume gate with
   * its point's choice: Re-run, or Mark done with the human's summary. Returns what was open, or
   * undefined when it was not time to look.
   */
  async function answerDialogs(runs: Run[], { approve, resume }: { approve: (run: Run) => boolean; resume: boolean }): Promise<QuestionRequest[] | undefined> {
    if (!look.due()) return undefined;
    try {
      return await answerOpenDialogs(runs, { approve, resume });
    } catch (error) {
      look.again();
      throw error;
    }
  }

  async function answerOpenDialogs(runs: Run[], { approve, resume }: { approve: (run: Run) => boolean; resume: boolean }): Promise<QuestionRequest[]> {
    const open = await openQuestions(server);
    await readOn(server, open);
    for (const q of open.filter((x) => !isPage(x))) {
      const text = q.questions[0]?.question ?? '';
      const resuming = resume ? runs.find((r) => r.planId && text.includes(`Plan ${r.planId}: step`)) : undefined;
      if (resuming) {
        const choice = resuming.point.atResume ?? 'Re-run';
        await reply(server, q, [[choice], [choice === 'Mark done' ? MARKED_DONE : 'No guidance']]);
        resuming.askedToResume = true;
        continue;
      }
      const approving = runs.find((r) => approvalOf([q], r.tag) !== undefined);
      if (approving && !approving.approvalIds.includes(q.id)) approving.approvalIds.push(q.id);
      if (approving && approve(approving)) await reply(server, q, [['Approve'], ['No guidance']]);
    }
    return open;
  }

  /** Whether a run's plan is at its kill point (a racing point: at the last turn before it). */
  function atKillPoint(run: Run, open: QuestionRequest[] | undefined): boolean {
    if (run.point.kind === 'pending_approval') {
      const q = open && approvalOf(open, run.tag);
      if (q) run.planId = /plan_\w{26}/.exec(q.questions[0]!.question)![0];
      return q !== undefined;
    }
    run.planId ??= planOfScenario(run.tag);
    if (!run.planId) return false;
    const hold = killHold(run.point);
    if (hold) return held.has(holdKey(run.tag, hold));
    return planFile(run.planId).steps[run.k - 1]?.status === 'completed';
  }

  const failed = (runs: Run[], why: (run: Run) => string, error: unknown) => {
    for (const run of runs) run.failure ??= new Error(`${run.point.name}: ${why(run)}: ${error instanceof Error ? error.message : String(error)}`);
  };

  /** Takes every point of a batch to its kill point, kills and restarts the server once, resumes every plan to completion. */
  async function runBatch(index: number, points: Point[]): Promise<Run[]> {
    const times: BatchTimes = { index, started: Date.now(), killedAt: 0, restartedAt: 0 };
    batchTimes.push(times);
    const runs: Run[] = points.map((point) => ({
      point,
      tag: tagOf(point),
      k: point.k ?? 0,
      batch: times,
      completedAtKill: new Set(),
      sessionAtKill: new Map(),
      inFlight: new Set(),
      foundByKey: new Set(),
      askedToResume: false,
      approvalIds: [],
    }));
    const alive = () => runs.filter((r) => !r.failure);

    // 1. Run every plan up to its kill point (approving it on the way, except at that gate).
    for (const run of runs) {
      const hold = killHold(run.point);
      if (hold) armed.add(holdKey(run.tag, hold));
      // Just completed: a hold on the next step keeps the plan from running past it before the kill.
      if (run.point.kind === 'completed' && run.k < STEPS.length) armed.add(holdKey(run.tag, `s${run.k + 1}`));
    }
    await Promise.all(runs.map((run) => startTurn(`SCENARIO:${run.tag}`)));
    await waitFor(
      async () => {
        const open = await answerDialogs(runs, { approve: (r) => r.point.kind !== 'pending_approval', resume: false });
        for (const run of runs) if (run.heldAt === undefined && atKillPoint(run, open)) run.heldAt = Date.now();
        return runs.every((r) => r.heldAt !== undefined);
      },
      // Up to six turns per plan before its kill point (completed:s4: s1, its review, s2, s3, its review,
      // s4), several plans at once, on a 2-core machine running the rest of the suite beside this file.
      { timeoutMs: BATCH_WAIT_MS, intervalMs: 50, description: `batch ${index} at its kill points` },
    ).catch((error) => failed(runs.filter((r) => r.heldAt === undefined), () => 'did not reach its kill point', error));

    // The racing point goes last: its step completes, and the kill follows as soon as the file says so.
    const racer = alive().find((r) => races(r.point));
    if (racer) {
      release(holdKey(racer.tag, killHold(racer.point)!));
      await waitFor(() => planFile(racer.planId!).steps[racer.k - 1]?.status === 'completed', {
        timeoutMs: 60_000,
        intervalMs: 20,
        description: `step s${racer.k} of ${racer.point.name} to complete`,
      }).catch((error) => failed([racer], () => 'did not reach its kill point', error));
    }
    const atKill = new Map(alive().map((run) => [run, planFile(run.planId!)]));
    for (const [run, file] of atKill) {
      for (const s of file.steps as Array<{ id: string; status: string; session_id?: string }>) {
        if (s.status === 'completed') run.completedAtKill.add(s.id);
        if (s.session_id) run.sessionAtKill.set(s.id, s.session_id);
      }
    }

    // 2. kill -9, let the held requests go (their connections are gone), restart on the same project and home.
    await server.kill9();
    times.killedAt = Date.now();
    armed.clear(); // a hold not reached before the kill must not catch the resumed dispatch
    await releaseAllKilled();
    const afterKill = new Map(alive().map((run) => [run, planFile(run.planId!)]));
    for (const [run, file] of afterKill) run.fileAfterKill = file;
    server = await restartOpencode(server);
    times.restartedAt = Date.now();
    // In flight = OpenCode had stored its prompt in the step's session before the kill: its model
    // request may not have reached the scripted model yet (a busy machine), and the restored plan
    // still finds the prompt unanswered. A session opened but not yet prompted is simply prompted.
    // A step's session is the one its file names, or (its id written behind, not on disk yet at the
    // kill) the one whose metadata carries the step's idempotency key: the restart finds it there.
    const byKey = new Map(
      ((await allSessions(server.client)) as Array<{ id: string; metadata?: { orca?: { idempotency_key?: string } } }>)
        .filter((x) => x.metadata?.orca?.idempotency_key)
        .map((x) => [x.metadata!.orca!.idempotency_key!, x.id]),
    );
    for (const [run, file] of afterKill) {
      for (const s of file.steps as Array<{ id: string; status: string; session_id?: string }>) {
        const sessionId = s.session_id ?? byKey.get(`${run.planId}:${s.id}:1`);
        if (s.status === 'completed' || !sessionId) continue;
        if (!s.session_id) run.foundByKey.add(s.id);
        if (!run.sessionAtKill.has(s.id)) run.sessionAtKill.set(s.id, sessionId);
        const messages = (await server.client.session.messages({ sessionID: sessionId })).data ?? [];
        const prompted = messages.some((m) => m.info.role === 'user' && m.parts.some((p) => p.type === 'text' && p.text.includes(`# Your step: ${s.id}`)));
        if (prompted) run.inFlight.add(s.id);
      }
    }

    // 3. Resume every plan with a new Orca turn, answer its dialogs, until every plan file says completed.
    for (const run of alive()) run.resumed = await startTurn(`SCENARIO:${run.tag} RESUME ${run.planId}`);
    await waitFor(
      async () => {
        await answerDialogs(alive(), { approve: () => true, resume: true });
        for (const run of alive()) if (run.completedAt === undefined && planFile(run.planId!).status === 'completed') run.completedAt = Date.now();
        return alive().every((r) => r.completedAt !== undefined);
      },
      { timeoutMs: BATCH_WAIT_MS, intervalMs: 100, description: `batch ${index}: every plan to complete after resume` },
    ).catch((error) => failed(alive().filter((r) => r.completedAt === undefined), (r) => `plan ${r.planId} did not complete after resume`, error));
    await Promise.all(
      alive().map(async (run) => {
        run.turn = await Promise.race([
          run.resumed!.done,
          new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: 'the resumed Orca turn did not end within 60 s' }), 60_000)),
        ]).catch((error: unknown) => ({ error }));
      }),
    );
    return runs;
  }

  const runsByPoint = new Map<string, Run>();
  BATCHES.forEach((names, i) => {
    const points = names.map((name) => POINTS.find((p) => p.name === name)!);
    describe(`batch ${i + 1}: ${names.join(', ')}`, () => {
      beforeAll(async () => {
        for (const run of await runBatch(i + 1, points)) runsByPoint.set(run.point.name, run);
      }, 2 * BATCH_WAIT_MS + 300_000); // its waits, the racing step's, the restart's and the turns' ends

      for (const point of points) {
        it(`${point.name}: killed, restarted, resumed and completed`, async () => {
          const run = runsByPoint.get(point.name);
          if (!run) throw new Error(`${point.name}: its batch did not run (see the batch's error)`);
          const { tag, k, planId } = run;
          if (run.failure) {
            rows.push({ point: point.name, batch: run.batch.index, resumed: false, redispatches: 0, plannerReasks: 0, byKey: 0, seconds: 0, phases: run.failure.message });
            throw run.failure;
          }
          const lastOrca = chat(tag).filter((r) => agentOf(r) === 'orca' && /RESUME/.test(r.lastUser) && lastToolResult(r)).at(-1);
          const result = lastOrca ? JSON.parse(lastToolResult(lastOrca)!.content) : undefined;
          const file = planFile(planId!);
          const counts = Object.fromEntries(STEPS.map((s) => [s.id, dispatchesOf(tag, s.id).length]));
          const { started, killedAt, restartedAt } = run.batch;
          rows.push({
            point: point.name,
            batch: run.batch.index,
            resumed: result?.status === 'completed',
            redispatches:
              Object.values(counts).reduce((sum, c) => sum + Math.max(0, c - 1), 0) +
              STEPS.reduce((sum, s) => sum + Math.max(0, reviewsOf(tag, s.id).length - 1), 0),
            plannerReasks: plannerTurns(tag).length - 1,
            byKey: run.foundByKey.size,
            seconds: (run.completedAt! - started) / 1000,
            phases: [run.heldAt! - started, killedAt - started, restartedAt - killedAt, run.completedAt! - restartedAt].map((ms) => (ms / 1000).toFixed(1)).join(' / '),
          });

          expect(run.turn).toBeDefined();
          expect(run.turn!.error).toBeUndefined();
          expect(file.status).toBe('completed');
          expect(result).toMatchObject({ status: 'completed', plan_id: planId });
          for (const s of STEPS) {
            const count = counts[s.id]!;
            if (run.completedAtKill.has(s.id) || (point.atResume === 'Mark done' && s.id === `s${k}`)) {
              expect(count, `${s.id} was completed at the kill or marked done: never dispatched again`).toBe(1);
            }
            else if (run.inFlight.has(s.id)) expect(count, `${s.id} was in flight at the kill: at most once more`).toBeLessThanOrEqual(2);
            else expect(count, `${s.id} had not started at the kill`).toBe(1);
            const step = file.steps.find((x: { id: string }) => x.id === s.id);
            // Same idempotency key: still attempt 1, in the session titled for attempt 1.
            expect(step).toMatchObject({ status: 'completed', attempts: 1 });
            if (run.sessionAtKill.has(s.id)) expect(step.session_id).toBe(run.sessionAtKill.get(s.id));
            const session = (await server.client.session.get({ sessionID: step.session_id })).data!;
            expect(session.title).toBe(`Orca ${s.agent} · ${s.id} attempt 1`);
            if (count === 2) {
              // The second dispatch went to the same session: its conversation holds the first prompt too.
              const [first, second] = dispatchesOf(tag, s.id);
              expect(second!.messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes(`# Your step: ${s.id}`))).toHaveLength(2);
              expect(first!.aborted).toBe(true);
              expect(journal(planId!)).toContainEqual(
                expect.objectContaining({ kind: 'reconcile', role: 'specialist', decision: 'redispatch', idempotency_key: `${planId}:${s.id}:1`, session_id: step.session_id }),
              );
            }
          }
          // Exactly one specialist session per step (no second attempt session was ever opened), and
          // one reviewer session per coder step (the reviewer gate is on for coder by default).
          const sessions = (await allSessions(server.client)) as Array<{ title: string; metadata?: { orca?: { plan_id?: string } } }>;
          const ofPlan = sessions.filter((x) => x.metadata?.orca?.plan_id === planId && /· s\d attempt/.test(x.title));
          const expected = STEPS.flatMap((s) => [
            `Orca ${s.agent} · ${s.id} attempt 1`,
            // A step the human marked done is not reviewed: they vouched for it.
            ...(s.agent === 'coder' && !(point.atResume === 'Mark done' && s.id === `s${k}`) ? [`Orca reviewer · ${s.id} attempt 1`] : []),
          ]);
          expect(ofPlan.map((x) => x.title).sort()).toEqual(expected.sort());

          // A session whose id had not reached the file at the kill was found by its idempotency key and reused.
          for (const id of run.foundByKey) {
            expect(journal(planId!)).toContainEqual(expect.objectContaining({ kind: 'reconcile', decision: 'reused_session', idempotency_key: `${planId}:${id}:1` }));
          }
          // The planner is asked again only when it was the side effect in flight.
          expect(plannerTurns(tag).length).toBe(point.kind === 'drafting' ? 2 : 1);
          // A specialist turn in flight at the kill (coder and tester change files) waits at the resume gate;
          // a reviewer's turn (read-only) simply runs again.
          // A session opened but not yet prompted at the kill is simply prompted: only a prompt sent asks.
          const interrupted = point.kind === 'reviewing' ? undefined : [...run.inFlight][0];
          if (point.kind === 'dispatched') expect(interrupted).toBe(`s${k}`);
          expect(run.askedToResume, 'the resume gate asked').toBe(interrupted !== undefined);
          if (interrupted) {
            expect(journal(planId!)).toContainEqual(expect.objectContaining({ kind: 'reconcile', decision: 'interrupted', idempotency_key: `${planId}:${interrupted}:1` }));
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
          // Killed with the approval dialog open: the file kept the gate, and the resumed plan asked anew (a new question, approved).
          if (point.kind === 'pending_approval') {
            expect(run.fileAfterKill).toMatchObject({ status: 'pending_approval', waiting_for: 'approval' });
            expect(run.approvalIds).toHaveLength(2);
            expect(file.decisions).toContainEqual(expect.objectContaining({ gate: 'approval', option: 'Approve' }));
          }

          // The journal shows the kill and the resume: state entries continue after the restart.
          const after = journal(planId!).filter((e) => Date.parse(e.at) > killedAt);
          expect(after).toContainEqual(expect.objectContaining({ kind: 'event', event: expect.objectContaining({ type: 'xstate.init' }) })); // restored
          expect(after).toContainEqual(expect.objectContaining({ kind: 'state', actor: 'plan', state: 'completed' }));
          expect(model.errors()).toEqual([]);
        }, 60_000);
      }
    });
  });
});

// Several steps in flight at one kill: two plans, one of 2 and one of 4 steps with no dependency,
// all of them running when the server is killed (each step's first model request held). After the
// restart every step of both plans waits at its own resume gate. The person at the TUI answers each
// dialog as it comes, Re-run; each plan must ask every one of its steps (not take the second for
// the first one still open) and complete. On a project without git: the matrix above runs in one.
describe('crash matrix: kill -9 with 2 and 4 parallel steps in flight, each asked at its resume gate after the restart', () => {
  const WIDTHS = [2, 4] as const;
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  reportOnFailure(() => ({ server, model }));

  type ParallelRun = { width: number; tag: string; planId?: string; sessionAtKill: Map<string, string>; resumed?: Turn; turn?: { error?: unknown }; asked: string[] };
  const runs = new Map<number, ParallelRun>();
  let failure: Error | undefined;

  const plansDir = () => join(server.projectDir, '.opencode', 'plans');
  const planFile = (planId: string) => JSON.parse(readFileSync(join(plansDir(), `${planId}.json`), 'utf8'));
  const journal = (planId: string) =>
    readFileSync(join(plansDir(), `${planId}.journal.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });
  const planOf = (tag: string) =>
    readdirSync(plansDir())
      .filter((f) => /^plan_\w+\.json$/.test(f))
      .map((f) => f.slice(0, -'.json'.length))
      .find((id) => {
        try {
          return planFile(id).goal === `SCENARIO:${tag} goal`;
        } catch {
          return false;
        }
      });
  const chat = (tag: string) => model.chatRequests().filter((r) => scenarioOf(r) === tag);
  const dispatchesOf = (tag: string, stepId: string) => chat(tag).filter((r) => startsTurn(r) && stepOf(r) === stepId && agentOf(r) === 'tester');

  async function startTurn(text: string): Promise<Turn> {
    const session = (await server.client.session.create({ title: text })).data!;
    const done = server.client.session.prompt(
      { sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] },
      { fetch: (input, init) => fetchWithTimeout(input, { ...init, timeoutMs: TURN_TIMEOUT_MS }) },
    );
    void done.catch(() => {}); // a killed server fails this request
    return { session, done };
  }

  const look = questionWatch(() => server, 2_000);

  /** One look at the open dialogs: pages read on, each plan approved, each resume gate answered Re-run (and which step it asked). */
  async function answerDialogs(resume: boolean): Promise<void> {
    if (!look.due()) return;
    try {
      const open = await openQuestions(server);
      await readOn(server, open);
      for (const q of open.filter((x) => !isPage(x))) {
        const text = q.questions[0]?.question ?? '';
        const resuming = resume ? [...runs.values()].find((r) => r.planId && text.includes(`Plan ${r.planId}: step`)) : undefined;
        if (resuming) {
          resuming.asked.push(/Plan plan_\w+: step (s\d)\b/.exec(text)![1]!);
          await reply(server, q, [['Re-run'], ['No guidance']]);
          continue;
        }
        if (!resume && [...runs.values()].some((r) => text.includes(`SCENARIO:${r.tag} goal`))) await reply(server, q, [['Approve'], ['No guidance']]);
      }
    } catch (error) {
      look.again();
      throw error;
    }
  }

  beforeAll(async () => {
    plugin = await snapshotDist('orca-crash-parallel-');
    model = await startScriptedModel({ respond });
    server = await startOpencode({ modelUrl: model.url, git: false, config: { plugin: [[plugin.url, SHARED_TREE]] }, requestTimeoutMs: 60_000 });
    for (const width of WIDTHS) runs.set(width, { width, tag: `parallel${width}`, sessionAtKill: new Map(), asked: [] });
    try {
      // 1. Every step's first model request is held: each plan runs all its steps at once, and waits.
      for (const run of runs.values()) for (let k = 1; k <= run.width; k++) armed.add(holdKey(run.tag, `s${k}`));
      await Promise.all([...runs.values()].map((run) => startTurn(`SCENARIO:${run.tag}`)));
      await waitFor(
        async () => {
          await answerDialogs(false);
          return [...runs.values()].every((run) => Array.from({ length: run.width }, (_, i) => held.has(holdKey(run.tag, `s${i + 1}`))).every(Boolean));
        },
        { timeoutMs: BATCH_WAIT_MS, intervalMs: 50, description: 'every step of both plans in flight' },
      );
      for (const run of runs.values()) {
        run.planId = planOf(run.tag);
        if (!run.planId) throw new Error(`no plan file for ${run.tag}`);
      }

      // 2. kill -9 with every step in flight; restart on the same project and home.
      await server.kill9();
      armed.clear();
      await releaseAllKilled();
      server = await restartOpencode(server);
      // Each step's session, from its file or (its id written behind) by its idempotency key.
      const byKey = new Map(
        ((await allSessions(server.client)) as Array<{ id: string; metadata?: { orca?: { idempotency_key?: string } } }>)
          .filter((x) => x.metadata?.orca?.idempotency_key)
          .map((x) => [x.metadata!.orca!.idempotency_key!, x.id]),
      );
      for (const run of runs.values()) {
        for (const s of planFile(run.planId!).steps as Array<{ id: string; session_id?: string }>) {
          const sessionId = s.session_id ?? byKey.get(`${run.planId}:${s.id}:1`);
          if (sessionId) run.sessionAtKill.set(s.id, sessionId);
        }
      }

      // 3. Resume both plans; answer every resume gate as its dialog comes, until both plan files say completed.
      for (const run of runs.values()) run.resumed = await startTurn(`SCENARIO:${run.tag} RESUME ${run.planId}`);
      await waitFor(
        async () => {
          await answerDialogs(true);
          return [...runs.values()].every((run) => planFile(run.planId!).status === 'completed');
        },
        { timeoutMs: BATCH_WAIT_MS, intervalMs: 100, description: 'both plans to complete after resume' },
      );
      for (const run of runs.values()) {
        run.turn = await Promise.race([
          run.resumed!.done,
          new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: 'the resumed Orca turn did not end within 60 s' }), 60_000)),
        ]).catch((error: unknown) => ({ error }));
      }
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      for (const run of runs.values()) if (run.planId) failure.message += `\n${run.tag}: ${JSON.stringify(planFile(run.planId).steps.map((s: any) => [s.id, s.status]))}, asked ${run.asked.join(', ') || 'nothing'}`;
    }
  }, 2 * BATCH_WAIT_MS + 240_000);

  afterAll(async () => {
    releaseAll();
    await server?.stop();
    await model?.close();
    plugin?.remove();
  }, 30_000);

  for (const width of WIDTHS) {
    it(`${width} steps in flight: each asked at its own resume gate, Re-run, run once more in its session, plan completed`, async () => {
      if (failure) throw failure;
      const run = runs.get(width)!;
      const { tag, planId } = run;
      const ids = Array.from({ length: width }, (_, i) => `s${i + 1}`);
      expect(run.turn?.error).toBeUndefined();
      const lastOrca = chat(tag).filter((r) => agentOf(r) === 'orca' && /RESUME/.test(r.lastUser) && lastToolResult(r)).at(-1);
      expect(lastOrca, 'the resumed Orca turn reported orca_ask_planner’s result').toBeDefined();
      expect(JSON.parse(lastToolResult(lastOrca!)!.content)).toMatchObject({ status: 'completed', plan_id: planId });

      // Every step was asked, each once, in its own dialog; the plan recorded a Re-run for each.
      expect([...run.asked].sort()).toEqual(ids);
      const file = planFile(planId!);
      expect(file.status).toBe('completed');
      expect(
        file.decisions
          .filter((d: { gate: string }) => d.gate === 'resume')
          .map((d: { option: string; step_id: string }) => `${d.option}:${d.step_id}`)
          .sort(),
      ).toEqual(ids.map((id) => `Re-run:${id}`));
      for (const id of ids) {
        // In flight at the kill (held at the model, never answered), run once more after its Re-run: attempt 1, in the same session.
        expect(dispatchesOf(tag, id), `${id}: the held dispatch and the re-run`).toHaveLength(2);
        const step = file.steps.find((x: { id: string }) => x.id === id);
        expect(step).toMatchObject({ status: 'completed', attempts: 1 });
        expect(step.session_id).toBe(run.sessionAtKill.get(id));
        expect(journal(planId!)).toContainEqual(expect.objectContaining({ kind: 'reconcile', decision: 'interrupted', idempotency_key: `${planId}:${id}:1` }));
      }
      expect(model.errors()).toEqual([]);
    }, 60_000);
  }
});
