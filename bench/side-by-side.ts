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

/** One warm-up of each (not counted; skipped for runs long enough to warm up by themselves), then `rounds` rounds; even rounds run bare first, odd ones Orca first. */
export async function sideBySide(bench: BenchServer, plan: BenchPlan, concurrency: number, rounds: number, label: string, { warmUp = true } = {}): Promise<SideBySide> {
  const orca = async (i: number) => runPlan(bench, { ...plan, goal: `${plan.goal} (${label} ${i})` }, `Run the benchmark plan: ${label} ${i}`);
  const bare = async () => {
    bench.setScript(bareScript());
    return runBare(bench, plan, concurrency);
  };
  if (warmUp) {
    await bare();
    await orca(-1);
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
  /** Orca: first approval → last plan's end; bare: start → last plan's last reply. */
  orcaSpanMs: number;
  bareSpanMs: number;
  /** Per plan: Orca approval → completed, bare wall. */
  orcaPerPlanMs: number[];
  barePerPlanMs: number[];
  ratio: number;
  perPlanRatio: number;
  orcaRuns: PlanRun[];
}

/** `n` copies of `plan` at once, driven by Orca (each from its own orca session), then by the bare driver. */
export async function manyAtOnce(bench: BenchServer, plan: BenchPlan, n: number, concurrency: number): Promise<ManyAtOnce> {
  const copies = Array.from({ length: n }, (_, k) => ({ plan: { ...plan, goal: `${plan.goal} (copy ${k + 1} of ${n})` }, request: `Run benchmark copy ${k + 1} of ${n}` }));
  const orcaRuns = await runPlans(bench, copies);
  for (const r of orcaRuns) if (r.status !== 'completed') throw new Error(`plan ${r.planId} ended ${r.status}`);
  bench.setScript(bareScript());
  const t0 = performance.now();
  const bareRuns = await Promise.all(copies.map(() => runBare(bench, plan, concurrency)));
  const bareSpanMs = performance.now() - t0;
  const orcaSpanMs = Math.max(...orcaRuns.map((r) => r.endedAt)) - Math.min(...orcaRuns.map((r) => r.approvedAt));
  const orcaPerPlanMs = orcaRuns.map((r) => r.approvalToCompletedMs);
  const barePerPlanMs = bareRuns.map((r) => r.wallMs);
  return {
    plans: n,
    orcaSpanMs,
    bareSpanMs,
    orcaPerPlanMs,
    barePerPlanMs,
    ratio: orcaSpanMs / bareSpanMs,
    perPlanRatio: median(orcaPerPlanMs) / median(barePerPlanMs),
    orcaRuns,
  };
}
