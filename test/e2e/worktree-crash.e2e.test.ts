// Crash safety of steps that run in their own git worktree, on the real opencode binary with a
// scripted model: kill -9 while a step runs in its worktree, and while its merge into the user's
// tree is in flight; the server is restarted on the same home, the plan is resumed with
// `RESUME plan_…` (resume gate answered Re-run by hitl.auto.resume), and it must finish with each
// step's change landed exactly once, nothing staged, no commit, and no slot held once the plan ended.
//
// One plan per point, each in a project of its own (its own git repository: the merge lands in the
// user's tree), all on one server (openProject), as crash-matrix.e2e batches its points: every plan
// is started at once and held at its own kill point, the server is killed and restarted once, then
// every plan is resumed at once. Each point keeps its own test, asserting on what the batch recorded.
// - `running`: s1's first model request is held (the scripted model does not answer) until the kill;
//   after the restart s1 runs again, attempt 1, in the same worktree and session.
// - `merge_after`: a `git` shim first on the server's PATH, told by a file in the repository's git
//   directory what to do there, runs the real `git apply` of s1's merge, then touches a marker and
//   sleeps: the kill finds the change already in the user's tree, and the retried merge (the
//   restored step re-enters `merging`) must see it applied and not apply it twice.
// - `merge_before`: the shim touches the marker and sleeps BEFORE the real apply: killed with nothing
//   applied, the retried merge applies it once.
// - `reset`: the shim touches the marker and sleeps before the first `git reset --hard` (s1's worktree
//   slot, made ahead while the planner drafted, being reset to s1's start): after the restart s1's
//   slot is reset anew and s1 runs once.
// The restart runs without the shim. Every plan is the same chain s1 → s2 of coder steps, each
// reading log.txt (committed) in its worktree and writing it back with one line more.
// The last describe runs s1 and s2 side by side instead, both clashing with a line the user added,
// and kills the server while both wait at the merge gate: each must be asked after the restart.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDist } from '../support/dist-snapshot.js';
import { reportOnFailure } from '../support/failure-report.js';
import { orcaWorktrees } from '../support/opencode-sandbox.js';
import { openProject, restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, textOf, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { fetchWithTimeout } from '../support/wait-for.js';
import { agentOf, jsonReply, orcaResumeRelay, passingReview, scenarioOf } from './team.js';
import { isPage, openQuestions, questionWatch, readOn, reply } from './hitl-answers.js';
import { readLines } from '../support/read-tool.js';

type Point = 'running' | 'merge_after' | 'merge_before' | 'reset';
const POINTS: Point[] = ['running', 'merge_after', 'merge_before', 'reset'];

const STEPS = [
  { id: 's1', agent: 'coder', files: ['log.txt'], description: 'Append the line of s1 to log.txt' },
  { id: 's2', agent: 'coder', depends_on: ['s1'], files: ['log.txt'], description: 'Append the line of s2 to log.txt' },
] as const;
/** The parallel scenario's plan: s1 and s2 side by side, each in its own worktree, each appending its line to log.txt. */
const PARALLEL = 'parallel_merge';
const PARALLEL_STEPS = STEPS.map(({ id, agent, files, description }) => ({ id, agent, files, description }));
const HEADER = '# log of the e2e project';
const lineOf = (step: string) => `${step} appended this line`;
const asText = (ls: readonly string[]) => `${ls.join('\n')}\n`;
const FINAL = asText([HEADER, lineOf('s1'), lineOf('s2')]);

/** The Orca turns block while their plans run: minutes on a loaded machine. */
const TURN_TIMEOUT_MS = 600_000;
/** Each bounded wait (the kill point; the plan's completion after the resume): generous, the machine is shared. */
const WAIT_MS = 180_000;

const stepOf = (req: RecordedRequest) => /# Your step: (s\d)\b/.exec(req.lastUser)?.[1];
const reviewedStepOf = (req: RecordedRequest) => /# Quality gate: review of step (s\d)\b/.exec(req.lastUser)?.[1];
/** A request that starts a turn (its last message is the user's), not one answering a tool result. */
const startsTurn = (req: RecordedRequest) => req.messages.at(-1)?.role === 'user';
/** The session's directory, from OpenCode's <env> block in the system prompt. */
function workdirOf(req: RecordedRequest): string {
  const found = /Working directory: (.+)/.exec(req.system);
  if (!found) throw new Error('no "Working directory:" in the system prompt');
  return found[1]!.trim();
}
/** Tool results since the turn's prompt (a re-run turn follows the first prompt in the same session). */
function turnToolResults(req: RecordedRequest): string[] {
  const lastUser = req.messages.map((m) => m.role).lastIndexOf('user');
  return req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').map((m) => textOf(m.content));
}

// Held requests: a key (`<scenario>:<step>`) is armed before its request arrives; the request then waits for release.
const armed = new Set<string>();
const held = new Map<string, () => void>();
function release(key: string) {
  held.get(key)?.();
  held.delete(key);
}
function releaseAll() {
  for (const key of [...held.keys()]) release(key);
}

/** A coder step: read log.txt in its own directory, write it back with its line appended, report. */
function coder(req: RecordedRequest): ScriptedReply {
  const step = stepOf(req)!;
  const dir = workdirOf(req);
  const results = turnToolResults(req);
  if (results.length === 0) return { toolCalls: [{ name: 'read', arguments: { filePath: join(dir, 'log.txt') } }] };
  if (results.length === 1) {
    const current = readLines(results[0]!);
    if (current.length === 0) throw new Error(`read of log.txt in ${dir} gave no lines: ${results[0]!.slice(0, 300)}`);
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'log.txt'), content: asText([...current, lineOf(step)]) } }] };
  }
  return jsonReply({ type: 'success', summary: `${step} appended its line to log.txt`, artifacts: ['log.txt'], key_findings: [] });
}

