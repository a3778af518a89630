// P1b, P1c and the scale runs: Orca against the bare driver on the same server (issue 17). The
// bare driver never makes a worktree, so the side-by-side rows (P1b, P1c, S8×12, S200) run Orca
// with steps in the shared tree (isolation `none`): what Orca's orchestration adds. P1b runs again
// on a server with step worktrees (isolation `worktree`, the default in a git repository): what a
// worktree and its merge add per step (W-iso), what one worktree holds on disk and that none is
// left (W-disk). Also how the plugin's heap and plan file grow with the number of steps.
// `npx tsx bench/parallel.ts` runs only these; `npm run bench` runs them among the others.
// The default run keeps to a few rounds so the whole bench takes minutes; `-- --long` (or
// ORCA_BENCH_LONG=1) adds rounds, S8×12 with worktrees and the 200-step plan.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { xdgDirs } from '../test/support/opencode-sandbox.js';
import { workspaceSupport } from '../src/workspace/support.js';
import { diskBytes, listWorktrees, openWorktree, releasePlanSlots, trimSlots } from '../src/workspace/worktrees.js';
import { heapAfterGc, runInProcess } from './inprocess.js';
import { runBench } from './lifecycle.js';
import { DAG_AGENTS, layeredDag } from './plans.js';
import { serverCpuMs, startBenchServer, stepPhases, type BenchServer, type PlanRun } from './server.js';
import { manyAtOnce, sideBySide, type ManyAtOnce, type SideBySide } from './side-by-side.js';
import { median, round } from './stats.js';

/** How to run the long scale runs (the 200-step plan, S8×12 with worktrees, more rounds), which are off unless asked for. */
export const LONG_HINT = 'npm run bench -- --long';
/** `--long` on the command line or ORCA_BENCH_LONG=1. */
export const longRequested = () => process.argv.includes('--long') || /^(1|true|yes)$/i.test(process.env.ORCA_BENCH_LONG ?? '');

/** Rounds of each side-by-side run: the default run's, and the long run's. */
export interface Rounds {
  /** P1b in the shared tree (after one warm-up of each side). */
  p1b: number;
  /** P1b with worktrees (no warm-up: a worktree step's instance is new however warm the server is). */
  worktree: number;
  /** P1c, the DAG at concurrency 1 (no warm-up: the chain of P2b warms the server). */
  concurrency1: number;
  /** 8 plans of 12 steps at once, alternating order (shared tree; with worktrees only in the long run). */
  eight: number;
  /** The 200-step plan (long run only). */
  scale: number;
}
export const DEFAULT_ROUNDS: Rounds = { p1b: 3, worktree: 1, concurrency1: 1, eight: 1, scale: 0 };
export const LONG_ROUNDS: Rounds = { p1b: 5, worktree: 3, concurrency1: 5, eight: 2, scale: 3 };

export interface WorktreeDisk {
  /** Bytes of the worktree's files (symlinks as links), as `orca doctor` counts them. */
  fileBytes: number;
  /** `du -sk` of the worktree folder: blocks really used, folders included. */
  duKiB: number;
  /** `du -sk` of git's record of it in the repository (`.git/worktrees/<name>`: its index, HEAD). */
  gitAdminKiB: number;
  /** Files in the worktree. */
  files: number;
  /** openWorktree (snapshot of the user's tree, `git worktree add`) and removeWorktree, ms, one per try. */
  openMs: number[];
  removeMs: number[];
}

