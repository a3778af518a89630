// `npm run bench`: performance figures of the orchestration and what every request carries (not a
// test; it never fails on a missed target; docs/development.md#benchmarks says what each row means).
// Prints the machine, each measurement, a table of targets, where the time went and the total wall
// time, and writes bench/results.json. Everything runs on 127.0.0.1: the real opencode binary from
// node_modules, the built plugin (dist/), and the scripted OpenAI-compatible model of the e2e tests.
// The default run takes minutes (target: under 10); `-- --long` (or ORCA_BENCH_LONG=1) adds rounds,
// the 200-step plan, the DAG with OpenCode's file snapshots off and more warm rounds of the
// repository-size row. Each target row carries the load average (1 min) when its measurement ended.
// Ctrl-C or SIGTERM stops every server and model the bench started.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuTimes, cpuUsageSince, machineInfo, loadavg } from './machine.js';
import { runInProcess } from './inprocess.js';
import { measureManyPlans } from './many-plans.js';
import { chain, layeredDag, orcaE2ePlan } from './plans.js';
import { barePrompts, criticalPathCalls, runPlan, serverCpuMs, startBenchServer, stepPhases, type PlanRun } from './server.js';
import { median, round, summary } from './stats.js';
import { LONG_HINT, longRequested, measureParallel, parallelResults, type SlowModelRuns } from './parallel.js';
import { measureRepoSizes, phaseText, REPO_SIZES, repoSizeResults } from './repo-size.js';
import { runBench, SectionClock } from './lifecycle.js';
import {
  fmtCarried,
  measureCarry,
  roleRequests,
  planCharsLine,
  ROLE_TARGET,
  ROLES,
  roleLines,
  SHARE_TARGET,
  shareLine,
  shareSummary,
  siblingShares,
  type Carried,
  type Role,
} from './carry.js';
import { cpuPerStep, type ManyAtOnce, type SideBySide } from './side-by-side.js';
import { cpuTotal } from './server.js';
import { WRITING_AGENTS } from '../src/machines/threading.js';
import type { SpecialistId } from '../src/machines/types.js';

const root = join(import.meta.dirname, '..');
const clock = new SectionClock();
const elapsed = () => `${(clock.elapsedMs() / 1000).toFixed(1)} s`;
const say = (s = '') => console.log(s);
const section = (title: string) => say(`\n== ${title} (at ${elapsed()})`);
const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const k = (n: number) => n.toLocaleString('en-US');

const LATENCY = 300;
const LONG = longRequested();
const DAG = layeredDag(3, 4);
const CHAIN = chain(50);

await runBench(main);