function script(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    const steps = scenario === PARALLEL ? PARALLEL_STEPS : STEPS;
    return jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps, assumptions: [], risks: [], verification: [] });
  }
  if (agent === 'coder') return coder(req);
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

function respond(req: RecordedRequest): ScriptedReply | Promise<ScriptedReply> {
  const reply = script(req);
  const key = agentOf(req) === 'coder' && startsTurn(req) ? `${scenarioOf(req)}:${stepOf(req)}` : undefined;
  if (!key || !armed.has(key)) return reply;
  armed.delete(key);
  return new Promise((resolve) => held.set(key, () => resolve(reply)));
}

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=orca-e2e', '-c', 'user.email=e2e@orca.invalid', ...args], { cwd: dir, encoding: 'utf8' });

/** What the shim does in a repository whose git directory holds SHIM_MODE: see gitShim. */
type ShimMode = 'after' | 'before' | 'reset';
const SHIM_MODES: Partial<Record<Point, ShimMode>> = { merge_after: 'after', merge_before: 'before', reset: 'reset' };
/** In a repository's common git directory, which its worktree slots share: the shim's mode there, and the marker it touches when it holds. */
const SHIM_MODE = 'orca-e2e-shim-mode';
const SHIM_HIT = 'orca-e2e-shim-hit';
/** How long the shim holds git: longer than the batch waits at its kill points (the kill ends it sooner). */
const SHIM_HOLD_S = 600;
const shimHitOf = (s: OpencodeServer) => join(s.projectDir, '.git', SHIM_HIT);

/**
 * A `git` first on the server's PATH: the real git, except in a repository whose common git
 * directory holds SHIM_MODE. There an `apply` that is not `--check` (the merge landing a step's
 * changes) touches SHIM_HIT and sleeps, after the real apply (`after`) or instead of it (`before`),
 * until the kill ends it; with `reset`, a `reset --hard` (a worktree slot reset to a step's start)
 * does that instead. Only those calls ask git for the repository (never reading stdin: `apply`
 * reads its patch there).
 */
