// `npm run bench`: performance figures of the orchestration (not a test; it never fails on a
// missed target). Prints the machine, each measurement and a table of targets, and writes
// bench/results.json. Everything runs on 127.0.0.1: the real opencode binary from node_modules,
// the built plugin (dist/), and the scripted OpenAI-compatible model of the e2e tests.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuTimes, cpuUsageSince, machineInfo, loadavg } from './machine.js';
import { runInProcess } from './inprocess.js';
import { measureManyPlans } from './many-plans.js';
import { chain, layeredDag, orcaE2ePlan } from './plans.js';
import { barePrompts, criticalPathCalls, runPlan, serverCpuMs, startBenchServer, stepPhases, type PlanRun } from './server.js';
import { median, p95, round, summary } from './stats.js';
import { LONG_HINT, longRequested, measureParallel, parallelResults } from './parallel.js';

const root = join(import.meta.dirname, '..');
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const say = (s = '') => console.log(s);
const section = (title: string) => say(`\n== ${title} (at ${elapsed()})`);
const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

const LATENCY = 300;
// The long scale runs (the 200-step plan: about 10 minutes) run only with `npm run bench -- --long` or ORCA_BENCH_LONG=1.
const LONG = longRequested();
const DAG = layeredDag(3, 4);
const CHAIN = chain(50);

// ---------------------------------------------------------------------------------------------
const machine = machineInfo();
const loadStart = loadavg();
const cpuStart = cpuTimes();
say('Orca benchmarks');
say(`machine: ${machine.cores} cores, ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.platform}`);
say(`node ${machine.node}, opencode ${machine.opencode}, temp dir ${machine.tmpdir}`);
say(`load average at start (1/5/15 min): ${loadStart.join(' / ')} — other processes may be loading this machine; figures vary with it.`);
say(LONG ? 'long runs on (the 200-step plan included)' : `long runs off: the 200-step plan is not run (${LONG_HINT}, or ORCA_BENCH_LONG=1)`);

ensureBuilt();

// ---------------------------------------------------------------------------------------------
section('P2/P3 in process: 50-step chain through PlanHost, ports answer at once');
await runInProcess(chain(10)); // warm-up: module loading and JIT
const inproc: Awaited<ReturnType<typeof runInProcess>>[] = [];
for (let i = 0; i < 3; i++) inproc.push(await runInProcess(CHAIN));
const inprocSteps = inproc.flatMap((r) => r.perStepMs);
const inprocSummary = summary(inprocSteps);
say(`per step (approval → 1st dispatch, then dispatch → next dispatch; 3 runs × 50 steps): median ${f(inprocSummary.median, 2)} ms, p95 ${f(inprocSummary.p95, 2)} ms, max ${f(inprocSummary.max, 2)} ms`);
say(`plan-file writes that reached the disk: ${f(inproc[0]!.saves / 50, 2)} per step (written behind the dispatch path, one in flight per plan, the newest snapshot wins)`);
say(`first 10 steps median ${f(median(inproc.flatMap((r) => r.perStepMs.slice(0, 10))), 2)} ms, last 10 steps median ${f(median(inproc.flatMap((r) => r.perStepMs.slice(-10))), 2)} ms; plan file at the end ${(inproc[0]!.planFileBytes / 1024).toFixed(0)} KiB`);
const yielding: Awaited<ReturnType<typeof runInProcess>>[] = [];
for (let i = 0; i < 3; i++) yielding.push(await runInProcess(CHAIN, { yieldIo: true }));
const yieldingSteps = yielding.flatMap((r) => r.perStepMs.map((ms) => ms));
// Each step here also waits 2 macrotasks for its ports; setImmediate costs microseconds, so this is still orchestration.
const yieldingSummary = summary(yieldingSteps);
say(`info: ports that answer after one macrotask (as real I/O does): ${f(yielding[0]!.saves / 50, 2)} writes per step, per step median ${f(yieldingSummary.median, 2)} ms, p95 ${f(yieldingSummary.p95, 2)} ms`);
const inprocPrompt = (id: string) => Buffer.byteLength(inproc[0]!.prompts.get(id)!);
const p3InProcess = inprocPrompt('s50') / inprocPrompt('s2');
say(`stepPrompt bytes: step 2 ${inprocPrompt('s2')}, step 50 ${inprocPrompt('s50')} → ratio ${f(p3InProcess, 3)}`);

