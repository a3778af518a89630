// P2 (in process) and P3 (in process): a plan run through PlanHost with ports that answer at once,
// so every millisecond measured is orchestration: machine transitions, inspection, journal,
// plan-file persistence (atomic write + fsync), index updates, context threading, prompt building.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PlanHost } from '../src/host/plan-host.js';
import { drivePlan } from '../src/host/drive.js';
import type { PlanPorts } from '../src/machines/ports.js';
import { PlanStore } from '../src/persistence/plan-store.js';
import { stepPrompt } from '../src/prompts/step-prompt.js';
import { watchForToasts } from '../src/notices/toasts.js';
import type { PlannerOutput, SpecialistResult } from '../src/machines/types.js';
import type { Turn } from '../src/machines/turn.js';
import { ZERO_USAGE } from '../src/machines/usage.js';
import { stepResult, type BenchPlan } from './plans.js';

/** The given ports; any other port the machines call fails the run, saying which. */
export const benchPorts = (given: Partial<PlanPorts>): PlanPorts =>
  new Proxy(given as PlanPorts, {
    get: (target, name) =>
      target[name as keyof PlanPorts] ?? (() => Promise.reject(new Error(`port ${String(name)} is not used in this benchmark`))),
  });

export interface InProcessRun {
  /** ms per step: approval → first dispatch, then dispatch of step i → dispatch of step i+1. */
  perStepMs: number[];
  /** Last dispatch → the plan completed (and its file written). */
  tailMs: number;
  wallMs: number;
  /** The prompt text each step's specialist was given (stepPrompt of its threaded context). */
  prompts: Map<string, string>;
  planFileBytes: number;
  planId: string;
  /** Plan-file writes from approval to the end. */
  saves: number;
  /** With `measureHeap`: live JS heap after a full GC with the finished plan still hosted, minus before the host was made. */
  heapBytes?: number;
}

export interface InProcessOptions {
  concurrency?: number;
  /** A project dir to use (e.g. one holding thousands of plans); default a fresh temp dir. */
  projectDir?: string;
  /** Load the index from disk first and watch it for toasts, as the plugin does. */
  likePlugin?: boolean;
  /**
   * Let each port answer after one macrotask (setImmediate) instead of at once, as real I/O does:
   * the plan then persists each state it passes through (session opened, dispatched, completed)
   * instead of one coalesced write per step.
   */
  yieldIo?: boolean;
  /** Measure the heap the host holds for the plan (full GCs around the run). */
  measureHeap?: boolean;
}

/** A full GC, then the heap in use (bytes). */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function runInProcess(plan: BenchPlan, options: InProcessOptions = {}): Promise<InProcessRun> {
  const projectDir = options.projectDir ?? mkdtempSync(join(tmpdir(), 'orca-bench-inproc-'));
  const store = PlanStore.forProject(projectDir);
  const dispatches: number[] = [];
  const prompts = new Map<string, string>();
  const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));
  const ports = benchPorts({
    // A watch that never fires (no step idles here) and no hooks: the quality gate is off below.
    watchIdle: () => new Promise<never>(() => {}),
    runStepHooks: async () => ({ failures: [] }),
    openPlannerSession: async () => ({ sessionId: 'ses_bench_planner' }),
    consultPlanner: async () => ({ value: plan as PlannerOutput, usage: { ...ZERO_USAGE, turns: 1 } }),
    openSpecialistSession: options.yieldIo
      ? async ({ stepId, attempt }) => {
          await macrotask();
          return { sessionId: `ses_bench_${stepId}_${attempt}` };
        }
      : async ({ stepId, attempt }) => ({ sessionId: `ses_bench_${stepId}_${attempt}` }),
    // What opencodePorts.runSpecialist does before it reaches OpenCode: build the prompt.
    runSpecialist: async ({ thread }): Promise<Turn<SpecialistResult>> => {
      dispatches.push(performance.now());
      const prompt = stepPrompt(thread);
      if (!options.measureHeap) prompts.set(thread.step.id, prompt);
      if (options.yieldIo) await macrotask();
      return { value: stepResult(thread.step.id), usage: { ...ZERO_USAGE, turns: 1 } };
    },
  });
  let saves = 0;
  const save = store.save.bind(store);
  store.save = (file, options) => {
    saves++;
    return save(file, options);
  };
  // Writes behind the dispatch path (plan-host.ts persist): counted when they reach the disk.
  const saveCheckedAsync = store.saveCheckedAsync.bind(store);
  store.saveCheckedAsync = async (file, commit, text) => {
    const landed = await saveCheckedAsync(file, commit, text);
    if (landed) saves++;
    return landed;
  };
  const heapBefore = options.measureHeap ? heapAfterGc() : 0;
  // No reviewer turns: a step is one specialist turn, as in the server runs (bench/server.ts); and no
  // verifying turn once the steps landed, as the server runs have none (test/support/opencode-server.ts
  // pins `verification.turn` off).
  const host = new PlanHost({ store, ports, policy: { review_agents: [], max_dispatches: 10_000, verify_turn: false }, ...(options.concurrency ? { concurrency: options.concurrency } : {}) });
  let stopToasts = () => {};
  if (options.likePlugin) {
    host.loadIndex();
    stopToasts = watchForToasts(host, () => {});
  }
  try {
    const planId = host.create({ message: 'benchmark request', callerSessionId: 'ses_bench_caller' }).getSnapshot().context.plan_id;
    let approvedAt = 0;
    const controller = new AbortController();
    const result = await drivePlan(
      host,
      planId,
      async (gate) => {
        if (gate.kind !== 'approval') return { waiting: `unexpected gate ${gate.kind}` };
        approvedAt = performance.now();
        saves = 0;
        return { event: { type: 'approval.approve', channel: 'auto', at: new Date().toISOString() } };
      },
      controller.signal,
    );
    // drivePlan resolves on the snapshot; the file is written in the microtask after it.
    await new Promise((resolve) => setImmediate(resolve));
    const end = performance.now();
    if (result.kind !== 'outcome' || result.tag !== 'outcome.completed') throw new Error(`in-process plan ended ${JSON.stringify(result.kind === 'outcome' ? result.tag : result.reason)}`);
    const perStepMs = dispatches.map((t, i) => t - (i === 0 ? approvedAt : dispatches[i - 1]!));
    const planFileBytes = Buffer.byteLength(JSON.stringify(store.load(planId), null, 2));
    const heapBytes = options.measureHeap ? heapAfterGc() - heapBefore : undefined;
    return { perStepMs, tailMs: end - dispatches.at(-1)!, wallMs: end - approvedAt, prompts, planFileBytes, planId, saves, ...(heapBytes !== undefined ? { heapBytes } : {}) };
  } finally {
    stopToasts();
    await host.dispose();
    if (!options.projectDir) rmSync(projectDir, { recursive: true, force: true });
  }
}