export interface IsolationFigures {
  /** The plans' policy.workspace as their plan files say it, on each server. */
  workspaceOn: string;
  workspaceOff: string;
  /** P1b with step worktrees: Orca (approval → completed) against the bare driver. */
  p1bOn: SideBySide;
  /** S8×12 with step worktrees (long run only). */
  eightPlansOn?: ManyAtOnce;
  /** (Orca median wall with isolation − without) / steps, ms. */
  p1bCostPerStepMs: number;
  /** The same from the median spans of 8 plans at once / 96 steps (long run only). */
  eightPlansCostPerStepMs?: number;
  /** Orca with isolation / Orca without: P1b median walls; S8×12 median spans (long run only). */
  p1bOnOff: number;
  eightPlansOnOff?: number;
  /** Step worktree folders found at once by a sampler (every 250 ms) during the isolation runs, and how many distinct ones it saw. */
  maxAtOnce: number;
  seen: number;
  /** Step worktrees left once the runs ended (after up to 10 s for the last removals), in git's list and as folders. */
  leftListed: number;
  leftFolders: number;
  /** OpenCode's own snapshot repositories (`$XDG_DATA_HOME/opencode/snapshot/<project>/<directory hash>`): one per directory a session worked in, each worktree's included; they stay after the worktree is removed. */
  opencodeSnapshots: { count: number; kiB: number };
  disk?: WorktreeDisk;
  diskError?: string;
}

export interface ParallelFigures {
  latencyMs: number;
  rounds: Rounds;
  /** P1b in the shared tree (isolation none). */
  p1b: SideBySide;
  p1bConcurrency1: SideBySide;
  /** Speed-up of concurrency 4 over 1: median wall at 1 / median wall at 4 (shared tree). */
  p1c: { orca: number; bare: number; ideal: number };
  /** Absent unless the long runs were asked for (LONG_HINT). */
  scale200?: SideBySide & { planFileBytes: number };
  /** 8 plans of 12 steps at once, shared tree. */
  eightPlans: ManyAtOnce;
  isolation: IsolationFigures;
  growth: Array<{ steps: number; heapBytes: number; planFileBytes: number; writes: number }>;
  /** Seconds each part took. */
  timings: Array<{ name: string; ms: number }>;
}