// ---------------------------------------------------------------------------------------------
section(`P1: 12-step DAG (3 layers × 4, each step needs the whole previous layer) on the real server, model latency ${LATENCY} ms`);
const serverRuns: Record<string, unknown> = {};
const dagRuns: Record<number, PlanRun> = {};
const bare300: Awaited<ReturnType<typeof barePrompts>> = [];
const bareSnapOff: Awaited<ReturnType<typeof barePrompts>> = [];
let dagSnapOff: PlanRun | undefined;
for (const { concurrency, snapshotOff } of [{ concurrency: 4, snapshotOff: false }, { concurrency: 1, snapshotOff: false }, { concurrency: 4, snapshotOff: true }]) {
  const bench = await startBenchServer({ concurrency, latencyMs: LATENCY, ...(snapshotOff ? { config: { snapshot: false } } : {}) });
  try {
    if (snapshotOff) section(`info: the same DAG at concurrency 4 with OpenCode's file snapshots off (opencode.json "snapshot": false)`);
    say(`server with plugin options { hitl: { auto: { approval: 'approve' } }, concurrency: ${concurrency} }${snapshotOff ? ' and "snapshot": false' : ''} started in ${f(bench.startMs, 0)} ms`);
    const cpu0 = serverCpuMs(bench.server.projectDir);
    const run = await runPlan(bench, DAG, 'Run the benchmark DAG');
    const cpu = serverCpuMs(bench.server.projectDir) - cpu0;
    if (snapshotOff) dagSnapOff = run;
    else dagRuns[concurrency] = run;
    const phases = stepPhases(run, DAG, LATENCY);
    const med = (k: keyof (typeof phases)[0]) => median(phases.map((p) => p[k] as number));
    say(`  concurrency ${concurrency}: ${run.status}; approval → completed ${run.approvalToCompletedMs} ms; whole orca turn ${f(run.totalWallMs, 0)} ms; opencode CPU ${f(cpu, 0)} ms (${f(cpu / DAG.steps.length, 0)} ms/step)`);
    say(`  model calls: ${Object.entries(run.callsByAgent).map(([a, n]) => `${a} ${n}`).join(', ')}; per step ${[...new Set(Object.values(run.callsPerStep))].join('/')}; title requests ${run.titleRequests}`);
    say(`  per-step phases, median ms: schedule ${f(med('schedule'), 0)}, open session ${f(med('open'), 0)}, pre-model ${f(med('preModel'), 0)}, model ${f(med('model'), 0)}, post-model ${f(med('postModel'), 0)}`);
    serverRuns[`dag_concurrency_${concurrency}${snapshotOff ? '_snapshot_off' : ''}`] = { ...run, prompts: undefined, phases, serverCpuMs: cpu, serverStartMs: bench.startMs };
    if (snapshotOff) {
      const cpuB0 = serverCpuMs(bench.server.projectDir);
      bareSnapOff.push(...(await barePrompts(bench, run.prompts['l2w1']!.userText, 5)));
      const cpuB = (serverCpuMs(bench.server.projectDir) - cpuB0) / 5;
      say(`  bare session.prompt at ${LATENCY} ms (5×): prompt median ${f(median(bareSnapOff.map((b) => b.promptMs)), 0)} ms; opencode CPU ${f(cpuB, 0)} ms/prompt`);
      say(`  approval → completed / bound: ${f(run.approvalToCompletedMs / (3 * LATENCY), 2)}`);
    }
    if (concurrency === 4 && !snapshotOff) {
      const cpuB0 = serverCpuMs(bench.server.projectDir);
      bare300.push(...(await barePrompts(bench, run.prompts['l2w1']!.userText, 8)));
      const cpuB = (serverCpuMs(bench.server.projectDir) - cpuB0) / 8;
      say(`  bare session.prompt at ${LATENCY} ms (8×, fresh coder session, one StructuredOutput call): prompt median ${f(median(bare300.map((b) => b.promptMs)), 0)} ms (pre-model ${f(median(bare300.map((b) => b.preModelMs)), 0)}, post-model ${f(median(bare300.map((b) => b.postModelMs)), 0)}), session.create median ${f(median(bare300.map((b) => b.createMs)), 0)} ms; opencode CPU ${f(cpuB, 0)} ms/prompt`);
    }
    if (concurrency === 1 && !snapshotOff) {
      section('P2/P3 through the server: 50-step chain, model latency 0 ms (same server, concurrency 1)');
      bench.setLatency(0);
      // Bare prompts before and after the chain (5 + 5), so a change in machine load hits both sides.
      const cpuB0 = serverCpuMs(bench.server.projectDir);
      const bare0 = await barePrompts(bench, inproc[0]!.prompts.get('s2')!, 5);
      const cpuB1 = serverCpuMs(bench.server.projectDir);
      const cpuC0 = serverCpuMs(bench.server.projectDir);
      const chainRun = await runPlan(bench, CHAIN, 'Run the benchmark chain');
      const cpuC = serverCpuMs(bench.server.projectDir) - cpuC0;
      const chainPhases = stepPhases(chainRun, CHAIN, 0);
      const cmed = (k: keyof (typeof chainPhases)[0], from = 0, to = 50) => median(chainPhases.slice(from, to).map((p) => p[k] as number));
      const cpuB2 = serverCpuMs(bench.server.projectDir);
      bare0.push(...(await barePrompts(bench, chainRun.prompts['s2']!.userText, 5)));
      const cpuB = (cpuB1 - cpuB0 + serverCpuMs(bench.server.projectDir) - cpuB2) / 10;
      serverRuns.chain_latency_0 = { ...chainRun, prompts: undefined, phases: chainPhases, serverCpuMs: cpuC };
      serverRuns.bare_latency_0 = bare0;
      say(`  chain: ${chainRun.status}; approval → completed ${chainRun.approvalToCompletedMs} ms = ${f(chainRun.approvalToCompletedMs / 50, 0)} ms/step; opencode CPU ${f(cpuC / 50, 0)} ms/step; model calls per step ${[...new Set(Object.values(chainRun.callsPerStep))].join('/')}`);
      say(`  per-step phases, median ms (steps 1-10 | 41-50): open session ${f(cmed('open', 0, 10), 0)} | ${f(cmed('open', 40), 0)}, pre-model ${f(cmed('preModel', 0, 10), 0)} | ${f(cmed('preModel', 40), 0)}, post-model ${f(cmed('postModel', 0, 10), 0)} | ${f(cmed('postModel', 40), 0)}, schedule ${f(cmed('schedule', 0, 10), 0)} | ${f(cmed('schedule', 40), 0)}`);
      say(`  bare session.prompt at 0 ms (5× before the chain, 5× after): prompt median ${f(median(bare0.map((b) => b.promptMs)), 0)} ms (pre-model ${f(median(bare0.map((b) => b.preModelMs)), 0)}, post-model ${f(median(bare0.map((b) => b.postModelMs)), 0)}), session.create median ${f(median(bare0.map((b) => b.createMs)), 0)} ms; opencode CPU ${f(cpuB, 0)} ms/prompt (create included)`);
      const body = (id: string) => chainRun.prompts[id]!;
      say(`  prompt received by the model: user text step 2 ${Buffer.byteLength(body('s2').userText)} B, step 50 ${Buffer.byteLength(body('s50').userText)} B; whole request body ${body('s2').requestBodyBytes} B vs ${body('s50').requestBodyBytes} B`);
      (serverRuns as Record<string, unknown>).p3 = { s2: body('s2'), s50: body('s50') };
    }
  } finally {
    await bench.stop();
  }
}