function gitShim(): string {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  if (!realGit.startsWith('/')) throw new Error(`command -v git gave ${JSON.stringify(realGit)}`);
  const dir = mkdtempSync(join(tmpdir(), 'orca-wt-crash-shim-'));
  writeFileSync(
    join(dir, 'git'),
    [
      '#!/bin/sh',
      'apply=0; check=0; reset=0; hard=0',
      'for a in "$@"; do case "$a" in apply) apply=1 ;; --check) check=1 ;; reset) reset=1 ;; --hard) hard=1 ;; esac; done',
      'landing=0; resetting=0',
      'if [ "$apply" = 1 ] && [ "$check" = 0 ]; then landing=1; fi',
      'if [ "$reset" = 1 ] && [ "$hard" = 1 ]; then resetting=1; fi',
      'if [ "$landing" = 1 ] || [ "$resetting" = 1 ]; then',
      `  common=$("${realGit}" rev-parse --git-common-dir </dev/null 2>/dev/null) || common=`,
      '  mode=',
      `  if [ -n "$common" ] && [ -f "$common/${SHIM_MODE}" ]; then mode=$(cat "$common/${SHIM_MODE}"); fi`,
      `  hold() { touch "$common/${SHIM_HIT}"; exec sleep ${SHIM_HOLD_S}; }`,
      '  case "$mode:$landing:$resetting" in',
      `    after:1:*) "${realGit}" "$@"; hold ;;`,
      '    before:1:*) hold ;;',
      '    reset:*:1) hold ;;',
      '  esac',
      'fi',
      `exec "${realGit}" "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'git'), 0o755);
  return dir;
}

type Journal = Array<{ at: string; kind: string; actor?: string; state?: string; [k: string]: unknown }>;
/** The kill and the restart, shared by every point of the batch. */
type BatchTimes = { started: number; killedAt: number; restartedAt: number };
/** What the batch recorded of one point, for its test to assert on. */
type Run = {
  point: Point;
  /** The point's own project (its own git repository) on the batch's server. */
  project: OpencodeServer;
  head: string;
  commits: string;
  batch: BatchTimes;
  planId?: string;
  /** Why the first Orca turn ended before the kill point, if it did. */
  early?: string;
  heldAt?: number;
  logAtKill?: string;
  journalAtKill?: Journal;
  resumed?: Promise<{ error?: unknown }>;
  completedAt?: number;
  turn?: { error?: unknown };
  /** What stopped the batch from taking this point to its end. */
  failure?: Error;
};
/** A point the batch took to its end: killed at its kill point, restarted, resumed. */
type Finished = Run & Required<Pick<Run, 'planId' | 'logAtKill' | 'journalAtKill' | 'turn'>>;

/** The folder of Orca's worktree slots and records for a project's repository, ending in a separator. */
const worktreesOf = (s: OpencodeServer) => orcaWorktrees(s.homeDir, s.projectDir) + sep;
/** Every path under a project's worktree folder, relative to it. */
function worktreeLeftovers(s: OpencodeServer): string[] {
  const folder = worktreesOf(s);
  return existsSync(folder) ? readdirSync(folder, { recursive: true, encoding: 'utf8' }) : [];
}

/** Servers this file started (a start, a restart): printed with the phases. */
let serversStarted = 0;

describe('kill -9 while a step runs in its worktree, and while its merge is in flight', () => {
  let model: ScriptedModel;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  let server: OpencodeServer;
  let shim: string | undefined;
  const runs = new Map<Point, Run>();
  let batchFailure: Error | undefined;
  reportOnFailure(() => ({ server, model }));
  const fileStarted = Date.now();

  const plansDir = (s: OpencodeServer) => join(s.projectDir, '.opencode', 'plans');
  const planFile = (s: OpencodeServer, planId: string) => JSON.parse(readFileSync(join(plansDir(s), `${planId}.json`), 'utf8'));
  const journal = (s: OpencodeServer, planId: string): Journal =>
    readFileSync(join(plansDir(s), `${planId}.journal.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  const chat = (point: Point) => model.chatRequests().filter((r) => scenarioOf(r) === point);
  const dispatches = (point: Point, step: string) => chat(point).filter((r) => agentOf(r) === 'coder' && startsTurn(r) && stepOf(r) === step);
  const reviews = (point: Point, step: string) => chat(point).filter((r) => agentOf(r) === 'reviewer' && startsTurn(r) && reviewedStepOf(r) === step);
  /** The plan whose goal carries the scenario tag (its file exists from the first flush). */
  const planOf = (s: OpencodeServer, point: Point) =>
    existsSync(plansDir(s))
      ? readdirSync(plansDir(s))
          .filter((f) => /^plan_\w+\.json$/.test(f))
          .map((f) => f.slice(0, -'.json'.length))
          .find((id) => {
            try {
              return planFile(s, id).goal === `SCENARIO:${point} goal`;
            } catch {
              return false;
            }
          })
      : undefined;

  /** Start an Orca turn without waiting for it (it blocks while the plan runs). */
  async function startTurn(s: OpencodeServer, text: string) {
    const session = (await s.client.session.create({ title: text })).data!;
    const done = s.client.session.prompt(
      { sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] },
      { fetch: (input, init) => fetchWithTimeout(input, { ...init, timeoutMs: TURN_TIMEOUT_MS }) },
    ) as Promise<{ error?: unknown }>;
    void done.catch(() => {}); // a killed server fails this request
    return done;
  }

  /** A point's project on the batch's server: log.txt committed, and the shim's mode for its repository. */
  async function openPoint(point: Point, batch: BatchTimes): Promise<Run> {
    const project = await openProject(server, { requestTimeoutMs: 60_000 });
    const dir = project.projectDir;
    writeFileSync(join(dir, 'log.txt'), asText([HEADER]));
    gitIn(dir, 'add', 'log.txt');
    gitIn(dir, 'commit', '-q', '-m', 'seed log.txt');
    const mode = SHIM_MODES[point];
    if (mode) writeFileSync(join(dir, '.git', SHIM_MODE), mode);
    return { point, project, head: gitIn(dir, 'rev-parse', 'HEAD').trim(), commits: gitIn(dir, 'rev-list', '--count', 'HEAD').trim(), batch };
  }

  /** At its kill point: s1's first model request held, or s1's git call inside the shim; and its plan file found. */
  function atKillPoint(run: Run): boolean {
    const there = run.point === 'running' ? held.has(`${run.point}:s1`) : existsSync(shimHitOf(run.project));
    if (there) run.planId ??= planOf(run.project, run.point);
    return there && run.planId !== undefined;
  }

  const failed = (some: Run[], why: (run: Run) => string, error: unknown) => {
    for (const run of some) run.failure ??= new Error(`${run.point}: ${why(run)}: ${error instanceof Error ? error.message : String(error)}`);
  };

  /** Takes every point to its kill point, kills and restarts the server once (without the shim), resumes every plan to completion. */
  async function runBatch(batch: BatchTimes) {
    for (const run of await Promise.all(POINTS.map((point) => openPoint(point, batch)))) runs.set(run.point, run);
    const all = [...runs.values()];
    const alive = () => all.filter((r) => !r.failure);

    // 1. Up to the kill points, every plan at once.
    armed.add('running:s1');
    for (const run of all) {
      void startTurn(run.project, `SCENARIO:${run.point}`).then(
        (r) => (run.early = `the first Orca turn ended before the kill point: ${JSON.stringify(r).slice(0, 500)}`),
        (e: unknown) => (run.early = `the first Orca turn failed before the kill point: ${String(e)}`),
      );
    }
    const pending = () => alive().filter((r) => r.heldAt === undefined);
    await waitFor(
      () => {
        for (const run of pending()) {
          if (run.early) run.failure = new Error(`${run.point}: ${run.early}`);
          else if (atKillPoint(run)) run.heldAt = Date.now();
        }
        return pending().length === 0;
      },
      { timeoutMs: WAIT_MS, intervalMs: 50, description: 'every point at its kill point' },
    ).catch((error) => failed(pending(), () => 'did not reach its kill point', error));

    // 2. kill -9; the held request goes (its connection is gone); restart on the same projects and home, without the shim.
    await server.kill9();
    batch.killedAt = Date.now();
    // The held request's connection went with the server. Release it only once the model has seen it
    // close: released earlier (a busy machine), its reply is written into the dead connection and the
    // request looks answered.
    const running = alive().find((r) => r.point === 'running');
    if (running) {
      await waitFor(() => dispatches('running', 's1')[0]?.aborted, { timeoutMs: 30_000, intervalMs: 20, description: "running: the held request's connection closed by the kill" }).catch((error) =>
        failed([running], () => 'its held request was not seen closed', error),
      );
    }
    armed.clear(); // a hold not reached before the kill must not catch the resumed dispatch
    releaseAll();
    for (const run of alive()) {
      run.logAtKill = readFileSync(join(run.project.projectDir, 'log.txt'), 'utf8');
      run.journalAtKill = journal(run.project, run.planId!);
    }
    server = await restartOpencode(server, { env: {} });
    serversStarted++;
    batch.restartedAt = Date.now();

    // 3. Resume every plan; a resume gate (if asked) is answered by hitl.auto.resume=rerun.
    for (const run of alive()) run.resumed = startTurn(run.project, `SCENARIO:${run.point} RESUME ${run.planId}`);
    const unfinished = () => alive().filter((r) => r.completedAt === undefined);
    await waitFor(
      () => {
        for (const run of unfinished()) if (planFile(run.project, run.planId!).status === 'completed') run.completedAt = Date.now();
        return unfinished().length === 0;
      },
      { timeoutMs: WAIT_MS, intervalMs: 100, description: 'every plan completed after the resume' },
    ).catch((error) =>
      failed(unfinished(), (r) => `plan ${r.planId} did not complete after the resume (steps ${JSON.stringify(planFile(r.project, r.planId!).steps.map((s: any) => [s.id, s.status]))})`, error),
    );
    await Promise.all(
      alive().map(async (run) => {
        run.turn = await Promise.race([
          run.resumed!,
          new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: 'the resumed Orca turn did not end within 60 s' }), 60_000)),
        ]).catch((error: unknown) => ({ error }));
      }),
    );
  }

  beforeAll(async () => {
    plugin = await snapshotDist('orca-wt-crash-');
    model = await startScriptedModel({ respond });
    shim = gitShim();
    const batch: BatchTimes = { started: Date.now(), killedAt: 0, restartedAt: 0 };
    // Its own folder serves no point (each has a project of its own): not booted.
    server = await startOpencode({
      modelUrl: model.url,
      config: { plugin: [[plugin.url, { hitl: { auto: { approval: 'approve', resume: 'rerun', deviation: 'stop' } } }]] },
      env: { PATH: `${shim}:${process.env.PATH}` },
      requestTimeoutMs: 60_000,
      boot: false,
    });
    serversStarted++;
    await runBatch(batch).catch((error: unknown) => {
      batchFailure = error instanceof Error ? error : new Error(String(error));
    });
  }, 2 * WAIT_MS + 180_000);

  afterAll(async () => {
    releaseAll();
    await Promise.all([...runs.values()].map((run) => run.project.stop()));
    await server?.stop();
    await model?.close();
    plugin?.remove();
    if (shim) rmSync(shim, { recursive: true, force: true });
    const s = (ms: number) => (ms / 1000).toFixed(1);
    const phases = (r: Run) => [r.heldAt! - r.batch.started, r.batch.killedAt - r.heldAt!, r.batch.restartedAt - r.batch.killedAt, r.completedAt! - r.batch.restartedAt].map(s).join(' / ');
    const row = (p: Point) => {
      const run = runs.get(p);
      const failure = run?.failure ?? batchFailure;
      return `| ${p} | ${failure || !run ? `FAILED: ${String(failure).slice(0, 200)}` : phases(run)} |`;
    };
    console.log(
      [
        '| point | at kill point / kill / restart / resume→completed (s) |',
        '| --- | --- |',
        ...POINTS.map(row),
        `OpenCode servers started: ${serversStarted}`,
        `total (file): ${s(Date.now() - fileStarted)} s`,
      ].join('\n'),
    );
  }, 60_000);

  function runOf(point: Point): Finished {
    if (batchFailure) throw batchFailure;
    const run = runs.get(point);
    if (!run) throw new Error(`${point}: the batch did not open its project`);
    if (run.failure) throw run.failure;
    return run as Finished;
  }

  /** What every point must end with: completed, each line landed once in order, nothing staged or committed, no worktree left. */
  async function expectCleanEnd(run: Finished) {
    const { project, planId } = run;
    expect(run.turn.error).toBeUndefined();
    const lastOrca = chat(run.point).filter((r) => agentOf(r) === 'orca' && /RESUME/.test(r.lastUser) && lastToolResult(r)).at(-1);
    expect(lastOrca, 'the resumed Orca turn reported orca_ask_planner’s result').toBeDefined();
    expect(JSON.parse(lastToolResult(lastOrca!)!.content)).toMatchObject({ status: 'completed', plan_id: planId });
    const file = planFile(project, planId);
    expect(file.status).toBe('completed');
    expect(file.steps.map((s: any) => [s.id, s.status, s.attempts])).toEqual([
      ['s1', 'completed', 1],
      ['s2', 'completed', 1],
    ]);
    expect(file.decisions.filter((d: any) => d.gate === 'merge')).toEqual([]);

    const dir = project.projectDir;
    expect(readFileSync(join(dir, 'log.txt'), 'utf8')).toBe(FINAL);
    expect(gitIn(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(run.head);
    expect(gitIn(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(run.commits);
    expect(gitIn(dir, 'status', '--porcelain', '--', 'log.txt')).toBe(' M log.txt\n');
    // s2 started from the user's tree with s1's line landed: its worktree read it.
    const s2 = dispatches(run.point, 's2');
    expect(s2).toHaveLength(1);
    // No slot of this project's repository is held once the plan ended, and no record of it is left: bounded polling, not a sleep.
    const held = () => worktreeLeftovers(project).filter((path) => path.endsWith('.claim.json') || path.includes(planId));
    await waitFor(() => held().length === 0, { timeoutMs: 15_000, description: `no claim or record under ${worktreesOf(project)}` }).catch(() => {});
    expect(held()).toEqual([]);
    // The chain s1 → s2 needed one slot at a time: one free slot stays, warm, in this repository's folder; git knows it.
    const listed = gitIn(dir, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '));
    expect(listed).toEqual([`worktree ${dir}`, `worktree ${worktreesOf(project)}slots${sep}1`]);
    expect(model.errors()).toEqual([]);
    return file;
  }

  it('killed while s1 runs in its worktree: s1 runs again, attempt 1, in the same worktree and session; each line lands once', async () => {
    const run = runOf('running');
    const file = await expectCleanEnd(run);
    const { project, planId } = run;

    // Nothing had landed at the kill: s1 was waiting for its model.
    expect(run.logAtKill).toBe(asText([HEADER]));
    // s1 was dispatched twice: the held turn (cut by the kill) and the re-run, both in its slot (`slots/1`).
    const s1 = dispatches('running', 's1');
    expect(s1).toHaveLength(2);
    expect(s1[0]!.aborted).toBe(true);
    const worktree = workdirOf(s1[0]!);
    expect(worktree).toBe(`${worktreesOf(project)}slots${sep}1`);
    expect(workdirOf(s1[1]!)).toBe(worktree);
    // Every request of the re-run turn (read, write, report) worked there too, and so did its reviewer.
    const rerun = chat('running').filter((r) => agentOf(r) === 'coder' && stepOf(r) === 's1' && r.at >= s1[1]!.at);
    expect(rerun.length).toBeGreaterThanOrEqual(3);
    for (const r of rerun) expect(workdirOf(r)).toBe(worktree);
    expect(reviews('running', 's1').map(workdirOf)).toEqual([worktree]);
    // The same session: its conversation holds both prompts; the session's own directory is the worktree.
    expect(s1[1]!.messages.filter((m) => m.role === 'user' && textOf(m.content).includes('# Your step: s1'))).toHaveLength(2);
    const step = file.steps[0];
    const session = (await project.client.session.get({ sessionID: step.session_id })).data!;
    expect(session.directory).toBe(worktree);
    expect(session.title).toBe('Orca coder · s1 attempt 1');

    // The resume gate asked and hitl.auto.resume answered Re-run.
    expect(file.decisions).toContainEqual(expect.objectContaining({ gate: 'resume', option: 'Re-run', channel: 'auto', step_id: 's1' }));
    expect(journal(project, planId)).toContainEqual(
      expect.objectContaining({ kind: 'reconcile', role: 'specialist', decision: 'interrupted', idempotency_key: `${planId}:s1:1`, session_id: step.session_id }),
    );
    // s2 started once s1 had landed and given its slot back: it got the same slot, warm.
    expect(dispatches('running', 's2').map(workdirOf)[0]).toBe(worktree);
  }, 120_000);

  /** The merge in flight at the kill: s1 entered `merging` before it, completed after it, and neither s1 nor its review ran again. */
  function expectMergeRetried(run: Finished, file: any) {
    const { project, planId } = run;
    const s1States = (entries: Journal) => entries.filter((e) => e.kind === 'state' && e.actor === 'step:s1').map((e) => e.state);
    expect(s1States(run.journalAtKill)).toContain('merging');
    expect(s1States(run.journalAtKill)).not.toContain('completed');
    expect(s1States(run.journalAtKill).at(-1)).toBe('merging');
    const after = journal(project, planId).filter((e) => Date.parse(e.at) > run.batch.killedAt);
    expect(after).toContainEqual(expect.objectContaining({ kind: 'event', event: expect.objectContaining({ type: 'xstate.init' }) })); // restored
    expect(s1States(after)).toContain('completed');
    expect(s1States(after)).not.toContain('running');
    expect(dispatches(run.point, 's1')).toHaveLength(1);
    expect(reviews(run.point, 's1')).toHaveLength(1);
    // No resume gate: s1 had finished its work; only its landing was cut short.
    expect(file.decisions.filter((d: any) => d.gate === 'resume')).toEqual([]);
    expect(readFileSync(file.steps[0].diff.patch_path, 'utf8')).toContain(`+${lineOf('s1')}`);
  }

  it('killed while s1’s git apply is in flight, after it applied: the retried merge finds it applied, the line lands once', async () => {
    const run = runOf('merge_after');
    const file = await expectCleanEnd(run);
    // The real apply had run before the kill: the line was in the user's tree already.
    expect(run.logAtKill).toBe(asText([HEADER, lineOf('s1')]));
    expectMergeRetried(run, file);
  }, 120_000);

  it('killed while s1’s git apply is in flight, before it applied: the retried merge applies it once', async () => {
    const run = runOf('merge_before');
    const file = await expectCleanEnd(run);
    // Nothing had been applied at the kill.
    expect(run.logAtKill).toBe(asText([HEADER]));
    expectMergeRetried(run, file);
  }, 120_000);

  it('killed while s1’s worktree slot is reset to its start: the slot is reset anew after the restart, s1 runs once, each line lands once', async () => {
    const run = runOf('reset');
    await expectCleanEnd(run);
    const s1States = (entries: Journal) => entries.filter((e) => e.kind === 'state' && e.actor === 'step:s1').map((e) => e.state);
    expect(s1States(run.journalAtKill).at(-1)).toBe('opening_workspace.opening');
    expect(run.logAtKill).toBe(asText([HEADER]));
    // Nothing ran in the slot before the kill; after it, s1 ran once, in the slot it had claimed.
    const s1 = dispatches('reset', 's1');
    expect(s1).toHaveLength(1);
    expect(workdirOf(s1[0]!)).toBe(`${worktreesOf(run.project)}slots${sep}1`);
    expect(dispatches('reset', 's2').map(workdirOf)).toEqual([workdirOf(s1[0]!)]);
  }, 120_000);
});

// Two parallel steps whose changes both fail to apply: s1 and s2 run side by side, each in its own
// worktree (their first model requests held until both run), and meanwhile the user adds a line
// at the end of log.txt in their tree, where each step adds its own. Both merges clash, so both
// steps wait at the merge gate. The server is killed there and restarted; the resumed plan must
// ask each step at its own merge gate (the person answers Resolved by hand, which no auto policy
// may choose), not take the second for the first one still open, and complete.
describe('kill -9 with two parallel steps at the merge gate: each asked after the restart', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  reportOnFailure(() => ({ server, model }));
  const USER_LINE = 'a line the user added meanwhile';
  const asked: string[] = [];
  let planId: string;
  let head: string;
  let turn: { error?: unknown };
  let statusesAtKill: string[];

  const plansDir = () => join(server.projectDir, '.opencode', 'plans');
  const planFile = () => JSON.parse(readFileSync(join(plansDir(), `${planId}.json`), 'utf8'));
  const chat = () => model.chatRequests().filter((r) => scenarioOf(r) === PARALLEL);
  async function startTurn(text: string) {
    const session = (await server.client.session.create({ title: text })).data!;
    const done = server.client.session.prompt(
      { sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] },
      { fetch: (input, init) => fetchWithTimeout(input, { ...init, timeoutMs: TURN_TIMEOUT_MS }) },
    ) as Promise<{ error?: unknown }>;
    void done.catch(() => {}); // a killed server fails this request
    return done;
  }
  const look = questionWatch(() => server, 2_000);

  beforeAll(async () => {
    plugin = await snapshotDist('orca-wt-parallel-');
    model = await startScriptedModel({ respond });
    // Approval by the policy; the merge gate by the person (hitl.auto.merge unset).
    const config = { plugin: [[plugin.url, { hitl: { auto: { approval: 'approve' } } }]] };
    server = await startOpencode({ modelUrl: model.url, config, requestTimeoutMs: 60_000 });
    serversStarted++;
    const dir = server.projectDir;
    writeFileSync(join(dir, 'log.txt'), asText([HEADER]));
    gitIn(dir, 'add', 'log.txt');
    gitIn(dir, 'commit', '-q', '-m', 'seed log.txt');
    head = gitIn(dir, 'rev-parse', 'HEAD').trim();

    // 1. Both steps in their worktrees, their first requests held; the user's line lands meanwhile; then both go on.
    const keys = ['s1', 's2'].map((step) => `${PARALLEL}:${step}`);
    for (const key of keys) armed.add(key);
    void startTurn(`SCENARIO:${PARALLEL}`);
    await waitFor(() => keys.every((key) => held.has(key)), { timeoutMs: WAIT_MS, intervalMs: 50, description: 'both steps running in their worktrees' });
    writeFileSync(join(dir, 'log.txt'), asText([HEADER, USER_LINE]));
    for (const key of keys) release(key);
    planId = (await waitFor(() => readdirSync(plansDir()).find((f) => /^plan_\w+\.json$/.test(f)), { description: 'the plan file' })).slice(0, -'.json'.length);
    await waitFor(() => planFile().steps.every((s: { status: string }) => s.status === 'awaiting_merge'), {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
      description: 'both steps at the merge gate',
    });
    statusesAtKill = planFile().steps.map((s: { id: string; status: string }) => `${s.id}:${s.status}`);

    // 2. kill -9 at the gates; restart on the same project and home.
    await server.kill9();
    server = await restartOpencode(server);
    serversStarted++;

    // 3. Resume; answer each merge gate as its dialog comes: Resolved by hand.
    const resumed = startTurn(`SCENARIO:${PARALLEL} RESUME ${planId}`);
    await waitFor(
      async () => {
        if (look.due()) {
          try {
            const open = await openQuestions(server);
            await readOn(server, open);
            for (const q of open.filter((x) => !isPage(x))) {
              const step = /^Not applied: (s\d)$/.exec(q.questions[0]?.header ?? '')?.[1];
              if (!step) continue;
              asked.push(step);
              await reply(server, q, [['Resolved by hand'], ['No guidance']]);
            }
          } catch (error) {
            look.again();
            throw error;
          }
        }
        return planFile().status === 'completed';
      },
      { timeoutMs: WAIT_MS, intervalMs: 100, description: `plan ${planId} completed after the resume` },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nsteps: ${JSON.stringify(planFile().steps.map((s: any) => [s.id, s.status]))}, asked: ${asked.join(', ') || 'nothing'}`);
    });
    turn = await Promise.race([
      resumed,
      new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: 'the resumed Orca turn did not end within 60 s' }), 60_000)),
    ]).catch((error: unknown) => ({ error }));
  }, 2 * WAIT_MS + 180_000);

  afterAll(async () => {
    releaseAll();
    await server?.stop();
    await model?.close();
    plugin?.remove();
    console.log(`OpenCode servers started by the file: ${serversStarted}`);
  }, 60_000);

  it('both steps at the merge gate at the kill; after the restart each is asked at its own gate, Resolved by hand, and the plan completes', async () => {
    expect(statusesAtKill).toEqual(['s1:awaiting_merge', 's2:awaiting_merge']);
    expect(turn.error).toBeUndefined();
    const lastOrca = chat().filter((r) => agentOf(r) === 'orca' && /RESUME/.test(r.lastUser) && lastToolResult(r)).at(-1);
    expect(lastOrca, 'the resumed Orca turn reported orca_ask_planner’s result').toBeDefined();
    expect(JSON.parse(lastToolResult(lastOrca!)!.content)).toMatchObject({ status: 'completed', plan_id: planId });

    // Each step asked once, in its own dialog; a decision recorded for each.
    expect([...asked].sort()).toEqual(['s1', 's2']);
    const file = planFile();
    expect(file.status).toBe('completed');
    expect(file.steps.map((s: any) => [s.id, s.status, s.attempts])).toEqual([
      ['s1', 'completed', 1],
      ['s2', 'completed', 1],
    ]);
    expect(file.decisions.filter((d: any) => d.gate === 'merge').map((d: any) => `${d.option}:${d.step_id}`).sort()).toEqual(['Resolved by hand:s1', 'Resolved by hand:s2']);

    // Neither clash touched the user's tree: their line is there, no step's, nothing staged or committed.
    const dir = server.projectDir;
    expect(readFileSync(join(dir, 'log.txt'), 'utf8')).toBe(asText([HEADER, USER_LINE]));
    expect(gitIn(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    // Each step ran once (its worktree's work was kept for the person to take by hand, not redone).
    for (const step of ['s1', 's2']) expect(chat().filter((r) => agentOf(r) === 'coder' && startsTurn(r) && stepOf(r) === step)).toHaveLength(1);
    expect(model.errors()).toEqual([]);
  }, 60_000);
});
