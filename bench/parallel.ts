// P1b, P1c and the scale runs: Orca against the bare driver on the same server (issue 17), and how
// the plugin's heap and plan file grow with the number of steps. `tsx bench/parallel.ts` runs only
// these; `npm run bench` runs them among the others.
import { heapAfterGc, runInProcess } from './inprocess.js';
import { layeredDag } from './plans.js';
import { serverCpuMs, startBenchServer, stepPhases } from './server.js';
import { manyAtOnce, sideBySide, type ManyAtOnce, type SideBySide } from './side-by-side.js';
import { median, round } from './stats.js';

export interface ParallelFigures {
  latencyMs: number;
  p1b: SideBySide;
  p1bConcurrency1: SideBySide;
  /** Speed-up of concurrency 4 over 1: median wall at 1 / median wall at 4. */
  p1c: { orca: number; bare: number; ideal: number };
  scale200: SideBySide & { planFileBytes: number };
  eightPlans: ManyAtOnce;
  growth: Array<{ steps: number; heapBytes: number; planFileBytes: number; writes: number }>;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');

export async function measureParallel(say: (s?: string) => void, { latencyMs = 300, rounds = 5, scaleRounds = 3 } = {}): Promise<ParallelFigures> {
  const dag = layeredDag(3, 4);
  const big = layeredDag(25, 8);

  say(`P1b: the 12-step DAG (3 layers × 4) at concurrency 4, model latency ${latencyMs} ms: Orca (approval → completed) and the bare driver (session.create + session.prompt per step, same prompts, order and concurrency), ${rounds} alternating rounds after one warm-up each`);
  const s4 = await startBenchServer({ concurrency: 4, latencyMs });
  let p1b: SideBySide;
  let eightPlans: ManyAtOnce;
  try {
    const cpu0 = serverCpuMs(s4.server.projectDir);
    p1b = await sideBySide(s4, dag, 4, rounds, 'p1b');
    say(`  Orca ${ms(p1b.orcaMs)} ms; bare ${ms(p1b.bareMs)} ms; Orca / bare per round ${p1b.ratios.map((r) => f(r, 3)).join(', ')} → median ${f(p1b.ratio, 3)} (opencode CPU for all of it ${f(serverCpuMs(s4.server.projectDir) - cpu0, 0)} ms)`);
    const bareMed = (k: 'createMs' | 'promptMs' | 'preModelMs' | 'postModelMs') => f(median(p1b.bareRuns.flatMap((r) => r[k])), 0);
    const phases = p1b.orcaRuns.flatMap((r) => stepPhases(r, dag, latencyMs));
    const orcaMed = (k: 'open' | 'preModel' | 'postModel') => f(median(phases.map((p) => p[k])), 0);
    say(`  per step, median ms: session.create bare ${bareMed('createMs')} / Orca ${orcaMed('open')} (opening_session → running); prompt sent → model request bare ${bareMed('preModelMs')} / Orca ${orcaMed('preModel')} (running → model request); model reply → turn read bare ${bareMed('postModelMs')} / Orca ${orcaMed('postModel')} (→ step completed)`);
    say(`Scale: 8 plans of 12 steps at once on the same server (concurrency 4 each), 2 rounds of alternating order`);
    eightPlans = await manyAtOnce(s4, dag, 8, 4, 2);
    say(`  Orca first approval → last end ${ms(eightPlans.orcaSpanMs)} ms; bare ${ms(eightPlans.bareSpanMs)} ms → per round ${eightPlans.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(eightPlans.ratio, 3)}; per plan median ${f(median(eightPlans.orcaPerPlanMs), 0)} vs ${f(median(eightPlans.barePerPlanMs), 0)} ms → ${f(eightPlans.perPlanRatio, 3)}`);
  } finally {
    await s4.stop();
  }

  say(`P1c: the same DAG at concurrency 1`);
  const s1 = await startBenchServer({ concurrency: 1, latencyMs });
  let p1bConcurrency1: SideBySide;
  try {
    p1bConcurrency1 = await sideBySide(s1, dag, 1, rounds, 'p1c');
    say(`  Orca ${ms(p1bConcurrency1.orcaMs)} ms; bare ${ms(p1bConcurrency1.bareMs)} ms → median ${f(p1bConcurrency1.ratio, 3)}`);
  } finally {
    await s1.stop();
  }
  const p1c = {
    orca: median(p1bConcurrency1.orcaMs) / median(p1b.orcaMs),
    bare: median(p1bConcurrency1.bareMs) / median(p1b.bareMs),
    ideal: 12 / 3,
  };
  say(`  speed-up of concurrency 4 over 1: Orca ${f(p1c.orca)}×, bare ${f(p1c.bare)}× (ideal ${p1c.ideal}×; a team that runs steps one after another: 1×)`);

  say(`Scale: a 200-step plan (25 layers × 8) at concurrency 8, ${scaleRounds} alternating rounds (no warm-up)`);
  // The dispatch cap (default 100) would stop a 200-step plan at the budget gate.
  const s8 = await startBenchServer({ concurrency: 8, latencyMs, pluginOptions: { breakers: { max_dispatches: 1000 } } });
  let scale200: ParallelFigures['scale200'];
  try {
    const run = await sideBySide(s8, big, 8, scaleRounds, 'scale200', { warmUp: false });
    scale200 = { ...run, planFileBytes: run.orcaRuns.at(-1)!.planFileBytes };
    say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → median ${f(run.ratio, 3)}; plan file ${(scale200.planFileBytes / 1024).toFixed(0)} KiB`);
  } finally {
    await s8.stop();
  }

  say('Growth with the number of steps (in process, the plan host with ports that answer after one macrotask, width 8):');
  heapAfterGc();
  await runInProcess(layeredDag(2, 8), { yieldIo: true, concurrency: 8 }); // warm-up
  const growth: ParallelFigures['growth'] = [];
  for (const layers of [6, 12, 25]) {
    const plan = layeredDag(layers, 8);
    const run = await runInProcess(plan, { yieldIo: true, concurrency: 8, measureHeap: true });
    growth.push({ steps: plan.steps.length, heapBytes: run.heapBytes ?? NaN, planFileBytes: run.planFileBytes, writes: run.saves });
  }
  for (const g of growth) say(`  ${String(g.steps).padStart(3)} steps: heap held ${(g.heapBytes / 1024).toFixed(0)} KiB (${(g.heapBytes / g.steps / 1024).toFixed(1)} KiB/step), plan file ${(g.planFileBytes / 1024).toFixed(0)} KiB (${(g.planFileBytes / g.steps / 1024).toFixed(2)} KiB/step), ${f(g.writes / g.steps)} plan-file writes/step`);

  return { latencyMs, p1b, p1bConcurrency1, p1c, scale200, eightPlans, growth };
}

/** results.json's part: figures without the per-run details. */
export function parallelResults(p: ParallelFigures) {
  const side = (s: SideBySide) => ({ orcaMs: s.orcaMs.map((x) => round(x, 0)), bareMs: s.bareMs.map((x) => round(x, 0)), ratios: s.ratios.map((x) => round(x, 3)), ratio: round(s.ratio, 3) });
  return {
    latencyMs: p.latencyMs,
    p1b: side(p.p1b),
    p1bConcurrency1: side(p.p1bConcurrency1),
    p1c: { orca: round(p.p1c.orca, 2), bare: round(p.p1c.bare, 2), ideal: p.p1c.ideal },
    scale200: { ...side(p.scale200), planFileBytes: p.scale200.planFileBytes },
    eightPlans: { ...p.eightPlans, orcaRuns: undefined, ratio: round(p.eightPlans.ratio, 3), ratios: p.eightPlans.ratios.map((x) => round(x, 3)), perPlanRatio: round(p.eightPlans.perPlanRatio, 3) },
    growth: p.growth,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const figures = await measureParallel((s = '') => console.log(s), { rounds: Number(process.env.ROUNDS ?? 5), scaleRounds: Number(process.env.SCALE_ROUNDS ?? 3) });
  console.log(JSON.stringify(parallelResults(figures), null, 2));
}