// ---------------------------------------------------------------------------------------------
section(`P1b, P1c and scale: Orca against a bare client on the same server, model latency ${LATENCY} ms`);
const par = await measureParallel(say, { latencyMs: LATENCY, rounds: 5, long: LONG });
const iso = par.isolation;
const disk = iso.disk;

// ---------------------------------------------------------------------------------------------
section('P4: 10,000 plan files on disk');
const p4 = await measureManyPlans(orcaE2ePlan(), 10_000);
say(`each file a clone (new plan_id) of a completed 3-step plan written by PlanHost: ${(p4.fileBytes / 1024).toFixed(1)} KiB, ${(p4.fileBytes * p4.plans / 2 ** 20).toFixed(0)} MiB in all (written in ${f(p4.generateMs, 0)} ms, so in the page cache)`);
say(`new PlanHost + loadIndex with the summary cache (.opencode/plans/.summaries.cache) in place: ${p4.loadIndexMs.map((x) => f(x, 0)).join(', ')} ms; the plugin function (OrcaPlugin, stub client): ${p4.pluginStartMs.map((x) => f(x, 0)).join(', ')} ms`);
say(`  without the cache (first start, or the cache deleted: every file read, cache written): ${f(p4.coldLoadIndexMs, 0)} ms; after ${p4.changedPlans} plan files changed: ${f(p4.changedLoadIndexMs, 0)} ms`);
say(`orca_list_plans execute, no arguments: median ${f(median(p4.listMs), 1)} ms, max ${f(Math.max(...p4.listMs), 1)} ms, ${p4.listedPlans} of ${p4.plans} plans, ${(p4.listOutputBytes / 1024).toFixed(1)} KiB of JSON ("${p4.listMore}"); the oldest page: median ${f(median(p4.listLastPageMs), 1)} ms`);