/** More work on a server while it is up (run.ts measures P1, P2b, P3 and W1 on these servers). */
export interface ServerHooks {
  /** The shared-tree server at concurrency 4 and the bench latency, after P1b. */
  shared?: (bench: BenchServer, p1b: SideBySide) => Promise<void>;
  /** The shared-tree server at concurrency 1, before P1c (it warms the server); leave the latency as found. */
  concurrency1?: (bench: BenchServer) => Promise<void>;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
const SHARED_TREE = { isolation: { mode: 'none' } };

export async function measureParallel(
  say: (s?: string) => void,
  { latencyMs = 300, long = false, rounds = long ? LONG_ROUNDS : DEFAULT_ROUNDS, hooks = {} }: { latencyMs?: number; long?: boolean; rounds?: Rounds; hooks?: ServerHooks } = {},
): Promise<ParallelFigures> {
  const dag = layeredDag(3, 4);
  const big = layeredDag(25, 8);
  const agents = `every step a file-changing specialist (${DAG_AGENTS.join(', ')} in turn, review gate off)`;
  const timings: ParallelFigures['timings'] = [];
  const timed = async <T>(name: string, part: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await part();
    } finally {
      timings.push({ name, ms: performance.now() - t0 });
      say(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  };

  // --- the shared tree, concurrency 4
  say(`P1b: the 12-step DAG (3 layers × 4; ${agents}) at concurrency 4, model latency ${latencyMs} ms, steps in the shared tree (isolation none, as the bare driver works): Orca (approval → completed) and the bare driver (session.create + session.prompt per step, same prompts, order and concurrency), ${rounds.p1b} alternating rounds after one warm-up each (its first layer)`);
  const s4 = await startBenchServer({ concurrency: 4, latencyMs, pluginOptions: SHARED_TREE });
  let p1b: SideBySide;
  let eightPlans: ManyAtOnce;
  let workspaceOff: string;
  try {
    p1b = await timed('P1b, shared tree', async () => {
      const cpu0 = serverCpuMs(s4.server.projectDir);
      const run = await sideBySide(s4, dag, 4, rounds.p1b, 'p1b', { warmUp: layeredDag(1, 4) });
      say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms; Orca / bare per round ${run.ratios.map((r) => f(r, 3)).join(', ')} → median ${f(run.ratio, 3)} (opencode CPU for all of it ${f(serverCpuMs(s4.server.projectDir) - cpu0, 0)} ms)`);
      say(`  ${phaseLine(run, dag, latencyMs)}`);
      return run;
    });
    workspaceOff = planWorkspace(s4, p1b.orcaRuns.at(-1)!);
    if (hooks.shared) await timed('P1 bare prompts, shared tree', () => hooks.shared!(s4, p1b));
    say(`Scale: 8 plans of 12 steps at once on the same server (concurrency 4 each, shared tree), ${rounds.eight} round(s)${rounds.eight > 1 ? ' of alternating order' : ' (Orca first)'}`);
    eightPlans = await timed('S8×12, shared tree', async () => {
      const run = await manyAtOnce(s4, dag, 8, 4, rounds.eight);
      say(`  Orca first approval → last end ${ms(run.orcaSpanMs)} ms; bare ${ms(run.bareSpanMs)} ms → per round ${run.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(run.ratio, 3)}; per plan median ${f(median(run.orcaPerPlanMs), 0)} vs ${f(median(run.barePerPlanMs), 0)} ms → ${f(run.perPlanRatio, 3)}`);
      return run;
    });
  } finally {
    await s4.stop();
  }

  // --- step worktrees (the default), concurrency 4
  say(`P1b again with step worktrees (isolation "worktree", the default in a git repository; a server of its own): ${rounds.worktree} round(s), bare first${long ? '; then S8×12' : ''}`);
  const s4on = await startBenchServer({ concurrency: 4, latencyMs });
  let p1bOn: SideBySide;
  let eightPlansOn: ManyAtOnce | undefined;
  let watched: { maxAtOnce: number; seen: number };
  let left: { listed: number; folders: number };
  let snapshots: { count: number; kiB: number };
  let disk: WorktreeDisk | undefined;
  let diskError: string | undefined;
  let workspaceOn: string;
  try {
    const watcher = watchWorktrees(s4on);
    try {
      p1bOn = await timed('P1b, worktrees', async () => {
        const run = await sideBySide(s4on, dag, 4, rounds.worktree, 'p1b-worktree', { warmUp: false });
        say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → per round ${run.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(run.ratio, 3)}`);
        say(`  ${phaseLine(run, dag, latencyMs)}`);
        return run;
      });
      if (long) {
        eightPlansOn = await timed('S8×12, worktrees', async () => {
          const run = await manyAtOnce(s4on, dag, 8, 4, rounds.eight);
          say(`  S8×12 with worktrees: Orca ${ms(run.orcaSpanMs)} ms; bare ${ms(run.bareSpanMs)} ms → median ${f(run.ratio, 3)}; per plan ${f(run.perPlanRatio, 3)}`);
          return run;
        });
      }
    } finally {
      watched = watcher.stop();
    }
    workspaceOn = planWorkspace(s4on, p1bOn.orcaRuns.at(-1)!);
    left = await leftWorktrees(s4on);
    snapshots = opencodeSnapshots(s4on);
    say(`  worktrees: plans ran with workspace "${workspaceOn}"; up to ${watched.maxAtOnce} step worktrees at once (sampled every 250 ms; ${watched.seen} distinct seen); left after the runs: ${left.listed} in git's list, ${left.folders} folders (expected 0)`);
    say(`  OpenCode's file-snapshot repositories left in its data folder: ${snapshots.count} (one per directory a session worked in: the project and each worktree), ${snapshots.kiB} KiB in all (${f(snapshots.kiB / Math.max(1, snapshots.count), 0)} KiB each)`);
    try {
      disk = await measureWorktreeDisk(s4on);
      say(`  one worktree of the bench project (made by openWorktree from the server's repository, then removed): ${disk.files} files, ${f(disk.fileBytes / 1024, 1)} KiB of files, ${disk.duKiB} KiB on disk (du), plus ${disk.gitAdminKiB} KiB in .git/worktrees/; open ${ms(disk.openMs)} ms, remove ${ms(disk.removeMs)} ms`);
    } catch (error) {
      diskError = error instanceof Error ? error.message : String(error);
      say(`  disk per worktree: not measured (${diskError})`);
    }
  } finally {
    await s4on.stop();
  }
  const cost = (on: number, off: number, steps: number) => (on - off) / steps;
  const isolation: IsolationFigures = {
    workspaceOn,
    workspaceOff,
    p1bOn,
    p1bCostPerStepMs: cost(median(p1bOn.orcaMs), median(p1b.orcaMs), dag.steps.length),
    p1bOnOff: median(p1bOn.orcaMs) / median(p1b.orcaMs),
    ...(eightPlansOn
      ? {
          eightPlansOn,
          eightPlansCostPerStepMs: cost(median(eightPlansOn.orcaSpanMs), median(eightPlans.orcaSpanMs), 8 * dag.steps.length),
          eightPlansOnOff: median(eightPlansOn.orcaSpanMs) / median(eightPlans.orcaSpanMs),
        }
      : {}),
    maxAtOnce: watched.maxAtOnce,
    seen: watched.seen,
    leftListed: left.listed,
    leftFolders: left.folders,
    opencodeSnapshots: snapshots,
    ...(disk ? { disk } : {}),
    ...(diskError ? { diskError } : {}),
  };
  const row = (cells: string[]) => say(`  ${cells[0]!.padEnd(7)} ${cells[1]!.padEnd(34)} ${cells[2]!.padEnd(34)} ${cells[3]}`);
  say(`Isolation side by side (${agents}; workspace "${workspaceOn}" vs "${workspaceOff}"):`);
  row(['', 'with worktrees: Orca / bare', 'shared tree (none): Orca / bare', 'worktree + merge per step']);
  row(['P1b', `${f(p1bOn.ratio, 3)} (${f(median(p1bOn.orcaMs), 0)} / ${f(median(p1bOn.bareMs), 0)} ms)`, `${f(p1b.ratio, 3)} (${f(median(p1b.orcaMs), 0)} / ${f(median(p1b.bareMs), 0)} ms)`, `(${f(median(p1bOn.orcaMs), 0)} − ${f(median(p1b.orcaMs), 0)}) / ${dag.steps.length} = ${f(isolation.p1bCostPerStepMs, 0)} ms`]);
  if (eightPlansOn) row(['S8×12', `${f(eightPlansOn.ratio, 3)} (${f(median(eightPlansOn.orcaSpanMs), 0)} / ${f(median(eightPlansOn.bareSpanMs), 0)} ms)`, `${f(eightPlans.ratio, 3)} (${f(median(eightPlans.orcaSpanMs), 0)} / ${f(median(eightPlans.bareSpanMs), 0)} ms)`, `(${f(median(eightPlansOn.orcaSpanMs), 0)} − ${f(median(eightPlans.orcaSpanMs), 0)}) / ${8 * dag.steps.length} = ${f(isolation.eightPlansCostPerStepMs!, 0)} ms`]);
  else row(['S8×12', `not run (${LONG_HINT})`, `${f(eightPlans.ratio, 3)} (${f(median(eightPlans.orcaSpanMs), 0)} / ${f(median(eightPlans.bareSpanMs), 0)} ms)`, '']);
  say(`  Orca with isolation / without: P1b ${f(isolation.p1bOnOff, 3)}${isolation.eightPlansOnOff !== undefined ? `, S8×12 ${f(isolation.eightPlansOnOff, 3)}` : ''} (steps run 4 at a time: a wall-time difference / steps is what each worktree and merge adds to the plan's wall, not its own duration)`);

