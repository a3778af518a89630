// Plans run end to end on the real `opencode serve` (node_modules' 1.18.33 binary) with the built
// plugin and the scripted model, exactly as test/e2e/orca.e2e.test.ts does, plus timing.
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startOpencode, type OpencodeServer } from '../test/support/opencode-server.js';
import { startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedModelOptions, type ScriptedReply } from '../test/support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, orcaRelay, passingReview, structured, team, type AgentScript } from '../test/e2e/team.js';
import { readJournal, type JournalEntry } from '../src/persistence/journal.js';
import { specialistOutputJsonSchema } from '../src/schemas/specialist-output.js';
import { track } from './lifecycle.js';
import { serverPid } from './memory.js';
import { stepResult, type BenchPlan } from './plans.js';

export const SPECIALIST_AGENTS = ['coder', 'tester', 'reviewer', 'researcher', 'document-writer', 'architect'];
/** The agents whose turns come before a plan's approval and after its end. */
const PLANNING_AGENTS = ['orca', 'planner'];

/** The step a specialist request is for: its prompt starts with "# Your step: <id> (agent)". */
export function stepIdOf(req: RecordedRequest): string | undefined {
  for (const m of req.messages) {
    if (m.role !== 'user') continue;
    const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    const match = /# Your step: ([A-Za-z0-9_.-]+) \(/.exec(text);
    if (match) return match[1];
  }
  return undefined;
}

export interface BenchServer {
  server: OpencodeServer;
  model: ScriptedModel;
  /**
   * Changes the scripted model's latency for the requests that arrive from now on; `planningMs`, when
   * given, is the latency of the orca and planner turns instead (they come before a plan's approval and
   * after its end, outside what a side-by-side row measures), until the next call.
   */
  setLatency(ms: number, options?: { planningMs?: number }): void;
  /** The scripted model's current latency (of the steps' turns). */
  latency: number;
  setScript(script: (req: RecordedRequest) => ScriptedReply): void;
  stop(): Promise<void>;
  startMs: number;
  /** The `opencode serve` process (bench/memory.ts). */
  pid: number;
}

export interface BenchServerOptions {
  concurrency: number;
  latencyMs: number;
  env?: Record<string, string>;
  /** The plugin to load; default the built dist/index.js. */
  pluginUrl?: string;
  /** Deep-merged into the opencode config. */
  config?: Record<string, unknown>;
  /** Added to the plugin's options. */
  pluginOptions?: Record<string, unknown>;
  /** The server's log level (DEBUG logs every request). */
  logLevel?: 'DEBUG' | 'INFO';
  /** false: OpenCode without Orca (the plugin is not loaded; plugin options ignored). */
  plugin?: boolean;
  /** false: the project is no git repository (default true, as a user's project would be). */
  git?: boolean;
  /** A project made by the caller (a git repository of its own; the caller removes it); default a fresh one with a README. */
  projectDir?: string;
}

/** Starts a scripted model and a server on it, both tracked (bench/lifecycle.ts) until bench.stop(). */
export async function startBenchServer({ concurrency, latencyMs, env = {}, pluginUrl = builtPluginUrl, config = {}, pluginOptions = {}, logLevel, plugin = true, git = true, projectDir }: BenchServerOptions): Promise<BenchServer> {
  let script: (req: RecordedRequest) => ScriptedReply = () => {
    throw new Error('no script set');
  };
  // scripted-model reads `latencyMs` from this object on every request, so it can be changed between runs.
  // An orca or planner turn gets `planningMs` instead when it is set (a delay added to the base latency).
  let planningMs: number | undefined;
  const respond = (req: RecordedRequest): ScriptedReply => {
    const reply = script(req);
    if (planningMs === undefined || !PLANNING_AGENTS.includes(agentOf(req))) return reply;
    return { ...reply, delayMs: (reply.delayMs ?? 0) + planningMs - (modelOptions.latencyMs ?? 0) };
  };
  const modelOptions: ScriptedModelOptions = { respond, latencyMs };
  const model = track(await startScriptedModel(modelOptions), 'close');
  const t0 = performance.now();
  const server = track(
    await startOpencode({
      modelUrl: model.url,
      // The quality gate off unless pluginOptions.review says otherwise: every step is one specialist turn, so per step = per turn (issue 8's P1–P3).
      // No verifying turn once the steps landed (the bare driver verifies nothing) unless pluginOptions.verification says so.
      config: plugin
        ? { ...config, plugin: [[pluginUrl, { hitl: { auto: { approval: 'approve' } }, review: { enabled: false }, verification: { turn: false }, concurrency, ...pluginOptions }]] }
        : config,
      // A plan whose every step boots an OpenCode instance for its worktree can take minutes on a busy machine.
      requestTimeoutMs: 600_000,
      // What a user's OpenCode builds in each instance (the models.dev catalog) and its allocator's work are part of what the bench measures.
      modelCatalog: 'opencode',
      allocator: 'bun',
      git,
      env,
      ...(projectDir ? { projectDir } : {}),
      ...(logLevel ? { logLevel } : {}),
    }).catch(async (error: unknown) => {
      await model.close();
      throw error;
    }),
    'stop',
  );
  const startMs = performance.now() - t0;
  const bench: BenchServer = {
    server,
    model,
    startMs,
    pid: serverPid(server.projectDir),
    latency: latencyMs,
    setLatency(ms, options = {}) {
      modelOptions.latencyMs = ms;
      bench.latency = ms;
      planningMs = options.planningMs;
    },
    setScript: (s) => {
      script = s;
    },
    async stop() {
      await server.stop();
      await model.close();
    },
  };
  return bench;
}

