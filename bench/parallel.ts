// P1b, P1c and the scale runs: Orca against the bare driver on the same server (issue 17). P1b and
// S8×12 run twice, each on a server of its own doing the same work (one warm-up of each side, the
// same rounds): with steps in the shared tree (isolation `none`, as the bare driver works: what
// Orca's orchestration adds) and in worktree slots (isolation `worktree`, the default in a git
// repository: what a slot's reset, measure and landing add, and what the slots' warm OpenCode
// instances cost in memory). The server's resident memory is watched over P1b and S8×12 on both
// (bench/memory.ts). Also the slots on disk (W-disk: none held once the plans ended, the pool kept
// to the plans' concurrency) and how the plugin's heap and plan file grow with the number of steps.
// `npx tsx bench/parallel.ts` runs only these; `npm run bench` runs them among the others.
// Then, on each of the two servers, P1b and S8×12 once more with a slower model (STEP_LATENCY_MS a
// step's turn, as a fast real model answers): the user's rows. The default run keeps to a few rounds
// so the whole bench takes minutes; `-- --long` (or ORCA_BENCH_LONG=1) adds rounds and the 200-step plan.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { xdgDirs } from '../test/support/opencode-sandbox.js';
import { workspaceSupport } from '../src/workspace/support.js';
import { listWorktrees, openWorktree, prepareSlots, releasePlanSlots, slotsFolder, trimSlots } from '../src/workspace/worktrees.js';
import { heapAfterGc, runInProcess } from './inprocess.js';
import { runBench } from './lifecycle.js';
import { loadavg } from './machine.js';
import { memoryNow, watchMemory, type MemoryPeak } from './memory.js';
import { DAG_AGENTS, layeredDag } from './plans.js';
import { serverCpuMs, startBenchServer, stepPhases, type BenchServer, type PlanRun } from './server.js';
import { cpuPerStep, manyAtOnce, sideBySide, type ManyAtOnce, type SideBySide } from './side-by-side.js';
import { median, round } from './stats.js';

/** How to run the long scale runs (the 200-step plan, more rounds), which are off unless asked for. */
export const LONG_HINT = 'npm run bench -- --long';
/** `--long` on the command line or ORCA_BENCH_LONG=1. */
export const longRequested = () => process.argv.includes('--long') || /^(1|true|yes)$/i.test(process.env.ORCA_BENCH_LONG ?? '');

/** Rounds of each side-by-side run: the default run's, and the long run's. */
export interface Rounds {
  /** P1b in the shared tree (after one warm-up of each side: the DAG's first layer). */
  p1b: number;
  /** P1b with worktree slots (the same warm-up, which makes the slots and warms their instances). */
  worktree: number;
  /** P1c, the DAG at concurrency 1 (no warm-up: the chain of P2b warms the server). */
  concurrency1: number;
  /** 8 plans of 12 steps at once, alternating order, on each server (shared tree and worktree slots). */
  eight: number;
  /** The 200-step plan (long run only). */
  scale: number;
  /** P1b and S8×12 with the STEP_LATENCY_MS model, on each server (no warm-up: the servers and slots are warm by then; the slot server's bare side is the shared tree's). */
  slowModel: number;
}
export const DEFAULT_ROUNDS: Rounds = { p1b: 3, worktree: 3, concurrency1: 1, eight: 1, scale: 0, slowModel: 1 };
export const LONG_ROUNDS: Rounds = { p1b: 5, worktree: 5, concurrency1: 5, eight: 2, scale: 3, slowModel: 2 };
/** A step's turn in the user's rows (P1b-2s, S8x12-2s and their slot twins): a fast real model. */
export const STEP_LATENCY_MS = 2000;

/** P1b and S8×12 with the STEP_LATENCY_MS model on one server. */
export interface SlowModelRuns {
  p1b: SideBySide;
  eight: ManyAtOnce;
}