  // --- the shared tree, concurrency 1
  say(`P1c: the same DAG at concurrency 1 (shared tree), ${rounds.concurrency1} round(s)${rounds.concurrency1 > 1 ? ' of alternating order' : ' (bare first)'}`);
  const s1 = await startBenchServer({ concurrency: 1, latencyMs, pluginOptions: SHARED_TREE });
  let p1bConcurrency1: SideBySide;
  try {
    if (hooks.concurrency1) await timed('P2b/P3 chain, concurrency 1', () => hooks.concurrency1!(s1));
    s1.setLatency(latencyMs);
    p1bConcurrency1 = await timed('P1c, concurrency 1', async () => {
      const run = await sideBySide(s1, dag, 1, rounds.concurrency1, 'p1c', { warmUp: !hooks.concurrency1 });
      say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → median ${f(run.ratio, 3)}`);
      return run;
    });
  } finally {
    await s1.stop();
  }
  const p1c = {
    orca: median(p1bConcurrency1.orcaMs) / median(p1b.orcaMs),
    bare: median(p1bConcurrency1.bareMs) / median(p1b.bareMs),
    ideal: 12 / 3,
  };
  say(`  speed-up of concurrency 4 over 1: Orca ${f(p1c.orca)}×, bare ${f(p1c.bare)}× (ideal ${p1c.ideal}×; a team that runs steps one after another: 1×)`);

  let scale200: ParallelFigures['scale200'];
  if (long) {
    say(`Scale: a 200-step plan (25 layers × 8) at concurrency 8 (shared tree), ${rounds.scale} alternating rounds (no warm-up)`);
    // The dispatch cap (default 100) would stop a 200-step plan at the budget gate.
    const s8 = await startBenchServer({ concurrency: 8, latencyMs, pluginOptions: { ...SHARED_TREE, breakers: { max_dispatches: 1000 } } });
    try {
      scale200 = await timed('S200', async () => {
        const run = await sideBySide(s8, big, 8, rounds.scale, 'scale200', { warmUp: false });
        say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → median ${f(run.ratio, 3)}; plan file ${(run.orcaRuns.at(-1)!.planFileBytes / 1024).toFixed(0)} KiB`);
        return { ...run, planFileBytes: run.orcaRuns.at(-1)!.planFileBytes };
      });
    } finally {
      await s8.stop();
    }
  } else {
    say(`Scale: the 200-step plan (25 layers × 8): not run (${LONG_HINT}, or ORCA_BENCH_LONG=1; its ${LONG_ROUNDS.scale} rounds take about 10 minutes)`);
  }

  say('Growth with the number of steps (in process, the plan host with ports that answer after one macrotask, width 8):');
  const growth = await timed('growth, in process', async () => {
    heapAfterGc();
    await runInProcess(layeredDag(2, 8), { yieldIo: true, concurrency: 8 }); // warm-up
    const out: ParallelFigures['growth'] = [];
    for (const layers of [6, 12, 25]) {
      const plan = layeredDag(layers, 8);
      const run = await runInProcess(plan, { yieldIo: true, concurrency: 8, measureHeap: true });
      out.push({ steps: plan.steps.length, heapBytes: run.heapBytes ?? NaN, planFileBytes: run.planFileBytes, writes: run.saves });
    }
    return out;
  });
  for (const g of growth) say(`  ${String(g.steps).padStart(3)} steps: heap held ${(g.heapBytes / 1024).toFixed(0)} KiB (${(g.heapBytes / g.steps / 1024).toFixed(1)} KiB/step), plan file ${(g.planFileBytes / 1024).toFixed(0)} KiB (${(g.planFileBytes / g.steps / 1024).toFixed(2)} KiB/step), ${f(g.writes / g.steps)} plan-file writes/step`);

  return { latencyMs, rounds, p1b, p1bConcurrency1, p1c, ...(scale200 ? { scale200 } : {}), eightPlans, isolation, growth, timings };
}