const specialistScript: AgentScript = (req) => jsonReply(stepResult(stepIdOf(req) ?? 'unknown'));

export interface StepTiming {
  id: string;
  /** ms from approval: step actor entered opening_session / running / completed (journal). */
  opening: number;
  running: number;
  completed: number;
  /** ms from approval: the specialist's model request(s) arrived at the scripted model. */
  requests: number[];
  /** Every state the step actor entered (journal), ms from approval, in order. */
  states: Array<{ state: string; at: number }>;
}

export interface PlanRun {
  planId: string;
  status: string;
  /** The orca session.prompt call, request to reply (planner and orca turns included). */
  totalWallMs: number;
  /** Journal: the approval.approve event → the plan entering `completed`. */
  approvalToCompletedMs: number;
  /** Epoch ms of the approval and of the plan's end (journal). */
  approvedAt: number;
  endedAt: number;
  /** The plan file's size at the end. */
  planFileBytes: number;
  /** Model calls (chat requests) by agent during the run, and per specialist step. */
  callsByAgent: Record<string, number>;
  callsPerStep: Record<string, number>;
  titleRequests: number;
  steps: StepTiming[];
  /** The prompt text (last user message) each specialist step's first request carried. */
  prompts: Record<string, { userText: string; requestBodyBytes: number; messagesBytes: number }>;
  /** Every chat request of the plan, in arrival order (the orca session's turns, planner, steps, reviews); titles apart. */
  requests: RecordedRequest[];
}

const ms = (iso: string) => Date.parse(iso);

export async function runPlan(bench: BenchServer, plan: BenchPlan, request: string, options: RunOptions = {}): Promise<PlanRun> {
  return (await runPlans(bench, [{ plan, request }], options))[0]!;
}

export interface RunOptions {
  /** What every specialist's turn answers (default: its step's result at once, no tool call). */
  specialist?: AgentScript;
}

/**
 * Runs plans at once, each from its own orca session (request → planner → auto approval → end).
 * Each request must be distinct and each plan's goal too: the planner answers the plan whose
 * request its prompt carries, and a plan file is matched to its plan by its goal.
 */