/** One slot of the bench project on disk, and what git takes to reset, make and remove one (measured from this process, no OpenCode). */
export interface SlotDisk {
  /** Slots on disk when measured. */
  slots: number;
  /** Bytes of one slot's files (symlinks as links), as `orca doctor` counts them. */
  fileBytes: number;
  /** `du -sk` of the slot folder: blocks really used, folders included. */
  duKiB: number;
  /** `du -sk` of git's record of it in the repository (`.git/worktrees/<name>`: its index, HEAD). */
  gitAdminKiB: number;
  /** Files git tracks in it. */
  files: number;
  /** openWorktree on a free slot: the user's tree snapshotted through Orca's index, the slot reset to it; ms, one per try. */
  resetMs: number[];
  /** A new slot made (prepareSlots: `git worktree add`), then removed (trimSlots), ms. */
  makeMs: number;
  removeMs: number;
}

/** A server's resident memory (bench/memory.ts). */
export interface ServerMemory {
  /** Right after the server started (its project's instance booted), MiB. */
  bootMiB: number;
  /** Over P1b: the warm-up and every round, both sides. */
  p1b: MemoryPeak;
  /** One second after P1b, at rest, MiB. */
  afterP1bMiB: number;
  /** Over S8×12. */
  eight: MemoryPeak;
}

export interface IsolationFigures {
  /** The plans' policy.workspace as their plan files say it, on each server. */
  workspaceOn: string;
  workspaceOff: string;
  /** P1b with worktree slots: Orca (approval → completed) against the bare driver. */
  p1bOn: SideBySide;
  /** S8×12 with worktree slots. */
  eightPlansOn: ManyAtOnce;
  /** (Orca median wall with slots − in the shared tree) / steps, ms (steps run 4 at a time: what each adds to the plan's wall). */
  p1bCostPerStepMs: number;
  /** The same from the median spans of 8 plans at once / 96 steps. */
  eightPlansCostPerStepMs: number;
  /** Orca with slots / Orca in the shared tree: P1b median walls; S8×12 median spans. */
  p1bOnOff: number;
  eightPlansOnOff: number;
  memory: {
    shared: ServerMemory;
    worktrees: ServerMemory;
    /** Slots on disk after P1b (each with its warm OpenCode instance). */
    slotsAfterP1b: number;
    /** (resident after P1b with slots − in the shared tree) / slots, MiB. */
    perSlotMiB: number;
    /** Peak with slots / peak in the shared tree over P1b: the server process; with its children. */
    peakRatio: number;
    peakWithChildrenRatio: number;
    /** The same over S8×12 (info). */
    eightPeakRatio: number;
  };
  /** Slots held at once and slots on disk at once, sampled every 250 ms during the worktree server's runs; distinct slots seen. */
  maxHeld: number;
  maxSlots: number;
  slotsSeen: number;
  /** Once the runs ended (after up to 10 s for the last plans to give theirs back): slots still held by a step, slots kept on disk (the pool: at most the plans' concurrency). */
  left: { held: number; slots: number; pool: number };
  /** OpenCode's own snapshot repositories (`$XDG_DATA_HOME/opencode/snapshot/<project>/<directory hash>`): one per directory a session worked in with snapshots on; a slot's instance has them off. */
  opencodeSnapshots: { count: number; kiB: number };
  disk?: SlotDisk;
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
  /** The user's rows: P1b and S8×12 with a step's turn at STEP_LATENCY_MS (the orca and planner turns at latencyMs), on each server. */
  slowModel: { stepLatencyMs: number; shared: SlowModelRuns; worktrees: SlowModelRuns };
  /** 8 plans of 12 steps at once, shared tree. */
  eightPlans: ManyAtOnce;
  isolation: IsolationFigures;
  growth: Array<{ steps: number; heapBytes: number; planFileBytes: number; writes: number }>;
  /** Seconds each part took, and the load average (1 min) when it ended. */
  timings: Array<{ name: string; ms: number; load: number }>;
}