/** Per step medians of Orca's phases against the bare driver's. */
function phaseLine(run: SideBySide, dag: ReturnType<typeof layeredDag>, latencyMs: number): string {
  const bareMed = (k: 'createMs' | 'preModelMs' | 'postModelMs') => f(median(run.bareRuns.flatMap((r) => r[k])), 0);
  const phases = run.orcaRuns.flatMap((r: PlanRun) => stepPhases(r, dag, latencyMs));
  const orcaMed = (k: 'open' | 'preModel' | 'postModel') => f(median(phases.map((p) => p[k])), 0);
  return `per step, median ms: session.create bare ${bareMed('createMs')} / Orca ${orcaMed('open')} (opening_session → running); prompt sent → model request bare ${bareMed('preModelMs')} / Orca ${orcaMed('preModel')} (running → model request); model reply → turn read bare ${bareMed('postModelMs')} / Orca ${orcaMed('postModel')} (→ step completed)`;
}

/** The step worktrees folder of the bench server's sandbox: `$XDG_DATA_HOME/opencode-orca/worktrees`. */
function worktreesFolder(bench: BenchServer): string {
  return join(xdgDirs(bench.server.homeDir).XDG_DATA_HOME, 'opencode-orca', 'worktrees');
}

/** Step worktree folders (`<12 hex>/<planId>/<stepId>.<attempt>/`) there now. */
function worktreeFolders(bench: BenchServer): string[] {
  const root = worktreesFolder(bench);
  const dirs = (path: string) => {
    try {
      return readdirSync(path, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(path, e.name));
    } catch {
      return [];
    }
  };
  return dirs(root).flatMap(dirs).flatMap(dirs).filter((d) => /\.\d+$/.test(d));
}

