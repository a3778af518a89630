// P4: a project with thousands of plan files. Each is a clone of one real plan file (a completed
// plan written by PlanHost itself) with a fresh plan id from newPlanId(), so every file validates.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PlanHost } from '../src/host/plan-host.js';
import { PlanStore, plansDir } from '../src/persistence/plan-store.js';
import { newPlanId } from '../src/persistence/plan-id.js';
import { listPlansTool } from '../src/tools/list-plans.js';
import type { Orca } from '../src/composition-root.js';
import { benchPorts, runInProcess } from './inprocess.js';
import type { BenchPlan } from './plans.js';
import { median } from './stats.js';

const noPorts = benchPorts({});

/** Writes `count` valid plan files (clones of a completed run of `template`) into a new temp project. */
export function generateProject(template: BenchPlan, count: number, templateFile: string) {
  const projectDir = mkdtempSync(join(tmpdir(), 'orca-bench-plans-'));
  const dir = plansDir(projectDir);
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(templateFile, 'utf8');
  const oldId = /"plan_id": "(plan_[0-9A-Z]{26})"/.exec(text)![1]!;
  const parts = text.split(oldId);
  const base = Date.now() - count * 1000;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const id = newPlanId(base + i * 1000);
    writeFileSync(join(dir, `${id}.json`), parts.join(id));
  }
  return { projectDir, writeMs: performance.now() - t0, fileBytes: Buffer.byteLength(text), idOccurrences: parts.length - 1 };
}

export async function templatePlanFile(template: BenchPlan): Promise<{ file: string; cleanup: () => void }> {
  const projectDir = mkdtempSync(join(tmpdir(), 'orca-bench-template-'));
  const run = await runInProcess(template, { projectDir });
  return { file: join(plansDir(projectDir), `${run.planId}.json`), cleanup: () => rmSync(projectDir, { recursive: true, force: true }) };
}

export interface P4Result {
  plans: number;
  fileBytes: number;
  generateMs: number;
  /** new PlanHost + loadIndex with no summary cache yet (first start, or the cache deleted): it reads every file and writes the cache. */
  coldLoadIndexMs: number;
  /** new PlanHost + loadIndex, i.e. what createOrca does with the disk before the plugin answers (the cache in place). */
  loadIndexMs: number[];
  /** new PlanHost + loadIndex after `changedPlans` plan files changed since the cache was written. */
  changedLoadIndexMs: number;
  changedPlans: number;
  /** The whole plugin function from dist (OrcaPlugin) with a stub OpenCode client. */
  pluginStartMs: number[];
  /** orca_list_plans execute() with no arguments (the newest page) on the loaded index. */
  listMs: number[];
  listOutputBytes: number;
  listedPlans: number;
  /** The `more` line of that reply: how many plans it left out and how to get them. */
  listMore: string | undefined;
  /** orca_list_plans execute() of the oldest page ({ offset: plans - 50 }). */
  listLastPageMs: number[];
}

export async function measureManyPlans(template: BenchPlan, count: number, repetitions = 3): Promise<P4Result> {
  const tpl = await templatePlanFile(template);
  const gen = generateProject(template, count, tpl.file);
  tpl.cleanup();
  const store = PlanStore.forProject(gen.projectDir);
  try {
    let host!: PlanHost;
    const start = () => {
      const t0 = performance.now();
      host = new PlanHost({ store, ports: noPorts });
      const problems = host.loadIndex();
      const ms = performance.now() - t0;
      if (problems.length > 0) throw new Error(`${problems.length} generated plan files were quarantined: ${problems[0]!.message}`);
      if (Object.keys(host.index.getSnapshot().context.plans).length !== count) throw new Error('the index lost plans');
      host.dispose();
      return ms;
    };
    const coldLoadIndexMs = start();
    // File mtimes tick with a coarse clock: a plan file as new as the cache is read again at the
    // next start (summary-cache.ts). A real start comes later than a benchmark loop: let one tick pass.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const loadIndexMs: number[] = [];
    for (let i = 0; i < repetitions; i++) loadIndexMs.push(start());
    const changedPlans = Math.round(count / 100);
    const ids = store.listIds();
    const later = new Date();
    for (const id of ids.slice(-changedPlans)) utimesSync(store.pathOf(id), later, later);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const changedLoadIndexMs = start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    start(); // back to every summary cached, for the plugin starts below

    const tool = listPlansTool({ host } as unknown as Orca);
    const list = async (args: Record<string, number>) => (await tool.execute(args as never, {} as never)) as string;
    const listMs: number[] = [];
    const listLastPageMs: number[] = [];
    let output = '';
    for (let i = 0; i < Math.max(5, repetitions * 3); i++) {
      const t0 = performance.now();
      output = await list({});
      listMs.push(performance.now() - t0);
      const t1 = performance.now();
      await list({ offset: count - 50 });
      listLastPageMs.push(performance.now() - t1);
    }
    const reply = JSON.parse(output) as { plans: unknown[]; more?: string };

    const { OrcaPlugin } = (await import(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href)) as typeof import('../src/index.js');
    const stubClient = {
      app: { log: async () => ({}) },
      tui: { showToast: async () => ({}) },
      session: {},
    };
    const pluginStartMs: number[] = [];
    for (let i = 0; i < repetitions; i++) {
      const t0 = performance.now();
      const hooks = await OrcaPlugin({ client: stubClient, directory: gen.projectDir, worktree: gen.projectDir } as never, {});
      pluginStartMs.push(performance.now() - t0);
      await hooks.dispose?.();
    }
    return {
      plans: count,
      fileBytes: gen.fileBytes,
      generateMs: gen.writeMs,
      coldLoadIndexMs,
      loadIndexMs,
      changedLoadIndexMs,
      changedPlans,
      pluginStartMs,
      listMs,
      listOutputBytes: Buffer.byteLength(output),
      listedPlans: reply.plans.length,
      listMore: reply.more,
      listLastPageMs,
    };
  } finally {
    rmSync(gen.projectDir, { recursive: true, force: true });
  }
}

export const summarizeP4 = (r: P4Result) => ({
  loadIndexMedianMs: median(r.loadIndexMs),
  pluginStartMedianMs: median(r.pluginStartMs),
  listMedianMs: median(r.listMs),
});