/** More work on a server while it is up (run.ts measures P1, P2b, P3 and W1 on these servers). */
export interface ServerHooks {
  /** The shared-tree server at concurrency 4 and the bench latency, after P1b and its memory. */
  shared?: (bench: BenchServer, p1b: SideBySide) => Promise<void>;
  /** The shared-tree server at concurrency 1, before P1c (it warms the server); leave the latency as found. */
  concurrency1?: (bench: BenchServer) => Promise<void>;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
const mib = (x: number) => `${f(x, 0)} MiB`;
const SHARED_TREE = { isolation: { mode: 'none' } };
const settle = () => new Promise((r) => setTimeout(r, 1000));

export async function measureParallel(
  say: (s?: string) => void,
  { latencyMs = 300, long = false, rounds = long ? LONG_ROUNDS : DEFAULT_ROUNDS, hooks = {} }: { latencyMs?: number; long?: boolean; rounds?: Rounds; hooks?: ServerHooks } = {},
): Promise<ParallelFigures> {
  const dag = layeredDag(3, 4);
  const big = layeredDag(25, 8);
  const agents = `every step a file-changing specialist (${DAG_AGENTS.join(', ')} in turn, review gate off; it answers without changing a file)`;
  const timings: ParallelFigures['timings'] = [];
  const timed = async <T>(name: string, part: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await part();
    } finally {
      const load = loadavg()[0];
      timings.push({ name, ms: performance.now() - t0, load });
      say(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s; load ${load.toFixed(1)})`);
    }
  };
  const memoryLine = (what: string, m: MemoryPeak) =>
    `${what}: peak ${mib(m.peakMiB)} (the opencode process, VmHWM${m.fromWindowStart ? ' since the part began' : ' since its start'}), ${mib(m.peakWithChildrenMiB)} with the processes it started (sampled every ${m.everyMs} ms, ${m.samples} samples), ${mib(m.endMiB)} at its end`;

  /** P1b and S8×12 again on a warm server, a step's turn at STEP_LATENCY_MS (the orca and planner turns, outside what is measured, at latencyMs). */
  const slowModel = async (bench: BenchServer, where: string, bareFrom?: SlowModelRuns): Promise<SlowModelRuns> => {
    say(`P1b and S8×12 with a step's turn at ${STEP_LATENCY_MS} ms (${where}; the orca and planner turns at ${latencyMs} ms), ${rounds.slowModel} round(s) each, no warm-up${bareFrom ? "; the bare driver's runs are the shared tree's" : ''}`);
    bench.setLatency(STEP_LATENCY_MS, { planningMs: latencyMs });
    try {
      const p1bSlow = await sideBySide(bench, dag, 4, rounds.slowModel, `p1b-2s ${where}`, { warmUp: false, ...(bareFrom ? { bareFrom: bareFrom.p1b } : {}) });
      say(`  P1b-2s: Orca ${ms(p1bSlow.orcaMs)} ms; bare ${ms(p1bSlow.bareMs)} ms → median ${f(p1bSlow.ratio, 3)}`);
      const eightSlow = await manyAtOnce(bench, dag, 8, 4, rounds.slowModel, bareFrom ? { bareFrom: bareFrom.eight } : {});
      say(`  S8×12-2s: Orca first approval → last end ${ms(eightSlow.orcaSpanMs)} ms; bare ${ms(eightSlow.bareSpanMs)} ms → median ${f(eightSlow.ratio, 3)}; per plan median ${f(median(eightSlow.orcaPerPlanMs), 0)} vs ${f(median(eightSlow.barePerPlanMs), 0)} ms → ${f(eightSlow.perPlanRatio, 3)}`);
      return { p1b: p1bSlow, eight: eightSlow };
    } finally {
      bench.setLatency(latencyMs);
    }
  };

  // --- the shared tree, concurrency 4
  say(`P1b: the 12-step DAG (3 layers × 4; ${agents}) at concurrency 4, model latency ${latencyMs} ms, steps in the shared tree (isolation none, as the bare driver works): Orca (approval → completed) and the bare driver (session.create + session.prompt per step, same prompts, order and concurrency), ${rounds.p1b} alternating rounds after one warm-up each (its first layer)`);
  const s4 = await startBenchServer({ concurrency: 4, latencyMs, pluginOptions: SHARED_TREE });
  let p1b: SideBySide;
  let eightPlans: ManyAtOnce;
  let workspaceOff: string;
  let memShared: ServerMemory;
  let slowShared: SlowModelRuns;
  try {
    const bootMiB = memoryNow(s4.pid).rssMiB;
    const p1bMemory = watchMemory(s4.pid);
    p1b = await timed('P1b, shared tree', async () => {
      const cpu0 = serverCpuMs(s4.server.projectDir);
      const run = await sideBySide(s4, dag, 4, rounds.p1b, 'p1b', { warmUp: layeredDag(1, 4) });
      say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms; Orca / bare per round ${run.ratios.map((r) => f(r, 3)).join(', ')} → median ${f(run.ratio, 3)} (opencode CPU for all of it ${f(serverCpuMs(s4.server.projectDir) - cpu0, 0)} ms)`);
      say(`  ${phaseLine(run, dag, latencyMs)}`);
      say(`  ${cpuLine(run, dag.steps.length)}`);
      return run;
    });
    const p1bPeak = p1bMemory.stop();
    await settle();
    const afterP1bMiB = memoryNow(s4.pid).rssMiB;
    say(`  memory, shared tree: ${mib(bootMiB)} after start; ${memoryLine('P1b', p1bPeak)}; ${mib(afterP1bMiB)} at rest after it`);
    workspaceOff = planWorkspace(s4, p1b.orcaRuns.at(-1)!);
    if (hooks.shared) await timed('P1 bare prompts, shared tree', () => hooks.shared!(s4, p1b));
    say(`Scale: 8 plans of 12 steps at once on the same server (concurrency 4 each, shared tree), ${rounds.eight} round(s)${rounds.eight > 1 ? ' of alternating order' : ' (Orca first)'}`);
    const eightMemory = watchMemory(s4.pid);
    eightPlans = await timed('S8×12, shared tree', async () => {
      const run = await manyAtOnce(s4, dag, 8, 4, rounds.eight);
      say(`  Orca first approval → last end ${ms(run.orcaSpanMs)} ms; bare ${ms(run.bareSpanMs)} ms → per round ${run.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(run.ratio, 3)}; per plan median ${f(median(run.orcaPerPlanMs), 0)} vs ${f(median(run.barePerPlanMs), 0)} ms → ${f(run.perPlanRatio, 3)}`);
      return run;
    });
    const eightPeak = eightMemory.stop();
    say(`  memory, shared tree: ${memoryLine('S8×12', eightPeak)}`);
    memShared = { bootMiB, p1b: p1bPeak, afterP1bMiB, eight: eightPeak };
    slowShared = await timed('P1b-2s, S8×12-2s, shared tree', () => slowModel(s4, 'shared tree'));
  } finally {
    await s4.stop();
  }

  // --- worktree slots (the default), concurrency 4: the same work
  say(`P1b and S8×12 again with worktree slots (isolation "worktree", the default in a git repository; a server of its own doing the same work: the same warm-up, ${rounds.worktree} round(s) of P1b, ${rounds.eight} of S8×12)`);
  const s4on = await startBenchServer({ concurrency: 4, latencyMs });
  let p1bOn: SideBySide;
  let eightPlansOn: ManyAtOnce;
  let watched: ReturnType<ReturnType<typeof watchSlots>['stop']>;
  let left: IsolationFigures['left'];
  let snapshots: { count: number; kiB: number };
  let disk: SlotDisk | undefined;
  let diskError: string | undefined;
  let workspaceOn: string;
  let memOn: ServerMemory;
  let slotsAfterP1b: number;
  let slowOn: SlowModelRuns;
  try {
    const bootMiB = memoryNow(s4on.pid).rssMiB;
    const watcher = watchSlots(s4on);
    try {
      const p1bMemory = watchMemory(s4on.pid);
      p1bOn = await timed('P1b, worktree slots', async () => {
        const run = await sideBySide(s4on, dag, 4, rounds.worktree, 'p1b-worktree', { warmUp: layeredDag(1, 4) });
        say(`  Orca ${ms(run.orcaMs)} ms; bare ${ms(run.bareMs)} ms → per round ${run.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(run.ratio, 3)}`);
        say(`  ${phaseLine(run, dag, latencyMs)}`);
        say(`  ${cpuLine(run, dag.steps.length)}`);
        return run;
      });
      const p1bPeak = p1bMemory.stop();
      await settle();
      const afterP1bMiB = memoryNow(s4on.pid).rssMiB;
      slotsAfterP1b = slotsOnDisk(s4on).slots;
      say(`  memory, worktree slots: ${mib(bootMiB)} after start; ${memoryLine('P1b', p1bPeak)}; ${mib(afterP1bMiB)} at rest after it, with ${slotsAfterP1b} slots (each a warm OpenCode instance)`);
      const eightMemory = watchMemory(s4on.pid);
      eightPlansOn = await timed('S8×12, worktree slots', async () => {
        const run = await manyAtOnce(s4on, dag, 8, 4, rounds.eight);
        say(`  S8×12 with worktree slots: Orca first approval → last end ${ms(run.orcaSpanMs)} ms; bare ${ms(run.bareSpanMs)} ms → per round ${run.ratios.map((r) => f(r, 3)).join(', ')}, median ${f(run.ratio, 3)}; per plan median ${f(median(run.orcaPerPlanMs), 0)} vs ${f(median(run.barePerPlanMs), 0)} ms → ${f(run.perPlanRatio, 3)}`);
        say(`  ${phaseLine({ orcaRuns: run.orcaRuns, bareRuns: [] }, dag, latencyMs)}`);
        return run;
      });
      const eightPeak = eightMemory.stop();
      say(`  memory, worktree slots: ${memoryLine('S8×12', eightPeak)}`);
      memOn = { bootMiB, p1b: p1bPeak, afterP1bMiB, eight: eightPeak };
      slowOn = await timed('P1b-2s, S8×12-2s, worktree slots', () => slowModel(s4on, 'worktree slots', slowShared));
    } finally {
      watched = watcher.stop();
    }
    workspaceOn = planWorkspace(s4on, p1bOn.orcaRuns.at(-1)!);
    left = await slotsLeft(s4on, 4);
    snapshots = opencodeSnapshots(s4on);
    say(`  slots: plans ran with workspace "${workspaceOn}"; up to ${watched.maxHeld} held at once and ${watched.maxSlots} on disk at once (sampled every 250 ms; ${watched.seen} distinct slots seen); after the runs ${left.held} held (expected 0), ${left.slots} kept on disk (the pool: at most ${left.pool})`);
    say(`  OpenCode's file-snapshot repositories in its data folder: ${snapshots.count} (one per directory a session worked in with snapshots on: the project; a slot's instance has them off), ${snapshots.kiB} KiB in all`);
    try {
      disk = await measureSlotDisk(s4on);
      say(`  one slot of the bench project (${disk.slots} on disk): ${disk.files} files, ${f(disk.fileBytes / 1024, 1)} KiB of files, ${disk.duKiB} KiB on disk (du), plus ${disk.gitAdminKiB} KiB in .git/worktrees/; from this process: reset of a free slot to the user's tree ${ms(disk.resetMs)} ms, a new slot made ${f(disk.makeMs, 0)} ms, removed ${f(disk.removeMs, 0)} ms`);
    } catch (error) {
      diskError = error instanceof Error ? error.message : String(error);
      say(`  disk per slot: not measured (${diskError})`);
    }
  } finally {
    await s4on.stop();
  }
  const cost = (on: number, off: number, steps: number) => (on - off) / steps;
  const isolation: IsolationFigures = {
    workspaceOn,
    workspaceOff,
    p1bOn,
    eightPlansOn,
    p1bCostPerStepMs: cost(median(p1bOn.orcaMs), median(p1b.orcaMs), dag.steps.length),
    p1bOnOff: median(p1bOn.orcaMs) / median(p1b.orcaMs),
    eightPlansCostPerStepMs: cost(median(eightPlansOn.orcaSpanMs), median(eightPlans.orcaSpanMs), 8 * dag.steps.length),
    eightPlansOnOff: median(eightPlansOn.orcaSpanMs) / median(eightPlans.orcaSpanMs),
    memory: {
      shared: memShared,
      worktrees: memOn,
      slotsAfterP1b,
      perSlotMiB: (memOn.afterP1bMiB - memShared.afterP1bMiB) / slotsAfterP1b,
      peakRatio: memOn.p1b.peakMiB / memShared.p1b.peakMiB,
      peakWithChildrenRatio: memOn.p1b.peakWithChildrenMiB / memShared.p1b.peakWithChildrenMiB,
      eightPeakRatio: memOn.eight.peakMiB / memShared.eight.peakMiB,
    },
    maxHeld: watched.maxHeld,
    maxSlots: watched.maxSlots,
    slotsSeen: watched.seen,
    left,
    opencodeSnapshots: snapshots,
    ...(disk ? { disk } : {}),
    ...(diskError ? { diskError } : {}),
  };
  const mem = isolation.memory;
  const row = (cells: string[]) => say(`  ${cells[0]!.padEnd(7)} ${cells[1]!.padEnd(34)} ${cells[2]!.padEnd(34)} ${cells[3]}`);
  say(`Isolation side by side (${agents}; workspace "${workspaceOn}" vs "${workspaceOff}"):`);
  row(['', 'worktree slots: Orca / bare', 'shared tree (none): Orca / bare', 'slot reset + measure + landing per step']);
  row(['P1b', `${f(p1bOn.ratio, 3)} (${f(median(p1bOn.orcaMs), 0)} / ${f(median(p1bOn.bareMs), 0)} ms)`, `${f(p1b.ratio, 3)} (${f(median(p1b.orcaMs), 0)} / ${f(median(p1b.bareMs), 0)} ms)`, `(${f(median(p1bOn.orcaMs), 0)} − ${f(median(p1b.orcaMs), 0)}) / ${dag.steps.length} = ${f(isolation.p1bCostPerStepMs, 0)} ms`]);
  row(['S8×12', `${f(eightPlansOn.ratio, 3)} (${f(median(eightPlansOn.orcaSpanMs), 0)} / ${f(median(eightPlansOn.bareSpanMs), 0)} ms)`, `${f(eightPlans.ratio, 3)} (${f(median(eightPlans.orcaSpanMs), 0)} / ${f(median(eightPlans.bareSpanMs), 0)} ms)`, `(${f(median(eightPlansOn.orcaSpanMs), 0)} − ${f(median(eightPlans.orcaSpanMs), 0)}) / ${8 * dag.steps.length} = ${f(isolation.eightPlansCostPerStepMs, 0)} ms`]);
  row(['memory', `P1b peak ${mib(memOn.p1b.peakMiB)}, S8×12 ${mib(memOn.eight.peakMiB)}`, `P1b peak ${mib(memShared.p1b.peakMiB)}, S8×12 ${mib(memShared.eight.peakMiB)}`, `P1b ${f(mem.peakRatio, 3)}× (with children ${f(mem.peakWithChildrenRatio, 3)}×), S8×12 ${f(mem.eightPeakRatio, 3)}×; per warm slot (${f(memOn.afterP1bMiB, 0)} − ${f(memShared.afterP1bMiB, 0)}) / ${slotsAfterP1b} = ${f(mem.perSlotMiB, 1)} MiB`]);
  say(`  Orca with slots / in the shared tree: P1b ${f(isolation.p1bOnOff, 3)}, S8×12 ${f(isolation.eightPlansOnOff, 3)} (steps run 4 at a time: a wall-time difference / steps is what each slot adds to the plan's wall, not its own duration)`);

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

  return { latencyMs, rounds, p1b, p1bConcurrency1, p1c, ...(scale200 ? { scale200 } : {}), slowModel: { stepLatencyMs: STEP_LATENCY_MS, shared: slowShared, worktrees: slowOn }, eightPlans, isolation, growth, timings };
}

/** The server's CPU per step that Orca adds over the bare driver (side-by-side.ts, cpuPerStep). */
function cpuLine(run: SideBySide, steps: number): string {
  const span = cpuPerStep(run.cpu, steps);
  const whole = cpuPerStep(run.cpu, steps, 'orcaWhole');
  return `server CPU Orca adds per step (approval → plan end, against the bare run; its process and the git it ran): rounds ${span.rounds.map((x) => f(x, 0)).join(', ')} → median ${f(span.totalMs, 0)} ms, of which git ${f(span.childrenMs, 0)}; with the orca and planner turns ${f(whole.totalMs, 0)} ms`;
}

/** Per step medians of Orca's phases against the bare driver's (and, with slots, the slot's reset, git's measure and the landing). */
function phaseLine(run: Pick<SideBySide, 'orcaRuns' | 'bareRuns'>, dag: ReturnType<typeof layeredDag>, latencyMs: number): string {
  const bareMed = (k: 'createMs' | 'preModelMs' | 'postModelMs') => (run.bareRuns.length ? f(median(run.bareRuns.flatMap((r) => r[k])), 0) : '–');
  const phases = run.orcaRuns.flatMap((r: PlanRun) => stepPhases(r, dag, latencyMs));
  const orcaMed = (k: 'open' | 'preModel' | 'postModel' | 'workspace' | 'measure' | 'merge' | 'schedule') => f(median(phases.map((p) => p[k])), 0);
  return `per step, median ms: session.create bare ${bareMed('createMs')} / Orca ${orcaMed('open')} (opening_session → running); prompt sent → model request bare ${bareMed('preModelMs')} / Orca ${orcaMed('preModel')} (running → model request); model reply → turn read bare ${bareMed('postModelMs')} / Orca ${orcaMed('postModel')} (→ step completed, of which measure ${orcaMed('measure')}, landing ${orcaMed('merge')}); before the step: workspace ${orcaMed('workspace')} (slot reset, or the shared tree's snapshot), ready → started ${orcaMed('schedule')} (workspace included)`;
}

/** The slots folders of the bench server's sandbox: `$XDG_DATA_HOME/opencode-orca/worktrees/<12 hex>/slots`. */
function slotFolders(bench: BenchServer): string[] {
  const root = join(xdgDirs(bench.server.homeDir).XDG_DATA_HOME, 'opencode-orca', 'worktrees');
  try {
    return readdirSync(root).map((repo) => join(root, repo, 'slots'));
  } catch {
    return [];
  }
}

/** Slots made (`<n>/` with its `.git`) and held (`<n>.claim.json`) now. */
function slotsOnDisk(bench: BenchServer): { slots: number; held: number; names: string[] } {
  let slots = 0;
  let held = 0;
  const names: string[] = [];
  for (const folder of slotFolders(bench)) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of entries) {
      if (/^\d+$/.test(name) && readdirSafe(join(folder, name)).includes('.git')) {
        slots++;
        names.push(join(folder, name));
      } else if (/^\d+\.claim\.json$/.test(name)) held++;
    }
  }
  return { slots, held, names };
}

