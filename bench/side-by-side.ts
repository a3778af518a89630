// Orca and the bare driver (bench/bare.ts) doing the same plan on the same server, in alternating
// rounds, so a change in the machine's load hits both sides alike.
import { bareScript, runBare, type BareRun } from './bare.js';
import type { BenchPlan } from './plans.js';
import { cpuSince, cpuTotal, processCpu, runPlan, runPlans, watchCpu, type BenchServer, type CpuSplit, type PlanRun } from './server.js';
import { median } from './stats.js';

export interface SideBySide {
  /** approval → completed (journal), one per round. */
  orcaMs: number[];
  /** first session.create → last reply, one per round. */
  bareMs: number[];
  /** orca / bare of each round, and their median. */
  ratios: number[];
  ratio: number;
  orcaRuns: PlanRun[];
  bareRuns: BareRun[];
  /** The server's CPU (process and reaped children), one per round: see RoundsCpu. */
  cpu: RoundsCpu;
}

/**
 * The server's CPU, one per round, in ms: Orca's from the approval to the plan's end (the span its
 * wall is measured over) and for the whole orca turn (the orca and planner turns included); the bare
 * driver's for its run.
 */
export interface RoundsCpu {
  orca: CpuSplit[];
  orcaWhole: CpuSplit[];
  bare: CpuSplit[];
}

/** What Orca's steps cost the server over the bare driver's, per step: the median over rounds of (Orca − bare) / steps. */
export function cpuPerStep(cpu: RoundsCpu, steps: number, which: 'orca' | 'orcaWhole' = 'orca') {
  const each = (pick: (c: CpuSplit) => number) => cpu[which].map((o, i) => (pick(o) - pick(cpu.bare[i]!)) / steps);
  const rounds = each(cpuTotal);
  return { totalMs: median(rounds), childrenMs: median(each((c) => c.children)), rounds };
}

/**
 * One warm-up of each (not counted; of `plan`, or of a smaller plan given; skipped for runs long
 * enough to warm up by themselves or on a server already warmed), then `rounds` rounds; even rounds
 * run bare first, odd ones Orca first. With `bareFrom`, the bare side is that run's, not run again.
 */
export async function sideBySide(
  bench: BenchServer,
  plan: BenchPlan,
  concurrency: number,
  rounds: number,
  label: string,
  { warmUp = true, bareFrom }: { warmUp?: boolean | BenchPlan; bareFrom?: SideBySide } = {},
): Promise<SideBySide> {
  const cpu: RoundsCpu = { orca: [], orcaWhole: [], bare: [] };
  const orca = async (i: number, p = plan) => {
    const watch = watchCpu(bench.pid);
    let run: PlanRun;
    try {
      run = await runPlan(bench, { ...p, goal: `${p.goal} (${label} ${i})` }, `Run the benchmark plan: ${label} ${i}`);
    } finally {
      watch.stop();
    }
    if (i >= 0) {
      cpu.orca.push(watch.between(run.approvedAt, run.endedAt));
      cpu.orcaWhole.push(watch.whole());
    }
    return run;
  };
  const bare = async (p = plan, counted = true) => {
    // The bare driver's runs of another server doing the same work (it works the same with or without slots).
    if (bareFrom && counted) {
      const i = bareRuns.length;
      cpu.bare.push(bareFrom.cpu.bare[i]!);
      return bareFrom.bareRuns[i]!;
    }
    bench.setScript(bareScript());
    const c0 = processCpu(bench.pid);
    const run = await runBare(bench, p, concurrency);
    if (counted) cpu.bare.push(cpuSince(c0, processCpu(bench.pid)));
    return run;
  };
  if (warmUp) {
    const small = warmUp === true ? plan : warmUp;
    await bare(small, false);
    await orca(-1, small);
  }
  const orcaRuns: PlanRun[] = [];
  const bareRuns: BareRun[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      bareRuns.push(await bare());
      orcaRuns.push(await orca(i));
    } else {
      orcaRuns.push(await orca(i));
      bareRuns.push(await bare());
    }
    const o = orcaRuns.at(-1)!;
    if (o.status !== 'completed') throw new Error(`${label}: Orca's plan ${o.planId} ended ${o.status}`);
  }
  const orcaMs = orcaRuns.map((r) => r.approvalToCompletedMs);
  const bareMs = bareRuns.map((r) => r.wallMs);
  const ratios = orcaMs.map((o, i) => o / bareMs[i]!);
  return { orcaMs, bareMs, ratios, ratio: median(ratios), orcaRuns, bareRuns, cpu };
}