// ---------------------------------------------------------------------------------------------
const dag4 = dagRuns[4]!;
const dag1 = dagRuns[1]!;
const crit = criticalPathCalls(DAG, dag4.callsPerStep);
const p1Bound = crit.calls * LATENCY;
const p1 = dag4.approvalToCompletedMs / p1Bound;
const orcaPlannerCalls = (dag4.callsByAgent.orca ?? 0) + (dag4.callsByAgent.planner ?? 0);
const p1WholeBound = (crit.calls + orcaPlannerCalls) * LATENCY;
const seqCalls = Object.values(dag1.callsPerStep).reduce((a, b) => a + b, 0);
const chainRun = serverRuns.chain_latency_0 as PlanRun;
const bare0 = serverRuns.bare_latency_0 as Awaited<ReturnType<typeof barePrompts>>;
const perStepServer = chainRun.approvalToCompletedMs / CHAIN.steps.length;
const bare0Prompt = median(bare0.map((b) => b.promptMs));
const bare0CreatePrompt = median(bare0.map((b) => b.createMs + b.promptMs));
const p2Server = perStepServer / bare0Prompt;
const dag1PerStep = dag1.approvalToCompletedMs / DAG.steps.length;
const bare300Prompt = median(bare300.map((b) => b.promptMs));
const p3Data = (serverRuns as { p3: { s2: { userText: string; requestBodyBytes: number }; s50: { userText: string; requestBodyBytes: number } } }).p3;
const p3Server = Buffer.byteLength(p3Data.s50.userText) / Buffer.byteLength(p3Data.s2.userText);
const p4Start = median(p4.loadIndexMs);
const p4List = median(p4.listMs);