const readdirSafe = (path: string) => {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
};

/** Samples the slots every `everyMs` (two readdirs per slot: nothing next to a turn). */
function watchSlots(bench: BenchServer, everyMs = 250) {
  let maxHeld = 0;
  let maxSlots = 0;
  const seen = new Set<string>();
  const sample = () => {
    const now = slotsOnDisk(bench);
    for (const d of now.names) seen.add(d);
    maxHeld = Math.max(maxHeld, now.held);
    maxSlots = Math.max(maxSlots, now.slots);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { maxHeld, maxSlots, seen: seen.size };
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

/** Slots still held, and kept, once the runs ended: waits up to `waitMs` for the last plans to give theirs back and the pool to be trimmed. */
async function slotsLeft(bench: BenchServer, pool: number, waitMs = 10_000): Promise<IsolationFigures['left']> {
  const until = performance.now() + waitMs;
  let now = slotsOnDisk(bench);
  while ((now.held > 0 || now.slots > pool) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    now = slotsOnDisk(bench);
  }
  return { held: now.held, slots: now.slots, pool };
}

/**
 * One slot of the bench project on disk, and git's share of a step's slot from this process (the
 * server idle): a free slot reset to the user's tree as a step's start does (openWorktree: Orca's
 * index of the user's tree, `git reset --hard`, `git clean`), 3 times, then given back; one slot
 * made (prepareSlots) and removed (trimSlots), so the pool is as the server left it.
 */
async function measureSlotDisk(bench: BenchServer): Promise<SlotDisk> {
  const support = await workspaceSupport(bench.server.projectDir, { dataHome: xdgDirs(bench.server.homeDir).XDG_DATA_HOME });
  if (!support.ok) throw new Error(support.reason);
  const du = (path: string) => Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split(/\s/)[0]);
  const slots = await listWorktrees(support);
  const one = slots.find((s) => !s.claim) ?? slots[0];
  if (!one) throw new Error(`no slot in ${slotsFolder(support)}`);
  const gitDir = execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: one.path, encoding: 'utf8' }).trim();
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: one.path, encoding: 'utf8' }).split('\0').filter(Boolean).length;
  const measured = { slots: slots.length, fileBytes: one.bytes, duKiB: du(one.path), gitAdminKiB: du(gitDir), files };
  const planId = 'plan_01BENCHD1SK00000000000000';
  const resetMs: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t0 = performance.now();
    await openWorktree(support, { planId, stepId: 'size', attempt, include: [] });
    resetMs.push(performance.now() - t0);
  }
  await releasePlanSlots(support, planId);
  const before = (await listWorktrees(support)).length;
  const t1 = performance.now();
  await prepareSlots(support, before + 1, { include: [] });
  const makeMs = performance.now() - t1;
  const t2 = performance.now();
  await trimSlots(support, before);
  const removeMs = performance.now() - t2;
  return { ...measured, resetMs, makeMs, removeMs };
}