export interface ManyAtOnce {
  plans: number;
  /** Per round: Orca first approval → last plan's end; bare start → last plan's last reply. */
  orcaSpanMs: number[];
  bareSpanMs: number[];
  /** Per plan, every round: Orca approval → completed, bare wall. */
  orcaPerPlanMs: number[];
  barePerPlanMs: number[];
  /** Median of the rounds' span ratios; median per-plan Orca / median per-plan bare. */
  ratio: number;
  ratios: number[];
  perPlanRatio: number;
  orcaRuns: PlanRun[];
  /** The server's CPU per round, each side's whole run (Orca's: every orca and planner turn included). */
  cpu: { orca: CpuSplit[]; bare: CpuSplit[] };
}

/**
 * `n` copies of `plan` at once, driven by Orca (each from its own orca session) and by the bare
 * driver, in `rounds` rounds of alternating order (even rounds Orca first), so a change in the
 * machine's load hits both sides alike. With `bareFrom`, the bare side is that run's.
 */
export async function manyAtOnce(bench: BenchServer, plan: BenchPlan, n: number, concurrency: number, rounds = 2, { bareFrom }: { bareFrom?: ManyAtOnce } = {}): Promise<ManyAtOnce> {
  const orcaSpanMs: number[] = [];
  const bareSpanMs: number[] = [];
  const orcaPerPlanMs: number[] = [];
  const barePerPlanMs: number[] = [];
  const orcaRuns: PlanRun[] = [];
  const cpu: ManyAtOnce['cpu'] = { orca: [], bare: [] };
  const orca = async (round: number) => {
    const c0 = processCpu(bench.pid);
    const copies = Array.from({ length: n }, (_, k) => ({ plan: { ...plan, goal: `${plan.goal} (round ${round}, copy ${k + 1} of ${n})` }, request: `Run benchmark round ${round} copy ${k + 1} of ${n}` }));
    const runs = await runPlans(bench, copies);
    for (const r of runs) if (r.status !== 'completed') throw new Error(`plan ${r.planId} ended ${r.status}`);
    cpu.orca.push(cpuSince(c0, processCpu(bench.pid)));
    orcaRuns.push(...runs);
    orcaSpanMs.push(Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.approvedAt)));
    orcaPerPlanMs.push(...runs.map((r) => r.approvalToCompletedMs));
  };
  const bare = async () => {
    if (bareFrom) {
      const i = bareSpanMs.length;
      bareSpanMs.push(bareFrom.bareSpanMs[i]!);
      barePerPlanMs.push(...bareFrom.barePerPlanMs.slice(i * n, (i + 1) * n));
      cpu.bare.push(bareFrom.cpu.bare[i]!);
      return;
    }
    bench.setScript(bareScript());
    const c0 = processCpu(bench.pid);
    const t0 = performance.now();
    const runs = await Promise.all(Array.from({ length: n }, () => runBare(bench, plan, concurrency)));
    bareSpanMs.push(performance.now() - t0);
    cpu.bare.push(cpuSince(c0, processCpu(bench.pid)));
    barePerPlanMs.push(...runs.map((r) => r.wallMs));
  };
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      await orca(i);
      await bare();
    } else {
      await bare();
      await orca(i);
    }
  }
  const ratios = orcaSpanMs.map((o, i) => o / bareSpanMs[i]!);
  return {
    plans: n,
    orcaSpanMs,
    bareSpanMs,
    orcaPerPlanMs,
    barePerPlanMs,
    ratio: median(ratios),
    ratios,
    perPlanRatio: median(orcaPerPlanMs) / median(barePerPlanMs),
    orcaRuns,
    cpu,
  };
}