const targets = [
  {
    id: 'P1',
    what: `DAG 3×4 @ concurrency 4: approval→completed / bound (${crit.steps} critical steps × ${crit.calls / crit.steps} call × ${LATENCY} ms = ${p1Bound} ms)`,
    measured: `${f(p1, 2)} (${dag4.approvalToCompletedMs} ms)`,
    goal: 'info (no client reaches it)',
    met: true,
  },
  {
    id: 'P1b',
    what: `DAG 3×4 @ concurrency 4 (coder/tester/document-writer steps): Orca approval→completed with the default isolation (each step in its worktree) / bare driver wall (median of ${par.p1b.ratios.length} alternating rounds)`,
    measured: `${f(par.p1b.ratio, 3)} (${f(median(par.p1b.orcaMs), 0)} / ${f(median(par.p1b.bareMs), 0)} ms)`,
    goal: '<= 1.05',
    met: par.p1b.ratio <= 1.05,
  },
  {
    id: 'P1c',
    what: 'speed-up of concurrency 4 over 1 on that DAG, Orca (bare; ideal 4)',
    measured: `${f(par.p1c.orca, 2)}× (bare ${f(par.p1c.bare, 2)}×)`,
    goal: 'info, near bare',
    met: par.p1c.orca >= par.p1c.bare * 0.95,
  },
  {
    id: 'W-iso',
    what: `P1b Orca with isolation / without (isolation none, own server), median walls; worktree + merge per step = (with − without) / 12 steps; S8×12 the same / 96`,
    measured: `${f(iso.p1bOnOff, 3)} (${f(iso.p1bCostPerStepMs, 0)} ms/step); S8×12 ${f(iso.eightPlansOnOff, 3)} (${f(iso.eightPlansCostPerStepMs, 0)} ms/step)`,
    goal: 'info',
    met: true,
  },
  {
    id: 'W-off',
    what: 'isolation none: P1b Orca / bare; S8×12 Orca / bare (per plan)',
    measured: `${f(iso.p1bOff.ratio, 3)}; ${f(iso.eightPlansOff.ratio, 3)} (${f(iso.eightPlansOff.perPlanRatio, 3)})`,
    goal: 'info',
    met: true,
  },
  {
    id: 'W-disk',
    what: "one worktree of the bench project: KiB of files; KiB on disk (du) + .git/worktrees/; step worktrees left after the runs; OpenCode's snapshot repos left (one per worktree)",
    measured: `${disk ? `${f(disk.fileBytes / 1024, 1)}; ${disk.duKiB} + ${disk.gitAdminKiB} KiB` : `not measured (${iso.diskError})`}; ${iso.leftListed} left; ${iso.opencodeSnapshots.count} × ${f(iso.opencodeSnapshots.kiB / Math.max(1, iso.opencodeSnapshots.count), 0)} KiB`,
    goal: 'info; 0 left',
    met: iso.leftListed === 0 && iso.leftFolders === 0,
  },
  par.scale200
    ? {
        id: 'S200',
        what: '200-step plan (25 × 8) @ concurrency 8: Orca / bare (median of rounds)',
        measured: `${f(par.scale200.ratio, 3)} (${f(median(par.scale200.orcaMs), 0)} / ${f(median(par.scale200.bareMs), 0)} ms)`,
        goal: '<= 1.15',
        met: par.scale200.ratio <= 1.15,
      }
    : {
        id: 'S200',
        what: '200-step plan (25 × 8) @ concurrency 8: Orca / bare (median of rounds)',
        measured: `not run (${LONG_HINT})`,
        goal: '<= 1.15',
        met: true,
      },
  {
    id: 'S8x12',
    what: '8 plans of 12 steps at once (default isolation): Orca first approval→last end / bare, median of 2 alternating rounds (per-plan median)',
    measured: `${f(par.eightPlans.ratio, 3)} (${f(par.eightPlans.perPlanRatio, 3)})`,
    goal: '<= 1.15',
    met: par.eightPlans.ratio <= 1.15,
  },
  {
    id: 'Sgrow',
    what: `growth per step, ${par.growth.map((g) => g.steps).join('/')} steps: heap held KiB/step; plan file KiB/step; writes/step`,
    measured: `${par.growth.map((g) => f(g.heapBytes / g.steps / 1024, 1)).join('/')}; ${par.growth.map((g) => f(g.planFileBytes / g.steps / 1024, 2)).join('/')}; ${par.growth.map((g) => f(g.writes / g.steps, 2)).join('/')}`,
    goal: 'linear or better',
    met: par.growth.every((g, i) => i === 0 || (g.heapBytes / g.steps <= (par.growth[0]!.heapBytes / par.growth[0]!.steps) * 1.25 && g.planFileBytes / g.steps <= (par.growth[0]!.planFileBytes / par.growth[0]!.steps) * 1.25)),
  },
  {
    id: 'P2a',
    what: 'orchestration per step in process, 50-step chain (median; p95)',
    measured: `${f(inprocSummary.median, 2)} ms; p95 ${f(inprocSummary.p95, 2)} ms`,
    goal: '<= 2 ms median',
    met: inprocSummary.median <= 2,
  },
  {
    id: 'P2b',
    what: 'per step through the server (50-step chain @0 ms: wall/50) / bare session.prompt @0 ms',
    measured: `${f(p2Server, 2)} (${f(perStepServer, 0)} / ${f(bare0Prompt, 0)} ms)`,
    goal: '<= 1.2',
    met: p2Server <= 1.2,
  },
  {
    id: 'P3',
    what: 'prompt bytes step 50 / step 2 (50-step chain, text the model received)',
    measured: `${f(p3Server, 3)} (in process ${f(p3InProcess, 3)})`,
    goal: '<= 1.5',
    met: p3Server <= 1.5 && p3InProcess <= 1.5,
  },
  {
    id: 'P4a',
    what: 'orca_list_plans execute with 10,000 plans (median; first page of 50)',
    measured: `${f(p4List, 1)} ms`,
    goal: '<= 100 ms',
    met: p4List <= 100,
  },
  {
    id: 'P4b',
    what: 'plugin start with 10,000 plans: new PlanHost + loadIndex (median; summary cache in place)',
    measured: `${f(p4Start, 0)} ms (plugin fn ${f(median(p4.pluginStartMs), 0)} ms; no cache ${f(p4.coldLoadIndexMs, 0)} ms)`,
    goal: '<= 300 ms',
    met: p4Start <= 300,
  },
];