/** Counts step worktree folders every `everyMs` (a readdir of three levels: nothing next to a turn). */
function watchWorktrees(bench: BenchServer, everyMs = 250) {
  let maxAtOnce = 0;
  const seen = new Set<string>();
  const sample = () => {
    const now = worktreeFolders(bench);
    for (const d of now) seen.add(d);
    maxAtOnce = Math.max(maxAtOnce, now.length);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { maxAtOnce, seen: seen.size };
    },
  };
}

/** Where the plan's file-changing steps worked, as its plan's policy says (`worktree`, `shared`, `none`; in the persisted snapshot's context). */
function planWorkspace(bench: BenchServer, run: PlanRun): string {
  type File = { policy?: { workspace?: string }; snapshot?: { context?: { policy?: { workspace?: string } } } };
  const file = JSON.parse(readFileSync(join(bench.server.projectDir, '.opencode', 'plans', `${run.planId}.json`), 'utf8')) as File;
  return file.policy?.workspace ?? file.snapshot?.context?.policy?.workspace ?? 'absent (none)';
}

/** OpenCode's snapshot repositories in the server's data folder: count and `du -sk` of them all. */
function opencodeSnapshots(bench: BenchServer): { count: number; kiB: number } {
  const root = join(xdgDirs(bench.server.homeDir).XDG_DATA_HOME, 'opencode', 'snapshot');
  let count = 0;
  try {
    for (const project of readdirSync(root)) count += readdirSync(join(root, project)).length;
  } catch {
    return { count: 0, kiB: 0 };
  }
  return { count, kiB: Number(execFileSync('du', ['-sk', root], { encoding: 'utf8' }).split(/\s/)[0]) };
}

/** Orca's worktrees still there once the runs ended: waits up to `waitMs` for removals in flight. */
async function leftWorktrees(bench: BenchServer, waitMs = 10_000) {
  const support = await workspaceSupport(bench.server.projectDir, { dataHome: xdgDirs(bench.server.homeDir).XDG_DATA_HOME });
  const repo = support.ok ? support : support.repository;
  const count = async () => ({ listed: repo ? (await listWorktrees(repo)).length : 0, folders: worktreeFolders(bench).length });
  const until = performance.now() + waitMs;
  let left = await count();
  while ((left.listed > 0 || left.folders > 0) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    left = await count();
  }
  return left;
}

/**
 * One worktree of the bench project as a step gets it (openWorktree from the server's repository,
 * the user's tree with its untracked files, no include list, no setup), measured and removed; 3 tries.
 */