/** results.json's part: figures without the per-run details. */
export function parallelResults(p: ParallelFigures) {
  const many = (m: ManyAtOnce) => ({ ...m, orcaRuns: undefined, ratio: round(m.ratio, 3), ratios: m.ratios.map((x) => round(x, 3)), perPlanRatio: round(m.perPlanRatio, 3) });
  const side = (s: SideBySide) => ({ orcaMs: s.orcaMs.map((x) => round(x, 0)), bareMs: s.bareMs.map((x) => round(x, 0)), ratios: s.ratios.map((x) => round(x, 3)), ratio: round(s.ratio, 3), cpu: s.cpu });
  const slow = (r: SlowModelRuns) => ({ p1b: side(r.p1b), eight: many(r.eight) });
  const iso = p.isolation;
  return {
    latencyMs: p.latencyMs,
    rounds: p.rounds,
    p1b: side(p.p1b),
    p1bConcurrency1: side(p.p1bConcurrency1),
    p1c: { orca: round(p.p1c.orca, 2), bare: round(p.p1c.bare, 2), ideal: p.p1c.ideal },
    scale200: p.scale200 ? { ...side(p.scale200), planFileBytes: p.scale200.planFileBytes } : { skipped: `not run (${LONG_HINT})` },
    slowModel: { stepLatencyMs: p.slowModel.stepLatencyMs, shared: slow(p.slowModel.shared), worktrees: slow(p.slowModel.worktrees) },
    eightPlans: many(p.eightPlans),
    isolation: {
      ...iso,
      p1bOn: side(iso.p1bOn),
      eightPlansOn: many(iso.eightPlansOn),
      p1bCostPerStepMs: round(iso.p1bCostPerStepMs, 1),
      eightPlansCostPerStepMs: round(iso.eightPlansCostPerStepMs, 1),
      p1bOnOff: round(iso.p1bOnOff, 3),
      eightPlansOnOff: round(iso.eightPlansOnOff, 3),
      disk: iso.disk ? { ...iso.disk, resetMs: iso.disk.resetMs.map((x) => round(x, 0)), makeMs: round(iso.disk.makeMs, 0), removeMs: round(iso.disk.removeMs, 0) } : undefined,
    },
    growth: p.growth,
    timingsS: p.timings.map((t) => ({ name: t.name, s: round(t.ms / 1000, 1), load: t.load })),
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  await runBench(async () => {
    const long = longRequested();
    const base = long ? LONG_ROUNDS : DEFAULT_ROUNDS;
    const env = (name: string, fallback: number) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
    const rounds: Rounds = {
      p1b: env('ROUNDS', base.p1b),
      worktree: env('WORKTREE_ROUNDS', base.worktree),
      concurrency1: env('C1_ROUNDS', base.concurrency1),
      eight: env('EIGHT_ROUNDS', base.eight),
      scale: env('SCALE_ROUNDS', base.scale),
      slowModel: env('SLOW_ROUNDS', base.slowModel),
    };
    const t0 = performance.now();
    const figures = await measureParallel((s = '') => console.log(s), { rounds, long });
    console.log(JSON.stringify(parallelResults(figures), null, 2));
    console.log(`total wall time ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });
}