section('Definitions');
say(`P1 bound = Σ over the DAG's longest dependency path of (model calls of the step × latency): ${crit.steps} steps × ${crit.calls / crit.steps} model call × ${LATENCY} ms = ${p1Bound} ms. Measured from the plan's journal: the approval.approve event (auto policy) → the plan entering "completed", so the orca and planner turns are outside both sides.`);
say(`  including them instead: whole orca session.prompt ${f(dag4.totalWallMs, 0)} ms vs (${crit.calls} critical + ${orcaPlannerCalls} orca/planner calls) × ${LATENCY} ms = ${p1WholeBound} ms → ${f(dag4.totalWallMs / p1WholeBound, 2)}`);
say(`  concurrency 1, same plan: approval→completed ${dag1.approvalToCompletedMs} ms (${f(dag1PerStep, 0)} ms/step) vs sequential bound ${seqCalls} × ${LATENCY} = ${seqCalls * LATENCY} ms → ${f(dag1.approvalToCompletedMs / (seqCalls * LATENCY), 2)}; concurrency 4 is ${f(dag1.approvalToCompletedMs / dag4.approvalToCompletedMs, 2)}× faster (ideal ${f(seqCalls / crit.calls, 1)}×)`);
say(`  what OpenCode alone allows: ${crit.steps} × bare prompt at ${LATENCY} ms (${f(bare300Prompt, 0)} ms) = ${f(crit.steps * bare300Prompt, 0)} ms → ${f((crit.steps * bare300Prompt) / p1Bound, 2)} of the bound even with zero orchestration and perfect parallelism`);
if (dagSnapOff) say(`  with "snapshot": false (info): approval→completed ${dagSnapOff.approvalToCompletedMs} ms → ${f(dagSnapOff.approvalToCompletedMs / p1Bound, 2)}; bare prompt ${f(median(bareSnapOff.map((b) => b.promptMs)), 0)} ms`);
say(`P2b per step = approval→completed / 50 of a 50-step chain; bare = session.prompt alone in a fresh session (create excluded) from this process over HTTP. With create included: ${f(bare0CreatePrompt, 0)} ms → ${f(perStepServer / bare0CreatePrompt, 2)}. At ${LATENCY} ms (DAG at concurrency 1): ${f(dag1PerStep, 0)} ms/step vs bare ${f(bare300Prompt, 0)} ms → ${f(dag1PerStep / bare300Prompt, 2)}.`);
say('P3 = UTF-8 bytes of the last user message (the step prompt) in the first model request of step 50 / of step 2; in process: stepPrompt(thread) of the same steps.');