export async function runPlans(bench: BenchServer, runs: Array<{ plan: BenchPlan; request: string }>, { specialist = specialistScript }: RunOptions = {}): Promise<PlanRun[]> {
  const { server, model } = bench;
  const which = (req: RecordedRequest) => {
    const text = JSON.stringify(req.messages);
    const run = runs.find((r) => text.includes(r.request));
    if (!run) throw new Error(`no bench plan for request: ${text.slice(0, 200)}`);
    return run;
  };
  const scripts: Record<string, AgentScript> = {
    orca: (req, turn) => orcaRelay(which(req).request)(req, turn),
    planner: (req) => jsonReply(which(req).plan),
  };
  for (const a of SPECIALIST_AGENTS) scripts[a] = specialist;
  // A reviewer's step answers as a specialist; a quality-gate review (review gate on) passes.
  scripts.reviewer = (req, turn) => passingReview(req) ?? specialist(req, turn);
  bench.setScript(team(scripts));
  const plansDir = join(server.projectDir, '.opencode', 'plans');
  const before = new Set(existsSync(plansDir) ? readdirSync(plansDir) : []);
  const firstRequest = model.requests.length;

  const totals = await Promise.all(
    runs.map(async ({ plan, request }) => {
      const session = (await server.client.session.create({ title: `bench ${plan.goal}` })).data!;
      const t0 = performance.now();
      const res = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: request }] }).catch((error: unknown) => ({ error }));
      if (res.error) {
        const waited = performance.now() - t0;
        // Node's fetch stops waiting for a reply's headers after 300 s (undici's headersTimeout) while
        // the turn goes on in the server: then wait for the session to be idle instead.
        if (waited < 295_000) throw new Error(`orca session.prompt for "${plan.goal}" failed after ${waited.toFixed(0)} ms: ${String(JSON.stringify(res.error)).slice(0, 300)}`);
        await untilIdle(bench, session.id);
      }
      return performance.now() - t0;
    }),
  );
  const fresh = readdirSync(plansDir).filter((f) => /^plan_[^.]+\.json$/.test(f) && !before.has(f));
  const goalOf = (f: string) => (JSON.parse(readFileSync(join(plansDir, f), 'utf8')) as { goal?: string }).goal;
  const reqs = model.requests.slice(firstRequest);
  return runs.map(({ plan }, i) => {
    const file = fresh.find((f) => goalOf(f) === plan.goal);
    if (!file) throw new Error(`no new plan file with goal "${plan.goal}" in ${plansDir}`);
    return readRun(plansDir, file.slice(0, -'.json'.length), plan, reqs, totals[i]!, runs.length > 1);
  });
}

/** Polls session.status until the session is no longer busy (a session absent from the map is idle). */
async function untilIdle(bench: BenchServer, sessionID: string, timeoutMs = 1_800_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    const status = (await bench.server.client.session.status()).data as Record<string, { type: string }> | undefined;
    const mine = status?.[sessionID];
    if (!mine || mine.type === 'idle') return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`session ${sessionID} still busy after ${timeoutMs} ms`);
}

function readRun(plansDir: string, planId: string, plan: BenchPlan, reqs: RecordedRequest[], totalWallMs: number, shared: boolean): PlanRun {
  const journal = readJournal(join(plansDir, `${planId}.journal.jsonl`));
  const approval = journal.find((e) => e.kind === 'event' && e.event.type === 'approval.approve');
  const done = journal.find(
    (e): e is Extract<JournalEntry, { kind: 'state' }> => e.kind === 'state' && e.actor === 'plan' && (e.state === 'completed' || e.state === 'failed'),
  );
  if (!approval || !done) throw new Error(`plan ${planId} has no approval or no end in its journal`);
  const tA = ms(approval.at);
  const stepIds = new Set(plan.steps.map((s) => s.id));
  // Several plans at once: a plan's requests are those whose prompt names its plan_id.
  const mine = shared ? reqs.filter((r) => r.kind !== 'chat' || JSON.stringify(r.messages).includes(planId)) : reqs;

  const chat = mine.filter((r) => r.kind === 'chat');
  const callsByAgent: Record<string, number> = {};
  const callsPerStep: Record<string, number> = {};
  const prompts: PlanRun['prompts'] = {};
  const requestsOf = new Map<string, number[]>();
  for (const r of chat) {
    const agent = agentOf(r);
    callsByAgent[agent] = (callsByAgent[agent] ?? 0) + 1;
    if (!SPECIALIST_AGENTS.includes(agent)) continue;
    const id = stepIdOf(r) ?? 'unknown';
    if (!stepIds.has(id)) continue;
    callsPerStep[id] = (callsPerStep[id] ?? 0) + 1;
    requestsOf.set(id, [...(requestsOf.get(id) ?? []), r.at - tA]);
    if (!prompts[id]) {
      prompts[id] = {
        userText: r.lastUser,
        requestBodyBytes: Buffer.byteLength(JSON.stringify(r.body)),
        messagesBytes: Buffer.byteLength(JSON.stringify(r.messages)),
      };
    }
  }
  const stateAt = (actor: string, state: string) => {
    const e = journal.find((j): j is Extract<JournalEntry, { kind: 'state' }> => j.kind === 'state' && j.actor === actor && j.state === state);
    return e ? ms(e.at) - tA : NaN;
  };
  const steps = plan.steps.map((s) => ({
    id: s.id,
    opening: stateAt(`step:${s.id}`, 'opening_session'),
    running: stateAt(`step:${s.id}`, 'running'),
    completed: stateAt(`step:${s.id}`, 'completed'),
    requests: requestsOf.get(s.id) ?? [],
    states: journal.flatMap((j) => (j.kind === 'state' && j.actor === `step:${s.id}` ? [{ state: j.state, at: ms(j.at) - tA }] : [])),
  }));
  return {
    planId,
    status: done.state,
    totalWallMs,
    approvedAt: tA,
    endedAt: ms(done.at),
    approvalToCompletedMs: ms(done.at) - tA,
    callsByAgent,
    callsPerStep,
    titleRequests: mine.length - chat.length,
    steps,
    prompts,
    requests: chat,
    planFileBytes: statSync(join(plansDir, `${planId}.json`)).size,
  };
}

