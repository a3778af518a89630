// P1b, P1c and the scale runs: Orca against the bare driver on the same server (issue 17), each of
// P1b and S8×12 twice: with step worktrees (isolation `worktree`, the default) and without
// (isolation `none`, on a server of its own); what one worktree of the bench project holds on disk;
// and how the plugin's heap and plan file grow with the number of steps. `tsx bench/parallel.ts`
// runs only these (`-- --long` or ORCA_BENCH_LONG=1 adds the 200-step plan); `npm run bench`
// runs them among the others.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { xdgDirs } from '../test/support/opencode-sandbox.js';
import { workspaceSupport } from '../src/workspace/support.js';
import { diskBytes, listWorktrees, openWorktree, removeWorktree } from '../src/workspace/worktrees.js';
import { heapAfterGc, runInProcess } from './inprocess.js';
import { DAG_AGENTS, layeredDag } from './plans.js';
import { serverCpuMs, startBenchServer, stepPhases, type BenchServer, type PlanRun } from './server.js';
import { manyAtOnce, sideBySide, type ManyAtOnce, type SideBySide } from './side-by-side.js';
import { median, round } from './stats.js';

/** How to run the long scale runs (the 200-step plan), which are off unless asked for. */
export const LONG_HINT = 'npm run bench -- --long';
/** `--long` on the command line or ORCA_BENCH_LONG=1. */
export const longRequested = () => process.argv.includes('--long') || /^(1|true|yes)$/i.test(process.env.ORCA_BENCH_LONG ?? '');

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
  p1bOff: SideBySide;
  eightPlansOff: ManyAtOnce;
  /** (Orca median wall with isolation − without) / steps, ms. */
  p1bCostPerStepMs: number;
  /** The same from the median spans of 8 plans at once / 96 steps. */
  eightPlansCostPerStepMs: number;
  /** Orca with isolation / Orca without: P1b median walls; S8×12 median spans. */
  p1bOnOff: number;
  eightPlansOnOff: number;
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
  p1b: SideBySide;
  p1bConcurrency1: SideBySide;
  /** Speed-up of concurrency 4 over 1: median wall at 1 / median wall at 4. */
  p1c: { orca: number; bare: number; ideal: number };
  /** Absent unless the long runs were asked for (LONG_HINT). */
  scale200?: SideBySide & { planFileBytes: number };
  eightPlans: ManyAtOnce;
  isolation: IsolationFigures;
  growth: Array<{ steps: number; heapBytes: number; planFileBytes: number; writes: number }>;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');