section('Targets');
const w = [6, 100, 40, 26, 3];
const line = (cells: string[]) => say(cells.map((c, i) => c.padEnd(w[i]!)).join(' | '));
line(['id', 'measure', 'measured', 'target', 'met']);
line(w.map((n) => '-'.repeat(n)));
for (const t of targets) line([t.id, t.what, t.measured, t.goal, t.met ? 'yes' : 'NO']);

const loadEnd = loadavg();
const cpuUsage = cpuUsageSince(cpuStart);
say(`\nload average at end: ${loadEnd.join(' / ')}${cpuUsage ? `; all CPUs were ${cpuUsage.busyPct}% busy during the bench (this bench included), ${cpuUsage.stealPct}% stolen by the hypervisor` : ''}; total bench time ${elapsed()}`);

const results = {
  at: new Date().toISOString(),
  machine: { ...machine, loadavgStart: loadStart, loadavgEnd: loadEnd, cpuUsage },
  durationMs: round(performance.now() - started, 0),
  long: LONG,
  skipped: LONG ? [] : [{ id: 'S200', why: `long run, not run (${LONG_HINT} or ORCA_BENCH_LONG=1)` }],
  targets,
  inProcess: {
    perStepMs: inprocSteps.map((x) => round(x, 3)),
    summary: inprocSummary,
    tailMs: inproc.map((r) => round(r.tailMs, 2)),
    planFileBytes: inproc[0]!.planFileBytes,
    promptBytes: { s2: inprocPrompt('s2'), s50: inprocPrompt('s50') },
  },
  inProcessYieldingPorts: { perStepMs: yieldingSteps.map((x) => round(x, 3)), summary: yieldingSummary, savesPerStep: yielding[0]!.saves / 50 },
  p1: { snapshotOffMs: dagSnapOff?.approvalToCompletedMs, snapshotOffRatio: dagSnapOff ? round(dagSnapOff.approvalToCompletedMs / p1Bound, 3) : undefined, boundMs: p1Bound, criticalPath: crit, ratio: round(p1, 3), wholeTurnBoundMs: p1WholeBound, wholeTurnRatio: round(dag4.totalWallMs / p1WholeBound, 3), concurrency1Ms: dag1.approvalToCompletedMs },
  p2Server: { perStepMs: round(perStepServer, 1), bare0PromptMs: round(bare0Prompt, 1), bare0CreatePromptMs: round(bare0CreatePrompt, 1), ratio: round(p2Server, 3), bare300, dag1PerStepMs: round(dag1PerStep, 1), bare300PromptMs: round(bare300Prompt, 1) },
  p3: { server: round(p3Server, 4), inProcess: round(p3InProcess, 4), bytes: { s2: Buffer.byteLength(p3Data.s2.userText), s50: Buffer.byteLength(p3Data.s50.userText), s2Body: p3Data.s2.requestBodyBytes, s50Body: p3Data.s50.requestBodyBytes } },
  parallel: parallelResults(par),
  p4,
  serverRuns,
};
writeFileSync(join(import.meta.dirname, 'results.json'), JSON.stringify(results, null, 2) + '\n');
say('wrote bench/results.json');

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