/**
 * A bare round trip: one session.prompt (from this process, over HTTP) in a fresh session of a
 * specialist agent with the specialist json_schema format, answered by one StructuredOutput call.
 * The session is created first and its creation timed apart.
 */
export async function barePrompts(bench: BenchServer, promptText: string, repetitions: number) {
  const { server, model } = bench;
  bench.setScript(() => structured(stepResult('bare')));
  const latency = () => bench.latency;
  const out: Array<{ createMs: number; promptMs: number; preModelMs: number; postModelMs: number; calls: number }> = [];
  for (let i = 0; i < repetitions; i++) {
    const c0 = performance.now();
    const session = (await server.client.session.create({ title: `bare ${i}` })).data!;
    const c1 = performance.now();
    const sentAt = Date.now();
    const before = model.requests.length;
    const res = await server.client.session.prompt({
      sessionID: session.id,
      agent: 'coder',
      parts: [{ type: 'text', text: promptText }],
      format: { type: 'json_schema', schema: specialistOutputJsonSchema() } as never,
      tools: { StructuredOutput: true },
    });
    const c2 = performance.now();
    const doneAt = Date.now();
    const info = (res.data as { info?: { structured?: unknown } } | undefined)?.info;
    if (!info?.structured) throw new Error(`bare prompt returned no structured output: ${JSON.stringify(res.error ?? res.data).slice(0, 300)}`);
    const reqs = model.requests.slice(before);
    out.push({
      createMs: c1 - c0,
      promptMs: c2 - c1,
      preModelMs: reqs[0]!.at - sentAt,
      postModelMs: doneAt - (reqs.at(-1)!.at + latency()),
      calls: reqs.length,
    });
  }
  return out;
}

/** CPU ms of a process: its own (user + system, `ownSystem` of it in the kernel) and the children it reaped (git, shells). */
export interface CpuSplit {
  own: number;
  ownSystem: number;
  children: number;
}

const NO_CPU: CpuSplit = { own: 0, ownSystem: 0, children: 0 };
const addCpu = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ own: a.own + b.own, ownSystem: a.ownSystem + b.ownSystem, children: a.children + b.children });
/** b − a. */
export const cpuSince = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ own: b.own - a.own, ownSystem: b.ownSystem - a.ownSystem, children: b.children - a.children });
export const cpuTotal = (c: CpuSplit) => c.own + c.children;

/** CpuSplit of one process so far, from /proc/<pid>/stat (USER_HZ 100 on Linux); zero once it is gone. */
export function processCpu(pid: number): CpuSplit {
  const tick = 100;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return {
      own: ((Number(fields[11]) + Number(fields[12])) * 1000) / tick,
      ownSystem: (Number(fields[12]) * 1000) / tick,
      children: ((Number(fields[13]) + Number(fields[14])) * 1000) / tick,
    };
  } catch {
    return NO_CPU;
  }
}

/** CPU ms (user+system, reaped children included) used so far by the opencode server's processes (those whose cwd is the project). */
export function serverCpuMs(projectDir: string): number {
  return cpuTotal(serverCpuSplit(projectDir));
}

/** serverCpuMs in two: the server's processes themselves (`ownSystem` of it in the kernel), and the children they reaped (git, shells). */
export function serverCpuSplit(projectDir: string): CpuSplit {
  let total = NO_CPU;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== projectDir) continue;
    } catch {
      continue; // gone, or not ours to read
    }
    total = addCpu(total, processCpu(Number(pid)));
  }
  return total;
}