async function main() {
  const machine = machineInfo();
  const loadStart = loadavg();
  const cpuStart = cpuTimes();
  say('Orca benchmarks');
  say(`machine: ${machine.cores} cores, ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.platform}`);
  say(`node ${machine.node}, opencode ${machine.opencode}, temp dir ${machine.tmpdir}`);
  say(`load average at start (1/5/15 min): ${loadStart.join(' / ')} — other processes may be loading this machine; figures vary with it.`);
  say(LONG ? 'long runs on (more rounds, the 200-step plan, snapshots off, 5 warm rounds per repository size)' : `long runs off: more rounds, the 200-step plan, the snapshot-off DAG and more warm rounds per repository size are not run (${LONG_HINT}, or ORCA_BENCH_LONG=1)`);

  await clock.time('npm run build (dist/ older than src/)', async () => ensureBuilt());

  // -------------------------------------------------------------------------------------------
  section('P2/P3 in process: 50-step chain through PlanHost, ports answer at once');
  const { inproc, inprocSteps, inprocSummary, yielding, yieldingSteps, yieldingSummary } = await clock.time('P2a/P3 in process', async () => {
    await runInProcess(chain(10)); // warm-up: module loading and JIT
    const inproc: Awaited<ReturnType<typeof runInProcess>>[] = [];
    for (let i = 0; i < 3; i++) inproc.push(await runInProcess(CHAIN));
    const yielding: Awaited<ReturnType<typeof runInProcess>>[] = [];
    for (let i = 0; i < 3; i++) yielding.push(await runInProcess(CHAIN, { yieldIo: true }));
    const inprocSteps = inproc.flatMap((r) => r.perStepMs);
    const yieldingSteps = yielding.flatMap((r) => r.perStepMs);
    return { inproc, inprocSteps, inprocSummary: summary(inprocSteps), yielding, yieldingSteps, yieldingSummary: summary(yieldingSteps) };
  });
  say(`per step (approval → 1st dispatch, then dispatch → next dispatch; 3 runs × 50 steps): median ${f(inprocSummary.median, 2)} ms, p95 ${f(inprocSummary.p95, 2)} ms, max ${f(inprocSummary.max, 2)} ms`);
  say(`plan-file writes that reached the disk: ${f(inproc[0]!.saves / 50, 2)} per step (written behind the dispatch path, one in flight per plan, the newest snapshot wins)`);
  say(`first 10 steps median ${f(median(inproc.flatMap((r) => r.perStepMs.slice(0, 10))), 2)} ms, last 10 steps median ${f(median(inproc.flatMap((r) => r.perStepMs.slice(-10))), 2)} ms; plan file at the end ${(inproc[0]!.planFileBytes / 1024).toFixed(0)} KiB`);
  // Each step here also waits 2 macrotasks for its ports; setImmediate costs microseconds, so this is still orchestration.
  say(`info: ports that answer after one macrotask (as real I/O does): ${f(yielding[0]!.saves / 50, 2)} writes per step, per step median ${f(yieldingSummary.median, 2)} ms, p95 ${f(yieldingSummary.p95, 2)} ms`);
  const inprocPrompt = (id: string) => Buffer.byteLength(inproc[0]!.prompts.get(id)!);
  const p3InProcess = inprocPrompt('s50') / inprocPrompt('s2');
  say(`stepPrompt bytes: step 2 ${inprocPrompt('s2')}, step 50 ${inprocPrompt('s50')} → ratio ${f(p3InProcess, 3)}`);

  // -------------------------------------------------------------------------------------------
  // P1, P2b and P3 run on the side-by-side servers (steps in the shared tree, as the bare driver
  // works: they measure the orchestration); P1b and S8×12 run again on a server with worktree slots
  // doing the same work (P1b-wt, S8x12-wt, MEM, W-iso, W-disk).
  section(`P1b, P1c, S8×12, P1, P2b, P3 and worktree slots (P1b-wt, S8x12-wt, MEM, W-iso, W-disk, W1, W2): Orca against a bare client on the same server, model latency ${LATENCY} ms`);
  const bare300: Awaited<ReturnType<typeof barePrompts>> = [];
  let chainRun: PlanRun | undefined;
  const bare0: Awaited<ReturnType<typeof barePrompts>> = [];
  let chainCpuMs = NaN;
  let bare0CpuMs = NaN;
  const par = await clock.time('P1b, S8×12 (shared tree, worktree slots), P1c, P2b (servers)', () =>
    measureParallel(say, {
      latencyMs: LATENCY,
      long: LONG,
      hooks: {
        shared: async (bench, p1b: SideBySide) => {
          const cpuB0 = serverCpuMs(bench.server.projectDir);
          bare300.push(...(await barePrompts(bench, p1b.orcaRuns.at(-1)!.prompts['l2w1']!.userText, 4)));
          const cpuB = (serverCpuMs(bench.server.projectDir) - cpuB0) / 4;
          say(`  bare session.prompt at ${LATENCY} ms (4×, fresh coder session, one StructuredOutput call): prompt median ${f(median(bare300.map((b) => b.promptMs)), 0)} ms (pre-model ${f(median(bare300.map((b) => b.preModelMs)), 0)}, post-model ${f(median(bare300.map((b) => b.postModelMs)), 0)}), session.create median ${f(median(bare300.map((b) => b.createMs)), 0)} ms; opencode CPU ${f(cpuB, 0)} ms/prompt`);
        },
        concurrency1: async (bench) => {
          say('P2/P3 through the server: 50-step chain, model latency 0 ms (concurrency 1, shared tree); it also warms this server for P1c');
          bench.setLatency(0);
          // Bare prompts before and after the chain (4 + 4), so a change in machine load hits both sides.
          const cpuB0 = serverCpuMs(bench.server.projectDir);
          bare0.push(...(await barePrompts(bench, inproc[0]!.prompts.get('s2')!, 4)));
          const cpuB1 = serverCpuMs(bench.server.projectDir);
          chainRun = await runPlan(bench, CHAIN, 'Run the benchmark chain');
          const cpuB2 = serverCpuMs(bench.server.projectDir);
          chainCpuMs = cpuB2 - cpuB1;
          bare0.push(...(await barePrompts(bench, chainRun.prompts['s2']!.userText, 4)));
          bare0CpuMs = (cpuB1 - cpuB0 + serverCpuMs(bench.server.projectDir) - cpuB2) / 8;
          const chainPhases = stepPhases(chainRun, CHAIN, 0);
          const cmed = (key: 'open' | 'preModel' | 'postModel' | 'schedule', from = 0, to = 50) => median(chainPhases.slice(from, to).map((p) => p[key]));
          say(`  chain: ${chainRun.status}; approval → completed ${chainRun.approvalToCompletedMs} ms = ${f(chainRun.approvalToCompletedMs / 50, 0)} ms/step; opencode CPU ${f(chainCpuMs / 50, 0)} ms/step; model calls per step ${[...new Set(Object.values(chainRun.callsPerStep))].join('/')}`);
          say(`  per-step phases, median ms (steps 1-10 | 41-50): open session ${f(cmed('open', 0, 10), 0)} | ${f(cmed('open', 40), 0)}, pre-model ${f(cmed('preModel', 0, 10), 0)} | ${f(cmed('preModel', 40), 0)}, post-model ${f(cmed('postModel', 0, 10), 0)} | ${f(cmed('postModel', 40), 0)}, schedule ${f(cmed('schedule', 0, 10), 0)} | ${f(cmed('schedule', 40), 0)}`);
          say(`  bare session.prompt at 0 ms (4× before the chain, 4× after): prompt median ${f(median(bare0.map((b) => b.promptMs)), 0)} ms (pre-model ${f(median(bare0.map((b) => b.preModelMs)), 0)}, post-model ${f(median(bare0.map((b) => b.postModelMs)), 0)}), session.create median ${f(median(bare0.map((b) => b.createMs)), 0)} ms; opencode CPU ${f(bare0CpuMs, 0)} ms/prompt (create included)`);
          const body = (id: string) => chainRun!.prompts[id]!;
          say(`  prompt received by the model: user text step 2 ${Buffer.byteLength(body('s2').userText)} B, step 50 ${Buffer.byteLength(body('s50').userText)} B; whole request body ${body('s2').requestBodyBytes} B vs ${body('s50').requestBodyBytes} B`);
          bench.setLatency(LATENCY);
        },
      },
    }),
  );
  const iso = par.isolation;
  const disk = iso.disk;
  if (!chainRun) throw new Error('the P2b chain did not run');

  // The DAG's run at the median wall of each side-by-side, for P1's figures.
  const medianRun = (s: SideBySide) => [...s.orcaRuns].sort((a, b) => a.approvalToCompletedMs - b.approvalToCompletedMs)[Math.floor((s.orcaRuns.length - 1) / 2)]!;
  const dag4 = medianRun(par.p1b);
  const dag1 = medianRun(par.p1bConcurrency1);

  let dagSnapOff: PlanRun | undefined;
  const bareSnapOff: Awaited<ReturnType<typeof barePrompts>> = [];
  if (LONG) {
    section(`info: the same DAG at concurrency 4 with OpenCode's file snapshots off (opencode.json "snapshot": false; shared tree)`);
    await clock.time('snapshot off (long)', async () => {
      const bench = await startBenchServer({ concurrency: 4, latencyMs: LATENCY, config: { snapshot: false }, pluginOptions: { isolation: { mode: 'none' } } });
      try {
        dagSnapOff = await runPlan(bench, DAG, 'Run the benchmark DAG');
        bareSnapOff.push(...(await barePrompts(bench, dagSnapOff.prompts['l2w1']!.userText, 5)));
        say(`  approval → completed ${dagSnapOff.approvalToCompletedMs} ms; bare session.prompt (5×) median ${f(median(bareSnapOff.map((b) => b.promptMs)), 0)} ms`);
      } finally {
        await bench.stop();
      }
    });
  }

  // -------------------------------------------------------------------------------------------
  section('W0, W1, W3: what every request carries (latency 0; OpenCode without Orca, and Orca with its defaults but isolation none)');
  const carry = await clock.time('W0, W1 shared, W3 (servers)', () => measureCarry(say));
  const build = carry.build.without;
  // With the default isolation only the writing agents' steps get a worktree: those roles (and orca,
  // planner) from P1b's run with worktrees, whose DAG is made of them; the others work in the
  // project as in the shared tree.
  const worktreeRun = medianRun(iso.p1bOn);
  const rolesWorktree: Partial<Record<Role, Carried>> = {
    ...Object.fromEntries(Object.entries(carry.rolesShared).filter(([role]) => !WRITING_AGENTS.includes(role as SpecialistId))),
    ...roleRequests(worktreeRun),
  };
  say(`W1 with worktrees (the default in a git repository): orca, planner and the writing agents (${WRITING_AGENTS.join(', ')}) from P1b's run with worktrees (review gate off); the others never get a worktree, so as in the shared tree:`);
  for (const line of roleLines(rolesWorktree, build)) say(`  ${line}`);
  const sharesShared = par.p1b.orcaRuns.flatMap((r) => siblingShares(r, DAG));
  const sharesWorktree = iso.p1bOn.orcaRuns.flatMap((r) => siblingShares(r, DAG));
  say(`W2: sibling steps of one role in one plan (the P1b runs: two coders per layer), leading share of the fixed part (tools JSON, then the system messages):`);
  say(`  ${shareLine('shared tree', sharesShared)}`);
  say(`  ${shareLine('worktrees', sharesWorktree)}`);

  // -------------------------------------------------------------------------------------------
  section('P4: 10,000 plan files on disk');
  const p4 = await clock.time('P4 in process', () => measureManyPlans(orcaE2ePlan(), 10_000));
  say(`each file a clone (new plan_id) of a completed 3-step plan written by PlanHost: ${(p4.fileBytes / 1024).toFixed(1)} KiB, ${(p4.fileBytes * p4.plans / 2 ** 20).toFixed(0)} MiB in all (written in ${f(p4.generateMs, 0)} ms, so in the page cache)`);
  say(`new PlanHost + loadIndex with the summary cache (.opencode/plans/.summaries.cache) in place: ${p4.loadIndexMs.map((x) => f(x, 0)).join(', ')} ms; the plugin function (OrcaPlugin, stub client): ${p4.pluginStartMs.map((x) => f(x, 0)).join(', ')} ms`);
  say(`  without the cache (first start, or the cache deleted: every file read, cache written): ${f(p4.coldLoadIndexMs, 0)} ms; after ${p4.changedPlans} plan files changed: ${f(p4.changedLoadIndexMs, 0)} ms`);
  say(`orca_list_plans execute, no arguments: median ${f(median(p4.listMs), 1)} ms, max ${f(Math.max(...p4.listMs), 1)} ms, ${p4.listedPlans} of ${p4.plans} plans, ${(p4.listOutputBytes / 1024).toFixed(1)} KiB of JSON ("${p4.listMore}"); the oldest page: median ${f(median(p4.listLastPageMs), 1)} ms`);

  // -------------------------------------------------------------------------------------------
  section('RS: repository size, shared tree against worktree slots');
  const repoSizes = await clock.time('RS repository size (servers)', () => measureRepoSizes(say, { latencyMs: LATENCY, warmRounds: LONG ? 5 : 3 }));

  // -------------------------------------------------------------------------------------------
  const crit = criticalPathCalls(DAG, dag4.callsPerStep);
  const p1Bound = crit.calls * LATENCY;
  const p1 = median(par.p1b.orcaMs) / p1Bound;
  const orcaPlannerCalls = (dag4.callsByAgent.orca ?? 0) + (dag4.callsByAgent.planner ?? 0);
  const p1WholeBound = (crit.calls + orcaPlannerCalls) * LATENCY;
  const seqCalls = Object.values(dag1.callsPerStep).reduce((a, b) => a + b, 0);
  const perStepServer = chainRun.approvalToCompletedMs / CHAIN.steps.length;
  const bare0Prompt = median(bare0.map((b) => b.promptMs));
  const bare0CreatePrompt = median(bare0.map((b) => b.createMs + b.promptMs));
  const p2Server = perStepServer / bare0Prompt;
  const dag1PerStep = median(par.p1bConcurrency1.orcaMs) / DAG.steps.length;
  const bare300Prompt = median(bare300.map((b) => b.promptMs));
  const p3Data = { s2: chainRun.prompts['s2']!, s50: chainRun.prompts['s50']! };
  const p3Server = Buffer.byteLength(p3Data.s50.userText) / Buffer.byteLength(p3Data.s2.userText);
  const p4Start = median(p4.loadIndexMs);
  const p4List = median(p4.listMs);
  const shareShared = shareSummary(sharesShared);
  const shareWorktree = shareSummary(sharesWorktree);
  const [w3Small, w3Big] = carry.plans as [(typeof carry.plans)[0], (typeof carry.plans)[0]];
  const rounds = par.rounds;

  const roleRow = (role: Role, where: string, roles: Partial<Record<Role, Carried>>) => {
    const c = roles[role];
    const target = ROLE_TARGET[role];
    const ratio = c ? c.whole / build.whole : NaN;
    return {
      id: 'W1',
      load: loadOf('W0, W1 shared, W3 (servers)'),
      what: `${role}: first request of a ${role === 'orca' || role === 'planner' ? 'session' : 'step'} (${where}): system, tools (count), whole request chars / build's whole (${k(build.whole)})`,
      measured: c ? `${k(c.system)}; ${k(c.tools)} (${c.toolCount}); ${k(c.whole)} = ${f(ratio, 2)}×` : 'no request seen',
      goal: target === undefined ? 'info' : `<= ${target}× build`,
      met: c !== undefined && (target === undefined || ratio <= target),
    };
  };

  /** The user's rows: P1b and S8×12 with a step's turn at the slower model's latency, on one server. */
  const slowRows = (runs: SlowModelRuns, where: string, suffix: string, load: number, bareElsewhere = false) => {
    const model = `model ${par.slowModel.stepLatencyMs} ms a step's turn (the orca and planner turns, outside the measured span, ${LATENCY} ms)`;
    const once = (n: number) =>
      bareElsewhere
        ? `${n === 1 ? 'one round: Orca once' : `median of ${n} rounds`}, after the 300 ms rows on this warm server; bare: the shared-tree row's run${n === 1 ? '' : 's'} (the bare driver works the same on either server)`
        : n === 1
          ? 'one round: Orca and bare once each, after the 300 ms rows on the same warm server'
          : `median of ${n} alternating rounds, no warm-up`;
    return [
      {
        id: `P1b${suffix}-2s`,
        load,
        what: `P1b with a ${model}, ${where}: Orca approval→completed / bare driver wall (${once(runs.p1b.ratios.length)})`,
        measured: `${f(runs.p1b.ratio, 3)} (${f(median(runs.p1b.orcaMs), 0)} / ${f(median(runs.p1b.bareMs), 0)} ms)`,
        goal: `<= ${SLOW_TARGET}`,
        met: runs.p1b.ratio <= SLOW_TARGET,
      },
      {
        id: `S8x12${suffix}-2s`,
        load,
        what: `S8×12 with a ${model}, ${where}: Orca first approval→last end / bare (${once(runs.eight.ratios.length)}); per-plan median`,
        measured: `${f(runs.eight.ratio, 3)} (${f(median(runs.eight.orcaSpanMs), 0)} / ${f(median(runs.eight.bareSpanMs), 0)} ms; per plan ${f(runs.eight.perPlanRatio, 3)})`,
        goal: `<= ${SLOW_TARGET}`,
        met: runs.eight.ratio <= SLOW_TARGET,
      },
    ];
  };
  /** S8×12's CPU per step over the bare driver: (Orca's whole runs, orca and planner turns included − bare's) / 96, median of the rounds. */
  const eightCpuPerStep = (m: ManyAtOnce) => median(m.cpu.orca.map((o, i) => (cpuTotal(o) - cpuTotal(m.cpu.bare[i]!)) / (m.plans * DAG.steps.length)));
  const cpuRow = (id: string, where: string, p1bRun: SideBySide, eight: ManyAtOnce, targetMs: number, load: number) => {
    const span = cpuPerStep(p1bRun.cpu, DAG.steps.length);
    const whole = cpuPerStep(p1bRun.cpu, DAG.steps.length, 'orcaWhole');
    return {
      id,
      load,
      what: `the opencode server's CPU (its process and the git it ran) that Orca adds per step over the bare driver, ${where}: P1b's rounds, Orca from the approval to the plan's end against the bare run of the round, / 12 steps (median of ${span.rounds.length}; the rounds' range, git's share); beside it: with the orca and planner turns, and S8×12's whole runs / 96 steps`,
      measured: `${f(span.totalMs, 0)} ms (${f(Math.min(...span.rounds), 0)} to ${f(Math.max(...span.rounds), 0)}; git ${f(span.childrenMs, 0)}); with turns ${f(whole.totalMs, 0)}; S8×12 ${f(eightCpuPerStep(eight), 0)}`,
      goal: `<= ${targetMs} ms`,
      met: span.totalMs <= targetMs,
    };
  };

  const loadOf = (part: string) => par.timings.find((t) => t.name === part)?.load ?? clock.parts.find((p) => p.name === part)?.load ?? NaN;
  const mem = iso.memory;
  const rsTarget = 1.25;
  const stepTargetMs = 300;
  const rsBig = repoSizes.at(-1)!;
  const BENCH_TARGET_MIN = 10;
  const SLOW_TARGET = 1.03;
  const CPU_STEP_TARGET_MS = 50;
  const CPU_SLOT_TARGET_MS = 120;
  const benchMinutes = clock.elapsedMs() / 60_000;
  const targets = [
    {
      id: 'P1',
      load: loadOf('P1b, shared tree'),
      what: `DAG 3×4 @ concurrency 4, shared tree: approval→completed / bound (${crit.steps} critical steps × ${crit.calls / crit.steps} call × ${LATENCY} ms = ${p1Bound} ms), median of the P1b runs`,
      measured: `${f(p1, 2)} (${f(median(par.p1b.orcaMs), 0)} ms)`,
      goal: 'info (no client reaches it)',
      met: true,
    },
    {
      id: 'P1b',
      load: loadOf('P1b, shared tree'),
      what: `DAG 3×4 @ concurrency 4 (coder/tester/document-writer steps), shared tree: Orca approval→completed / bare driver wall (median of ${par.p1b.ratios.length} alternating rounds)`,
      measured: `${f(par.p1b.ratio, 3)} (${f(median(par.p1b.orcaMs), 0)} / ${f(median(par.p1b.bareMs), 0)} ms)`,
      goal: '<= 1.05',
      met: par.p1b.ratio <= 1.05,
    },
    {
      id: 'P1b-wt',
      load: loadOf('P1b, worktree slots'),
      what: `the same DAG, the same warm-up (its first layer: it makes the 4 slots and warms their OpenCode instances) and ${iso.p1bOn.ratios.length} rounds on a server with worktree slots (the default): Orca approval→completed / bare driver wall (median of the rounds)`,
      measured: `${f(iso.p1bOn.ratio, 3)} (${f(median(iso.p1bOn.orcaMs), 0)} / ${f(median(iso.p1bOn.bareMs), 0)} ms)`,
      goal: '<= 1.15',
      met: iso.p1bOn.ratio <= 1.15,
    },
    {
      id: 'P1c',
      load: loadOf('P1c, concurrency 1'),
      what: `speed-up of concurrency 4 over 1 on that DAG, shared tree, Orca (bare; ideal 4); at concurrency 1 Orca / bare ${f(par.p1bConcurrency1.ratio, 3)} (${par.p1bConcurrency1.ratios.length} rounds)`,
      measured: `${f(par.p1c.orca, 2)}× (bare ${f(par.p1c.bare, 2)}×)`,
      goal: 'info, near bare',
      met: par.p1c.orca >= par.p1c.bare * 0.95,
    },
    {
      id: 'S8x12',
      load: loadOf('S8×12, shared tree'),
      what: `8 plans of 12 steps at once, shared tree: Orca first approval→last end / bare, median of ${rounds.eight} round(s)${rounds.eight > 1 ? ' of alternating order' : ''} (per-plan median)`,
      measured: `${f(par.eightPlans.ratio, 3)} (${f(par.eightPlans.perPlanRatio, 3)})`,
      goal: '<= 1.15',
      met: par.eightPlans.ratio <= 1.15,
    },
    {
      id: 'S8x12-wt',
      load: loadOf('S8×12, worktree slots'),
      what: `the same on the server with worktree slots (after P1b: 4 warm slots; up to 32 steps at once hold ${iso.maxHeld} slots): Orca / bare, ${rounds.eight} round(s) (per-plan median); Orca with slots / shared tree`,
      measured: `${f(iso.eightPlansOn.ratio, 3)} (${f(iso.eightPlansOn.perPlanRatio, 3)}); ${f(iso.eightPlansOnOff, 2)}`,
      goal: '<= 1.25',
      met: iso.eightPlansOn.ratio <= 1.25,
    },
    ...slowRows(par.slowModel.shared, 'shared tree', '', loadOf('P1b-2s, S8×12-2s, shared tree')),
    ...slowRows(par.slowModel.worktrees, 'worktree slots (warm: the server of P1b-wt)', '-wt', loadOf('P1b-2s, S8×12-2s, worktree slots'), true),
    cpuRow('CPU-step', 'shared tree', par.p1b, par.eightPlans, CPU_STEP_TARGET_MS, loadOf('P1b, shared tree')),
    cpuRow('CPU-slot', 'warm worktree slots', iso.p1bOn, iso.eightPlansOn, CPU_SLOT_TARGET_MS, loadOf('P1b, worktree slots')),
    {
      id: 'MEM',
      load: loadOf('P1b, worktree slots'),
      what: `peak resident memory of the opencode server process (VmHWM, reset when P1b began) over P1b (warm-up + rounds, Orca and bare), worktree slots / shared tree; the same with the processes it started (git; sampled every 50 ms); MiB per warm slot = (resident 1 s after P1b with slots − shared) / ${mem.slotsAfterP1b} slots`,
      measured: `${f(mem.peakRatio, 3)} (${f(mem.worktrees.p1b.peakMiB, 0)} / ${f(mem.shared.p1b.peakMiB, 0)} MiB); with children ${f(mem.peakWithChildrenRatio, 3)}; ${f(mem.perSlotMiB, 1)} MiB/slot; S8×12 ${f(mem.eightPeakRatio, 2)}`,
      goal: '<= 1.5; MiB/slot info',
      met: mem.peakRatio <= 1.5 && mem.peakWithChildrenRatio <= 1.5,
    },
    {
      id: 'W-iso',
      load: loadOf('P1b, worktree slots'),
      what: `Orca with worktree slots / in the shared tree, and what a slot adds per step = (with − without) / steps: P1b / 12, S8×12 / 96 (steps run 4 at a time: it is their share of the plan's wall)`,
      measured: `P1b ${f(iso.p1bOnOff, 2)} (${f(iso.p1bCostPerStepMs, 0)} ms/step); S8×12 ${f(iso.eightPlansOnOff, 2)} (${f(iso.eightPlansCostPerStepMs, 0)} ms/step)`,
      goal: 'info',
      met: true,
    },
    {
      id: 'W-disk',
      load: loadOf('S8×12, worktree slots'),
      what: "one slot of the bench project: KiB of files; KiB on disk (du) + .git/worktrees/; reset of a free slot (ms, from the bench); slots held once the plans ended; slots kept (pool); OpenCode's snapshot repos (slots have them off)",
      measured: `${disk ? `${f(disk.fileBytes / 1024, 1)}; ${disk.duKiB} + ${disk.gitAdminKiB} KiB; reset ${f(median(disk.resetMs), 0)} ms` : `not measured (${iso.diskError})`}; ${iso.left.held} held; ${iso.left.slots} kept; ${iso.opencodeSnapshots.count} snapshot repos`,
      goal: `info; 0 held, <= ${iso.left.pool} kept`,
      met: iso.left.held === 0 && iso.left.slots <= iso.left.pool,
    },
    ...repoSizes.map((r) => ({
      id: 'RS',
      load: r.load,
      what: `${k(r.files)} committed files, plan s1 ∥ s2 → s3 ∥ s4 (4 coders writing a file each, review gate on): approval→completed with worktree slots / shared tree, each its own server; the target reads the warm plan (the server's ${repoSizes[0]!.runs.filter((x) => !x.cold).length / 2 > 1 ? 'median of the later plans' : 'second plan'}, its slots kept warm); the first, cold plan beside it`,
      measured: `warm ${f(r.warmRatio, 3)}; cold ${f(r.coldRatio, 3)}`,
      goal: `<= ${rsTarget} (warm)`,
      met: r.warmRatio <= rsTarget,
    })),
    {
      id: 'RS-step',
      load: rsBig.load,
      what: `what a step on a warm slot adds at ${k(rsBig.files)} files: (warm plan with slots − in the shared tree) / 2 steps on the critical path; the cold plan's the same`,
      measured: `${f(rsBig.warmAddedPerStepMs, 0)} ms (cold ${f(rsBig.coldAddedPerStepMs, 0)} ms)`,
      goal: `<= ${stepTargetMs} ms`,
      met: rsBig.warmAddedPerStepMs <= stepTargetMs,
    },
    par.scale200
      ? {
          id: 'S200',
          load: loadOf('S200'),
          what: `200-step plan (25 × 8) @ concurrency 8, shared tree: Orca / bare (median of ${par.scale200.ratios.length} rounds)`,
          measured: `${f(par.scale200.ratio, 3)} (${f(median(par.scale200.orcaMs), 0)} / ${f(median(par.scale200.bareMs), 0)} ms)`,
          goal: '<= 1.15',
          met: par.scale200.ratio <= 1.15,
        }
      : {
          id: 'S200',
          load: loadOf('S200'),
          what: '200-step plan (25 × 8) @ concurrency 8, shared tree: Orca / bare (median of rounds); about 10 minutes',
          measured: `not run: needs ${LONG_HINT}`,
          goal: '<= 1.15',
          met: true,
        },
    {
      id: 'Sgrow',
      load: loadOf('growth, in process'),
      what: `growth per step, ${par.growth.map((g) => g.steps).join('/')} steps: heap held KiB/step; plan file KiB/step; writes/step`,
      measured: `${par.growth.map((g) => f(g.heapBytes / g.steps / 1024, 1)).join('/')}; ${par.growth.map((g) => f(g.planFileBytes / g.steps / 1024, 2)).join('/')}; ${par.growth.map((g) => f(g.writes / g.steps, 2)).join('/')}`,
      goal: 'linear or better',
      met: par.growth.every((g, i) => i === 0 || (g.heapBytes / g.steps <= (par.growth[0]!.heapBytes / par.growth[0]!.steps) * 1.25 && g.planFileBytes / g.steps <= (par.growth[0]!.planFileBytes / par.growth[0]!.steps) * 1.25)),
    },
    {
      id: 'P2a',
      load: loadOf('P2a/P3 in process'),
      what: 'orchestration per step in process, 50-step chain (median; p95)',
      measured: `${f(inprocSummary.median, 2)} ms; p95 ${f(inprocSummary.p95, 2)} ms`,
      goal: '<= 2 ms median',
      met: inprocSummary.median <= 2,
    },
    {
      id: 'P2b',
      load: loadOf('P2b/P3 chain, concurrency 1'),
      what: 'per step through the server (50-step chain @0 ms, shared tree: wall/50) / bare session.prompt @0 ms',
      measured: `${f(p2Server, 2)} (${f(perStepServer, 0)} / ${f(bare0Prompt, 0)} ms)`,
      goal: '<= 1.2',
      met: p2Server <= 1.2,
    },
    {
      id: 'P3',
      load: loadOf('P2b/P3 chain, concurrency 1'),
      what: 'prompt bytes step 50 / step 2 (50-step chain, text the model received)',
      measured: `${f(p3Server, 3)} (in process ${f(p3InProcess, 3)})`,
      goal: '<= 1.5',
      met: p3Server <= 1.5 && p3InProcess <= 1.5,
    },
    {
      id: 'P4a',
      load: loadOf('P4 in process'),
      what: 'orca_list_plans execute with 10,000 plans (median; first page of 50)',
      measured: `${f(p4List, 1)} ms`,
      goal: '<= 100 ms',
      met: p4List <= 100,
    },
    {
      id: 'P4b',
      load: loadOf('P4 in process'),
      what: 'plugin start with 10,000 plans: new PlanHost + loadIndex (median; summary cache in place)',
      measured: `${f(p4Start, 0)} ms (plugin fn ${f(median(p4.pluginStartMs), 0)} ms; no cache ${f(p4.coldLoadIndexMs, 0)} ms)`,
      goal: '<= 300 ms',
      met: p4Start <= 300,
    },
    {
      id: 'W0',
      load: loadOf('W0, W1 shared, W3 (servers)'),
      what: `bytes Orca adds to the first request of a build session (plugin loaded minus not; project and home paths masked); build without Orca: ${fmtCarried(build)}`,
      measured: `${carry.build.addedBytes} B (${carry.build.identical ? 'byte-identical' : 'differs'})`,
      goal: '0 (identical)',
      met: carry.build.addedBytes === 0 && carry.build.identical,
    },
    ...ROLES.map((role) => roleRow(role, 'worktrees, the default', rolesWorktree)),
    {
      id: 'W2',
      load: loadOf('P1b, shared tree'),
      what: `sibling steps of one role in one plan, shared tree (isolation none): common prefix of the fixed parts (tools JSON, then system messages) / the longer; min over ${shareShared.pairs} pairs`,
      measured: `${f(shareShared.min, 3)} (median ${f(shareShared.median, 3)})`,
      goal: `>= ${SHARE_TARGET}`,
      met: shareShared.min >= SHARE_TARGET,
    },
    {
      id: 'W2',
      load: loadOf('P1b, worktree slots'),
      what: `the same with step worktrees (isolation worktree, the default in a git repository); min over ${shareWorktree.pairs} pairs`,
      measured: `${f(shareWorktree.min, 3)} (median ${f(shareWorktree.median, 3)})`,
      goal: `>= ${SHARE_TARGET}`,
      met: shareWorktree.min >= SHARE_TARGET,
    },
    {
      id: 'W3',
      load: loadOf('W0, W1 shared, W3 (servers)'),
      what: `prompt chars of a whole plan (orca, planner, steps, reviews; review gate on, shared tree) / the bare driver's for the same steps; per step Orca vs bare, ${w3Small.steps} and ${w3Big.steps} steps`,
      measured: `${w3Small.steps}: ${f(w3Small.ratio, 2)} (${k(Math.round(w3Small.perStep.orca))} vs ${k(Math.round(w3Small.perStep.bare))}); ${w3Big.steps}: ${f(w3Big.ratio, 2)} (${k(Math.round(w3Big.perStep.orca))} vs ${k(Math.round(w3Big.perStep.bare))})`,
      goal: `per step not growing (≤ 1.05×)`,
      met: w3Big.perStep.orca <= w3Small.perStep.orca * 1.05,
    },
    {
      id: 'T',
      load: loadavg()[0],
      what: `the whole default bench (${LONG ? 'this run was --long: the target is for the default run' : 'this run'}), build of dist/ included, up to this table`,
      measured: `${f(benchMinutes, 1)} min`,
      goal: `< ${BENCH_TARGET_MIN} min`,
      met: LONG || benchMinutes < BENCH_TARGET_MIN,
    },
  ];

  section('Definitions');
  say(`P1 bound = Σ over the DAG's longest dependency path of (model calls of the step × latency): ${crit.steps} steps × ${crit.calls / crit.steps} model call × ${LATENCY} ms = ${p1Bound} ms. Measured from the plan's journal: the approval.approve event (auto policy) → the plan entering "completed", so the orca and planner turns are outside both sides. P1, P2b and P3 run with steps in the shared tree: they measure the orchestration; P1b-wt, S8x12-wt, MEM and W-iso what worktree slots add, on a server of their own doing the same work (the same warm-up and rounds, the bare driver's runs included).`);
  say(`  including them instead (the median run): whole orca session.prompt ${f(dag4.totalWallMs, 0)} ms vs (${crit.calls} critical + ${orcaPlannerCalls} orca/planner calls) × ${LATENCY} ms = ${p1WholeBound} ms → ${f(dag4.totalWallMs / p1WholeBound, 2)}`);
  say(`  concurrency 1, same plan: approval→completed ${f(median(par.p1bConcurrency1.orcaMs), 0)} ms (${f(dag1PerStep, 0)} ms/step) vs sequential bound ${seqCalls} × ${LATENCY} = ${seqCalls * LATENCY} ms → ${f(median(par.p1bConcurrency1.orcaMs) / (seqCalls * LATENCY), 2)}; concurrency 4 is ${f(par.p1c.orca, 2)}× faster (ideal ${f(seqCalls / crit.calls, 1)}×)`);
  say(`  what OpenCode alone allows: ${crit.steps} × bare prompt at ${LATENCY} ms (${f(bare300Prompt, 0)} ms) = ${f(crit.steps * bare300Prompt, 0)} ms → ${f((crit.steps * bare300Prompt) / p1Bound, 2)} of the bound even with zero orchestration and perfect parallelism`);
  if (dagSnapOff) say(`  with "snapshot": false (info): approval→completed ${dagSnapOff.approvalToCompletedMs} ms → ${f(dagSnapOff.approvalToCompletedMs / p1Bound, 2)}; bare prompt ${f(median(bareSnapOff.map((b) => b.promptMs)), 0)} ms`);
  say(`P2b per step = approval→completed / 50 of a 50-step chain; bare = session.prompt alone in a fresh session (create excluded) from this process over HTTP. With create included: ${f(bare0CreatePrompt, 0)} ms → ${f(perStepServer / bare0CreatePrompt, 2)}. At ${LATENCY} ms (DAG at concurrency 1): ${f(dag1PerStep, 0)} ms/step vs bare ${f(bare300Prompt, 0)} ms → ${f(dag1PerStep / bare300Prompt, 2)}.`);
  say(`MEM = the opencode server process's peak resident set (VmHWM from /proc, reset by clear_refs when P1b began, read when it ended: exact, no sampling) with worktree slots / in the shared tree; "with children" adds the processes it started (git, rg), sampled every 50 ms, so a short git can be missed. MiB per warm slot = the difference of the two servers' resident sets 1 s after P1b (same plans done) / the slots on disk then (each with its OpenCode instance). Memory is not the bench's model or this process: only the server.`);
  say(`RS = approval→completed of the 4-step plan, worktree slots / shared tree, on two servers started together on copies of one repository (cold plans first, shared then slots; warm rounds in alternating order). Per step, median ms (warm plan): ${repoSizes.map((r) => `${k(r.files)} files: slots ${phaseText(r.runs.find((x) => x.side === 'worktrees' && !x.cold)!.phases)}; shared ${phaseText(r.runs.find((x) => x.side === 'shared' && !x.cold)!.phases)}`).join(' | ')}. Sizes: ${REPO_SIZES.map(k).join(' / ')}.`);
  say(`CPU-step, CPU-slot = the opencode server process's CPU (user + system, its threads) and its reaped children's (git), sampled every 50 ms and read at the plan's approval and end (journal times, interpolated), minus the same server's CPU over the bare driver's run of the round, / 12 steps: what Orca's orchestration costs the machine per step, which depends little on the model's speed. "with turns": from the orca session's request to its reply (the orca and planner turns, which the bare driver does not have); S8×12: both sides' whole runs / 96 steps.`);
  say(`P1b-2s, S8x12-2s and their -wt twins = P1b and S8×12 again on the same warm servers with a step's model turn at ${par.slowModel.stepLatencyMs} ms (a fast real model; the orca and planner turns, before the approval and after the end, at ${LATENCY} ms): what a user waits for, Orca against the bare driver.`);
  say('P3 = UTF-8 bytes of the last user message (the step prompt) in the first model request of step 50 / of step 2; in process: stepPrompt(thread) of the same steps.');
  say('W0 = UTF-8 bytes of the whole body of the first request of a `build` session on a server with the plugin minus on one without (same config otherwise, same prompt), with the project and home paths masked; identical means byte for byte.');
  say('W1 = characters (UTF-16 units) of the first request of a session of each role: system = its system messages\' text; tools = the `tools` array as JSON; whole = the whole body as JSON (the step\'s prompt included), against the whole of build\'s (without Orca).');
  say(`W2 = between the first requests of two sibling steps (same agent, same dependencies) of one plan: the common prefix of their fixed parts / the longer fixed part. Fixed part = the \`tools\` array JSON, then the system messages as JSON, in order: the order prompt caches read a request in (OpenAI: the longest matching prefix, tools first; Anthropic: tools, then system).`);
  say('W3 = Σ characters of the whole bodies of every chat request of an Orca run of the plan (orca turns, planner, steps, reviews of coder steps: the default gate) / Σ of the bare driver\'s requests for the same steps (one per step, the same prompt text); title requests apart.');
  say(`W3 breakdown: ${w3Small.steps} steps: ${planCharsLine(w3Small)}`);
  say(`            ${w3Big.steps} steps: ${planCharsLine(w3Big)}`);

  section('Targets');
  say('(load: the load average over 1 minute when the row\'s measurement ended, on this machine\'s ' + machine.cores + ' cores)');
  const w = [8, 110, 40, 22, 3, 5];
  const line = (cells: string[]) => say(cells.map((c, i) => c.padEnd(w[i]!)).join(' | '));
  line(['id', 'measure', 'measured', 'target', 'met', 'load']);
  line(w.map((n) => '-'.repeat(n)));
  for (const t of targets) line([t.id, t.what, t.measured, t.goal, t.met ? 'yes' : 'NO', f(t.load, 1)]);

  section('Where the time went');
  for (const l of clock.report()) say(l);
  say('  inside the servers part:');
  for (const t of par.timings) say(`    ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.name}`);

  const loadEnd = loadavg();
  const cpuUsage = cpuUsageSince(cpuStart);
  say(`\nload average at end: ${loadEnd.join(' / ')}${cpuUsage ? `; all CPUs were ${cpuUsage.busyPct}% busy during the bench (this bench included), ${cpuUsage.stealPct}% stolen by the hypervisor` : ''}`);
  say(`total wall time ${elapsed()}`);

  const results = {
    at: new Date().toISOString(),
    machine: { ...machine, loadavgStart: loadStart, loadavgEnd: loadEnd, cpuUsage },
    durationMs: round(clock.elapsedMs(), 0),
    timingsS: clock.parts.map((p) => ({ name: p.name, s: round(p.ms / 1000, 1), load: p.load })),
    long: LONG,
    skipped: LONG ? [] : [{ id: 'S200', why: `long run, not run (${LONG_HINT} or ORCA_BENCH_LONG=1)` }, { id: 'P1 snapshot off', why: `long run (${LONG_HINT})` }],
    targets,
    inProcess: {
      perStepMs: inprocSteps.map((x) => round(x, 3)),
      summary: inprocSummary,
      tailMs: inproc.map((r) => round(r.tailMs, 2)),
      planFileBytes: inproc[0]!.planFileBytes,
      promptBytes: { s2: inprocPrompt('s2'), s50: inprocPrompt('s50') },
    },
    inProcessYieldingPorts: { perStepMs: yieldingSteps.map((x) => round(x, 3)), summary: yieldingSummary, savesPerStep: yielding[0]!.saves / 50 },
    p1: {
      snapshotOffMs: dagSnapOff?.approvalToCompletedMs,
      snapshotOffRatio: dagSnapOff ? round(dagSnapOff.approvalToCompletedMs / p1Bound, 3) : undefined,
      boundMs: p1Bound,
      criticalPath: crit,
      ratio: round(p1, 3),
      wholeTurnBoundMs: p1WholeBound,
      wholeTurnRatio: round(dag4.totalWallMs / p1WholeBound, 3),
      concurrency1Ms: round(median(par.p1bConcurrency1.orcaMs), 0),
      callsByAgent: dag4.callsByAgent,
      titleRequests: dag4.titleRequests,
    },
    p2Server: { perStepMs: round(perStepServer, 1), bare0PromptMs: round(bare0Prompt, 1), bare0CreatePromptMs: round(bare0CreatePrompt, 1), ratio: round(p2Server, 3), bare300, dag1PerStepMs: round(dag1PerStep, 1), bare300PromptMs: round(bare300Prompt, 1), chainCpuMs, bare0CpuMs, bare0 },
    p3: { server: round(p3Server, 4), inProcess: round(p3InProcess, 4), bytes: { s2: Buffer.byteLength(p3Data.s2.userText), s50: Buffer.byteLength(p3Data.s50.userText), s2Body: p3Data.s2.requestBodyBytes, s50Body: p3Data.s50.requestBodyBytes } },
    carry: {
      w0: carry.build,
      w1: { build, worktrees: rolesWorktree, sharedTree: carry.rolesShared, targets: ROLE_TARGET },
      w2: { target: SHARE_TARGET, sharedTree: sharesShared, worktrees: sharesWorktree },
      w3: carry.plans,
    },
    parallel: parallelResults(par),
    repoSize: repoSizeResults(repoSizes),
    p4,
    chain: { ...chainRun, prompts: undefined, requests: undefined, phases: stepPhases(chainRun, CHAIN, 0) },
  };
  writeFileSync(join(import.meta.dirname, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  say('wrote bench/results.json');
}

/** The server loads dist/: rebuild it when a source file is newer. */
function ensureBuilt() {
  const newest = (dir: string): number =>
    Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
  let built = 0;
  try {
    built = statSync(join(root, 'dist', 'index.js')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= newest(join(root, 'src'))) return;
  say('dist/ is older than src/: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
