// Orca and the bare driver (bench/bare.ts) doing the same plan on the same server, in alternating
// rounds, so a change in the machine's load hits both sides alike.
import { bareScript, runBare, type BareRun } from './bare.js';
import type { BenchPlan } from './plans.js';
import { runPlan, runPlans, type BenchServer, type PlanRun } from './server.js';
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
}

/**
 * One warm-up of each (not counted; of `plan`, or of a smaller plan given; skipped for runs long
 * enough to warm up by themselves or on a server already warmed), then `rounds` rounds; even rounds
 * run bare first, odd ones Orca first.
 */
export async function sideBySide(bench: BenchServer, plan: BenchPlan, concurrency: number, rounds: number, label: string, { warmUp = true }: { warmUp?: boolean | BenchPlan } = {}): Promise<SideBySide> {
  const orca = async (i: number, p = plan) => runPlan(bench, { ...p, goal: `${p.goal} (${label} ${i})` }, `Run the benchmark plan: ${label} ${i}`);
  const bare = async (p = plan) => {
    bench.setScript(bareScript());
    return runBare(bench, p, concurrency);
  };
  if (warmUp) {
    const small = warmUp === true ? plan : warmUp;
    await bare(small);
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
  return { orcaMs, bareMs, ratios, ratio: median(ratios), orcaRuns, bareRuns };
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
}

/**
 * `n` copies of `plan` at once, driven by Orca (each from its own orca session) and by the bare
 * driver, in `rounds` rounds of alternating order (even rounds Orca first), so a change in the
 * machine's load hits both sides alike.
 */
export async function manyAtOnce(bench: BenchServer, plan: BenchPlan, n: number, concurrency: number, rounds = 2): Promise<ManyAtOnce> {
  const orcaSpanMs: number[] = [];
  const bareSpanMs: number[] = [];
  const orcaPerPlanMs: number[] = [];
  const barePerPlanMs: number[] = [];
  const orcaRuns: PlanRun[] = [];
  const orca = async (round: number) => {
    const copies = Array.from({ length: n }, (_, k) => ({ plan: { ...plan, goal: `${plan.goal} (round ${round}, copy ${k + 1} of ${n})` }, request: `Run benchmark round ${round} copy ${k + 1} of ${n}` }));
    const runs = await runPlans(bench, copies);
    for (const r of runs) if (r.status !== 'completed') throw new Error(`plan ${r.planId} ended ${r.status}`);
    orcaRuns.push(...runs);
    orcaSpanMs.push(Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.approvedAt)));
    orcaPerPlanMs.push(...runs.map((r) => r.approvalToCompletedMs));
  };
  const bare = async () => {
    bench.setScript(bareScript());
    const t0 = performance.now();
    const runs = await Promise.all(Array.from({ length: n }, () => runBare(bench, plan, concurrency)));
    bareSpanMs.push(performance.now() - t0);
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
  };
}