/**
 * Samples the server process's CPU (processCpu) every `everyMs` with the wall clock, so the CPU between
 * two instants a plan's journal names (its approval, its end) can be read once the run is over:
 * interpolated linearly between the samples around each instant.
 */
export function watchCpu(pid: number, everyMs = 50) {
  const samples: Array<{ at: number; cpu: CpuSplit }> = [];
  const sample = () => samples.push({ at: Date.now(), cpu: processCpu(pid) });
  sample();
  const timer = setInterval(sample, everyMs);
  const at = (t: number): CpuSplit => {
    const after = samples.findIndex((s) => s.at >= t);
    if (after <= 0) return samples[after === 0 ? 0 : samples.length - 1]!.cpu;
    const a = samples[after - 1]!;
    const b = samples[after]!;
    const w = b.at === a.at ? 1 : (t - a.at) / (b.at - a.at);
    const mix = (k: keyof CpuSplit) => a.cpu[k] + (b.cpu[k] - a.cpu[k]) * w;
    return { own: mix('own'), ownSystem: mix('ownSystem'), children: mix('children') };
  };
  return {
    /** Stops sampling (one last sample first). */
    stop() {
      clearInterval(timer);
      sample();
    },
    /** The CPU used between epoch ms `from` and `to`. */
    between: (from: number, to: number) => cpuSince(at(from), at(to)),
    /** The CPU used from the first sample to the last. */
    whole: () => cpuSince(samples[0]!.cpu, samples.at(-1)!.cpu),
  };
}

/**
 * Where each step's time went, from the plan's journal and the model's request log (ms):
 * - schedule: the step's last dependency completed (or the approval) → the step actor started;
 * - open: opening_session → running (the plugin's session look-up and session.create);
 * - preModel: running → the first model request arrived (reconciliation look-up, OpenCode's prompt set-up);
 * - model: the scripted latency of its model calls;
 * - postModel: the last model reply was sent → the step completed (OpenCode finishing the turn, the plugin's reaction);
 * - and from the step's states (ms spent in each): workspace (opening_workspace: a slot claimed and reset, or the shared
 *   tree's snapshot before the step), measure (measuring: git's diff of what the step changed), review (review.*: the
 *   reviewer's session and turns, the fixer's), merge (merging: the changes landing in the user's tree).
 */
export function stepPhases(run: PlanRun, plan: BenchPlan, latencyMs: number) {
  const byId = new Map(run.steps.map((s) => [s.id, s]));
  return plan.steps.map((spec) => {
    const s = byId.get(spec.id)!;
    const ready = spec.depends_on.length === 0 ? 0 : Math.max(...spec.depends_on.map((d) => byId.get(d)!.completed));
    const first = s.requests[0] ?? NaN;
    const last = s.requests.at(-1) ?? NaN;
    return {
      id: spec.id,
      schedule: s.opening - ready,
      open: s.running - s.opening,
      preModel: first - s.running,
      model: s.requests.length * latencyMs,
      postModel: s.completed - (last + latencyMs),
      workspace: timeIn(s, (st) => st.startsWith('opening_workspace')),
      measure: timeIn(s, (st) => st === 'measuring'),
      review: timeIn(s, (st) => st.startsWith('review')),
      merge: timeIn(s, (st) => st === 'merging'),
    };
  });
}

/** ms the step spent in the states `which` picks (0 when it never entered one). */
export function timeIn(step: StepTiming, which: (state: string) => boolean): number {
  let total = 0;
  step.states.forEach((s, i) => {
    const next = step.states[i + 1];
    if (next && which(s.state)) total += next.at - s.at;
  });
  return total;
}

/** The longest dependency path, weighting each step by its measured model calls. */
export function criticalPathCalls(plan: BenchPlan, callsPerStep: Record<string, number>) {
  const memo = new Map<string, { calls: number; steps: number }>();
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const longest = (id: string): { calls: number; steps: number } => {
    const hit = memo.get(id);
    if (hit) return hit;
    const step = byId.get(id)!;
    const before = step.depends_on.map(longest).reduce((a, b) => (b.calls > a.calls ? b : a), { calls: 0, steps: 0 });
    const value = { calls: before.calls + (callsPerStep[id] ?? 0), steps: before.steps + 1 };
    memo.set(id, value);
    return value;
  };
  return plan.steps.map((s) => longest(s.id)).reduce((a, b) => (b.calls > a.calls ? b : a));
}