export async function measureParallel(
  say: (s?: string) => void,
  { latencyMs = 300, rounds = 5, scaleRounds = 3, eightRounds = 2, long = false }: { latencyMs?: number; rounds?: number; scaleRounds?: number; eightRounds?: number; long?: boolean } = {},
): Promise<ParallelFigures> {
  const dag = layeredDag(3, 4);
  const big = layeredDag(25, 8);
  const agents = `every step a file-changing specialist (${DAG_AGENTS.join(', ')} in turn, review gate off), so each gets its own worktree when isolation is on`;

  say(`P1b: the 12-step DAG (3 layers × 4; ${agents}) at concurrency 4, model latency ${latencyMs} ms: Orca (approval → completed) and the bare driver (session.create + session.prompt per step, same prompts, order and concurrency), ${rounds} alternating rounds after one warm-up each`);
  say(`  isolation on (the default: isolation.mode "worktree")`);
  const s4 = await startBenchServer({ concurrency: 4, latencyMs });
  let p1b: SideBySide;
  let eightPlans: ManyAtOnce;
  let watched: { maxAtOnce: number; seen: number };
  let left: { listed: number; folders: number };
  let snapshots: { count: number; kiB: number };
  let disk: WorktreeDisk | undefined;
  let diskError: string | undefined;
  let workspaceOn: string;
  try {
    const watcher = watchWorktrees(s4);
    try {
      const cpu0 = serverCpuMs(s4.server.projectDir);
      p1b = await sideBySide(s4, dag, 4, rounds, 'p1b');
      say(`  Orca ${ms(p1b.orcaMs)} ms; bare ${ms(p1b.bareMs)} ms; Orca / bare per round ${p1b.ratios.map((r) => f(r, 3)).join(', ')} → median ${f(p1b.ratio, 3)} (opencode CPU for all of it ${f(serverCpuMs(s4.server.projectDir) - cpu0, 0)} ms)`);
      const bareMed = (k: 'createMs' | 'promptMs' | 'preModelMs' | 'postModelMs') => f(median(p1b.bareRuns.flatMap((r) => r[k])), 0);
      const phases = p1b.orcaRuns.flatMap((r) => stepPhases(r, dag, latencyMs));
      const orcaMed = (k: 'open' | 'preModel' | 'postModel') => f(median(phases.map((p) => p[k])), 0);
      say(`  per step, median ms: session.create bare ${bareMed('createMs')} / Orca ${orcaMed('open')} (opening_session → running); prompt sent → model request bare ${bareMed('preModelMs')} / Orca ${orcaMed('preModel')} (running → model request); model reply → turn read bare ${bareMed('postModelMs')} / Orca ${orcaMed('postModel')} (→ step completed)`);
      say(`Scale: 8 plans of 12 steps at once on the same server (concurrency 4 each, isolation on), ${eightRounds} rounds of alternating order`);
      eightPlans = await manyAtOnce(s4, dag, 8, 4, eightRounds);
      say(`  Orca first approval → last end ${ms(eightPlans.orcaSpanMs)} ms; bare ${ms(eightPlans.bareSpanMs)} ms → per round ${eightPlans.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(eightPlans.ratio, 3)}; per plan median ${f(median(eightPlans.orcaPerPlanMs), 0)} vs ${f(median(eightPlans.barePerPlanMs), 0)} ms → ${f(eightPlans.perPlanRatio, 3)}`);
    } finally {
      watched = watcher.stop();
    }
    workspaceOn = planWorkspace(s4, p1b.orcaRuns.at(-1)!);
    left = await leftWorktrees(s4);
    snapshots = opencodeSnapshots(s4);
    say(`  worktrees: plans ran with workspace "${workspaceOn}"; up to ${watched.maxAtOnce} step worktrees at once (sampled every 250 ms; ${watched.seen} distinct seen); left after the runs: ${left.listed} in git's list, ${left.folders} folders (expected 0)`);
    say(`  OpenCode's file-snapshot repositories left in its data folder: ${snapshots.count} (one per directory a session worked in: the project and each worktree), ${snapshots.kiB} KiB in all (${f(snapshots.kiB / Math.max(1, snapshots.count), 0)} KiB each)`);
    try {
      disk = await measureWorktreeDisk(s4);
      say(`  one worktree of the bench project (made by openWorktree from the server's repository, then removed): ${disk.files} files, ${f(disk.fileBytes / 1024, 1)} KiB of files, ${disk.duKiB} KiB on disk (du), plus ${disk.gitAdminKiB} KiB in .git/worktrees/; open ${ms(disk.openMs)} ms, remove ${ms(disk.removeMs)} ms`);
    } catch (error) {
      diskError = error instanceof Error ? error.message : String(error);
      say(`  disk per worktree: not measured (${diskError})`);
    }
  } finally {
    await s4.stop();
  }

  say(`P1b and S8×12 again with isolation off (plugin option isolation: { mode: "none" }, a server of its own): steps share the project directory`);
  const s4off = await startBenchServer({ concurrency: 4, latencyMs, pluginOptions: { isolation: { mode: 'none' } } });
  let p1bOff: SideBySide;
  let eightPlansOff: ManyAtOnce;
  let workspaceOff: string;
  try {
    p1bOff = await sideBySide(s4off, dag, 4, rounds, 'p1b-off');
    say(`  P1b: Orca ${ms(p1bOff.orcaMs)} ms; bare ${ms(p1bOff.bareMs)} ms → per round ${p1bOff.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(p1bOff.ratio, 3)}`);
    eightPlansOff = await manyAtOnce(s4off, dag, 8, 4, eightRounds);
    say(`  S8×12: Orca ${ms(eightPlansOff.orcaSpanMs)} ms; bare ${ms(eightPlansOff.bareSpanMs)} ms → median ${f(eightPlansOff.ratio, 3)}; per plan ${f(eightPlansOff.perPlanRatio, 3)}`);
    workspaceOff = planWorkspace(s4off, p1bOff.orcaRuns.at(-1)!);
  } finally {
    await s4off.stop();
  }
  const cost = (on: number, off: number, steps: number) => (on - off) / steps;
  const isolation: IsolationFigures = {
    workspaceOn,
    workspaceOff,
    p1bOff,
    eightPlansOff,
    p1bCostPerStepMs: cost(median(p1b.orcaMs), median(p1bOff.orcaMs), dag.steps.length),
    eightPlansCostPerStepMs: cost(median(eightPlans.orcaSpanMs), median(eightPlansOff.orcaSpanMs), 8 * dag.steps.length),
    p1bOnOff: median(p1b.orcaMs) / median(p1bOff.orcaMs),
    eightPlansOnOff: median(eightPlans.orcaSpanMs) / median(eightPlansOff.orcaSpanMs),
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
  row(['', 'with worktrees: Orca / bare', 'without (none): Orca / bare', 'worktree + merge per step']);
  row(['P1b', `${f(p1b.ratio, 3)} (${f(median(p1b.orcaMs), 0)} / ${f(median(p1b.bareMs), 0)} ms)`, `${f(p1bOff.ratio, 3)} (${f(median(p1bOff.orcaMs), 0)} / ${f(median(p1bOff.bareMs), 0)} ms)`, `(${f(median(p1b.orcaMs), 0)} − ${f(median(p1bOff.orcaMs), 0)}) / ${dag.steps.length} = ${f(isolation.p1bCostPerStepMs, 0)} ms`]);
  row(['S8×12', `${f(eightPlans.ratio, 3)} (${f(median(eightPlans.orcaSpanMs), 0)} / ${f(median(eightPlans.bareSpanMs), 0)} ms)`, `${f(eightPlansOff.ratio, 3)} (${f(median(eightPlansOff.orcaSpanMs), 0)} / ${f(median(eightPlansOff.bareSpanMs), 0)} ms)`, `(${f(median(eightPlans.orcaSpanMs), 0)} − ${f(median(eightPlansOff.orcaSpanMs), 0)}) / ${8 * dag.steps.length} = ${f(isolation.eightPlansCostPerStepMs, 0)} ms`]);
  say(`  Orca with isolation / without: P1b ${f(isolation.p1bOnOff, 3)}, S8×12 ${f(isolation.eightPlansOnOff, 3)} (steps run 4 at a time: a wall-time difference / steps is what each worktree and merge adds to the plan's wall, not its own duration)`);

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

  let scale200: ParallelFigures['scale200'];
  if (long) {
    say(`Scale: a 200-step plan (25 layers × 8) at concurrency 8, ${scaleRounds} alternating rounds (no warm-up)`);
    // The dispatch cap (default 100) would stop a 200-step plan at the budget gate.
    const s8 = await startBenchServer({ concurrency: 8, latencyMs, pluginOptions: { breakers: { max_dispatches: 1000 } } });
    try {
      const run = await sideBySide(s8, big, 8, scaleRounds, 'scale200', { warmUp: false });
      scale200 = { ...run, planFileBytes: run.orcaRuns.at(-1)!.planFileBytes };
      say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → median ${f(run.ratio, 3)}; plan file ${(scale200.planFileBytes / 1024).toFixed(0)} KiB`);
    } finally {
      await s8.stop();
    }
  } else {
    say(`Scale: the 200-step plan (25 layers × 8): not run (${LONG_HINT}, or ORCA_BENCH_LONG=1; its ${scaleRounds} rounds take about 10 minutes)`);
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

  return { latencyMs, p1b, p1bConcurrency1, p1c, ...(scale200 ? { scale200 } : {}), eightPlans, isolation, growth };
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

/** Where the plan's file-changing steps worked, as its plan file's policy says (`worktree`, `shared`, `none`). */
function planWorkspace(bench: BenchServer, run: PlanRun): string {
  const file = JSON.parse(readFileSync(join(bench.server.projectDir, '.opencode', 'plans', `${run.planId}.json`), 'utf8')) as { policy?: { workspace?: string } };
  return file.policy?.workspace ?? 'absent (none)';
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
  const planId = 'plan_bench_disk';
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
    await removeWorktree(support, root);
    removeMs.push(performance.now() - t1);
  }
  rmSync(join(support.worktrees, planId), { recursive: true, force: true });
  return { ...measured!, openMs, removeMs };
}

/** results.json's part: figures without the per-run details. */
export function parallelResults(p: ParallelFigures) {
  const many = (m: ManyAtOnce) => ({ ...m, orcaRuns: undefined, ratio: round(m.ratio, 3), ratios: m.ratios.map((x) => round(x, 3)), perPlanRatio: round(m.perPlanRatio, 3) });
  const side = (s: SideBySide) => ({ orcaMs: s.orcaMs.map((x) => round(x, 0)), bareMs: s.bareMs.map((x) => round(x, 0)), ratios: s.ratios.map((x) => round(x, 3)), ratio: round(s.ratio, 3) });
  return {
    latencyMs: p.latencyMs,
    p1b: side(p.p1b),
    p1bConcurrency1: side(p.p1bConcurrency1),
    p1c: { orca: round(p.p1c.orca, 2), bare: round(p.p1c.bare, 2), ideal: p.p1c.ideal },
    scale200: p.scale200 ? { ...side(p.scale200), planFileBytes: p.scale200.planFileBytes } : { skipped: `not run (${LONG_HINT})` },
    eightPlans: many(p.eightPlans),
    isolation: {
      ...p.isolation,
      p1bOff: side(p.isolation.p1bOff),
      eightPlansOff: many(p.isolation.eightPlansOff),
      p1bCostPerStepMs: round(p.isolation.p1bCostPerStepMs, 1),
      eightPlansCostPerStepMs: round(p.isolation.eightPlansCostPerStepMs, 1),
      p1bOnOff: round(p.isolation.p1bOnOff, 3),
      eightPlansOnOff: round(p.isolation.eightPlansOnOff, 3),
      disk: p.isolation.disk ? { ...p.isolation.disk, openMs: p.isolation.disk.openMs.map((x) => round(x, 0)), removeMs: p.isolation.disk.removeMs.map((x) => round(x, 0)) } : undefined,
    },
    growth: p.growth,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const figures = await measureParallel((s = '') => console.log(s), { rounds: Number(process.env.ROUNDS ?? 5), scaleRounds: Number(process.env.SCALE_ROUNDS ?? 3), eightRounds: Number(process.env.EIGHT_ROUNDS ?? 2), long: longRequested() });
  console.log(JSON.stringify(parallelResults(figures), null, 2));
}