async function measureWorktreeDisk(bench: BenchServer): Promise<WorktreeDisk> {
  const support = await workspaceSupport(bench.server.projectDir, { dataHome: xdgDirs(bench.server.homeDir).XDG_DATA_HOME });
  if (!support.ok) throw new Error(support.reason);
  const du = (path: string) => Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split(/\s/)[0]);
  const openMs: number[] = [];
  const removeMs: number[] = [];
  let measured: Omit<WorktreeDisk, 'openMs' | 'removeMs'> | undefined;
  const planId = 'plan_01BENCHD1SK00000000000000';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t0 = performance.now();
    const ws = await openWorktree(support, { planId, stepId: 'size', attempt, include: [] });
    openMs.push(performance.now() - t0);
    const root = ws.root!;
    if (!measured) {
      const gitDir = execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: root, encoding: 'utf8' }).trim();
      const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean).length;
      measured = { fileBytes: await diskBytes(root), duKiB: du(root), gitAdminKiB: du(gitDir), files };
    }
    const t1 = performance.now();
    await releasePlanSlots(support, planId);
    await trimSlots(support, 0);
    removeMs.push(performance.now() - t1);
  }
  rmSync(join(support.worktrees, planId), { recursive: true, force: true });
  return { ...measured!, openMs, removeMs };
}

/** results.json's part: figures without the per-run details. */
export function parallelResults(p: ParallelFigures) {
  const many = (m: ManyAtOnce) => ({ ...m, orcaRuns: undefined, ratio: round(m.ratio, 3), ratios: m.ratios.map((x) => round(x, 3)), perPlanRatio: round(m.perPlanRatio, 3) });
  const side = (s: SideBySide) => ({ orcaMs: s.orcaMs.map((x) => round(x, 0)), bareMs: s.bareMs.map((x) => round(x, 0)), ratios: s.ratios.map((x) => round(x, 3)), ratio: round(s.ratio, 3) });
  const iso = p.isolation;
  return {
    latencyMs: p.latencyMs,
    rounds: p.rounds,
    p1b: side(p.p1b),
    p1bConcurrency1: side(p.p1bConcurrency1),
    p1c: { orca: round(p.p1c.orca, 2), bare: round(p.p1c.bare, 2), ideal: p.p1c.ideal },
    scale200: p.scale200 ? { ...side(p.scale200), planFileBytes: p.scale200.planFileBytes } : { skipped: `not run (${LONG_HINT})` },
    eightPlans: many(p.eightPlans),
    isolation: {
      ...iso,
      p1bOn: side(iso.p1bOn),
      eightPlansOn: iso.eightPlansOn ? many(iso.eightPlansOn) : { skipped: `not run (${LONG_HINT})` },
      p1bCostPerStepMs: round(iso.p1bCostPerStepMs, 1),
      eightPlansCostPerStepMs: iso.eightPlansCostPerStepMs === undefined ? undefined : round(iso.eightPlansCostPerStepMs, 1),
      p1bOnOff: round(iso.p1bOnOff, 3),
      eightPlansOnOff: iso.eightPlansOnOff === undefined ? undefined : round(iso.eightPlansOnOff, 3),
      disk: iso.disk ? { ...iso.disk, openMs: iso.disk.openMs.map((x) => round(x, 0)), removeMs: iso.disk.removeMs.map((x) => round(x, 0)) } : undefined,
    },
    growth: p.growth,
    timingsS: p.timings.map((t) => ({ name: t.name, s: round(t.ms / 1000, 1) })),
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  await runBench(async () => {
    const long = longRequested();
    const base = long ? LONG_ROUNDS : DEFAULT_ROUNDS;
    const env = (name: string, fallback: number) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
    const rounds: Rounds = { p1b: env('ROUNDS', base.p1b), worktree: env('WORKTREE_ROUNDS', base.worktree), concurrency1: env('C1_ROUNDS', base.concurrency1), eight: env('EIGHT_ROUNDS', base.eight), scale: env('SCALE_ROUNDS', base.scale) };
    const t0 = performance.now();
    const figures = await measureParallel((s = '') => console.log(s), { rounds, long });
    console.log(JSON.stringify(parallelResults(figures), null, 2));
    console.log(`total wall time ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });
}
