// The repository-size row (issue 33): the same 4-step plan (s1 ∥ s2 → s3 ∥ s4, coders, the default
// review gate) on a project of 200, 5,000 and 20,000 committed files, with steps in the shared tree
// (isolation none) and in worktree slots (the default), each on a server of its own started at the
// same time on a copy of the same repository. Every step really changes a committed file (a `write`
// call, then its result), so the slot's reset, git's measure, the review of the diff and the landing
// all have work; the shared tree measures the same step by snapshots of the user's tree. On each
// server the first plan is cold (a new server: the slots are made and warmed while the planner
// drafts, as for a user's first plan) and the later ones warm (the slots kept, their OpenCode
// instances warm). Order cold shared, cold worktree, then warm rounds in alternating order, so a
// change in the machine's load hits both sides alike.
// `npx tsx bench/repo-size.ts` runs this row alone (SIZES=200,5000 and WARM_ROUNDS to change it; PLUGIN, another build).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchPlan } from './plans.js';
import { stepResult } from './plans.js';
import { runBench } from './lifecycle.js';
import { loadavg } from './machine.js';
import { memoryNow } from './memory.js';
import { runPlan, startBenchServer, stepIdOf, stepPhases, type BenchServer, type PlanRun } from './server.js';
import { median, round } from './stats.js';
import { jsonReply, type AgentScript } from '../test/e2e/team.js';
import { toolResults } from '../test/support/scripted-model.js';

export const REPO_SIZES = [200, 5_000, 20_000];
/** PLUGIN=<file URL of a dist/index.js>: another build of the plugin (a change tried against the one before). */
const plugin = process.env.PLUGIN ? { pluginUrl: process.env.PLUGIN } : {};
/** Steps on the plan's critical path (s1 or s2, then s3 or s4). */
const CRITICAL_STEPS = 2;

/** The committed file `i` of a bench repository: about 600 bytes of TypeScript in one of 100 folders. */
const fileOf = (i: number) => `src/m${i % 100}/f${i}.ts`;
const textOf = (i: number) => Array.from({ length: 12 }, (_, line) => `export const v${i}_${line} = ${i * 100 + line}; // generated for the repository-size bench\n`).join('');

/** s1 ∥ s2 → s3 ∥ s4, every step a coder that changes one committed file (declared). */
export function repoSizePlan(label: string): BenchPlan {
  const step = (n: number, depends_on: string[]) => ({
    id: `s${n}`,
    agent: 'coder' as const,
    description: `Change ${fileOf(n)} as the plan says (${label}).`,
    files: [fileOf(n)],
    depends_on,
  });
  return {
    type: 'plan',
    goal: `Benchmark repository size: 4 coder steps (${label})`,
    steps: [step(1, []), step(2, []), step(3, ['s1', 's2']), step(4, ['s1', 's2'])],
    assumptions: ['benchmark fixture'],
    risks: ['none'],
    verification: ['every step reports success'],
  };
}

/** A coder's first turn writes its step's file where it works (the request's working directory), the next answers. */
const writingCoder =
  (label: string): AgentScript =>
  (req) => {
    const id = stepIdOf(req) ?? 'unknown';
    const n = Number(/^s(\d+)$/.exec(id)?.[1] ?? NaN);
    if (toolResults(req).length > 0 || !Number.isFinite(n)) return jsonReply(stepResult(id));
    const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim();
    if (!dir) throw new Error(`step ${id}: no "Working directory:" in the system prompt`);
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, fileOf(n)), content: `${textOf(n)}export const changedBy = '${id} of ${label}';\n` } }] };
  };

/** A git repository of `files` committed files (and the sandbox's README), its index refreshed. */
export function makeRepository(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), `orca-bench-repo-${files}-`));
  for (let m = 0; m < Math.min(100, files); m++) mkdirSync(join(dir, 'src', `m${m}`), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(dir, fileOf(i)), textOf(i));
  writeFileSync(join(dir, 'README.md'), `# bench project, ${files} files\n`);
  // gc.auto=0: a commit of thousands of loose objects would start git's gc in the background, which
  // packs them away while the repository is copied (cp: cannot stat …/.git/objects/…).
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=orca-bench', '-c', 'user.email=bench@orca.invalid', '-c', 'gc.auto=0', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', `${files} files`);
  return dir;
}

/** A copy of a bench repository, its index refreshed (as a user's is after a `git status`). */
function copyRepository(template: string, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `orca-bench-${label}-`));
  execFileSync('cp', ['-a', `${template}/.`, dir]);
  execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

export type Side = 'shared' | 'worktrees';

export interface RepoSizeRun {
  side: Side;
  cold: boolean;
  /** Journal: approval → plan completed. */
  approvalToCompletedMs: number;
  /** The orca session.prompt, request → reply (planner and the orca turns included: the cold slots made while the planner drafts). */
  wholeMs: number;
  /** Per step, median ms (bench/server.ts stepPhases). */
  phases: Record<'workspace' | 'open' | 'preModel' | 'postModel' | 'measure' | 'review' | 'merge', number>;
  /** Load average (1 min) at the run's end. */
  load: number;
}

export interface RepoSizeFigures {
  files: number;
  /** Making the repository (files and commit), ms. */
  makeMs: number;
  runs: RepoSizeRun[];
  /** Worktrees / shared, approval → completed: the cold plans, and the median of the warm rounds. */
  coldRatio: number;
  warmRatio: number;
  /** (worktrees − shared) / steps on the critical path, warm medians, ms: what a step on a warm slot adds to the plan. */
  warmAddedPerStepMs: number;
  coldAddedPerStepMs: number;
  /** Slots on the worktree server at the end; resident memory of each server at the end (MiB). */
  slots: number;
  endRssMiB: Record<Side, number>;
  /** Load average (1 min) when the size was done. */
  load: number;
}

const PHASE_KEYS = ['workspace', 'open', 'preModel', 'postModel', 'measure', 'review', 'merge'] as const;

function summarize(run: PlanRun, plan: BenchPlan, side: Side, cold: boolean, latencyMs: number): RepoSizeRun {
  const phases = stepPhases(run, plan, latencyMs);
  const med = Object.fromEntries(PHASE_KEYS.map((k) => [k, median(phases.map((p) => p[k]))])) as RepoSizeRun['phases'];
  return { side, cold, approvalToCompletedMs: run.approvalToCompletedMs, wholeMs: run.totalWallMs, phases: med, load: loadavg()[0] };
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
export const phaseText = (p: RepoSizeRun['phases']) =>
  `slot/snapshot ${f0(p.workspace)}, session ${f0(p.open)}, →model ${f0(p.preModel)}, measure ${f0(p.measure)}, review ${f0(p.review)}, merge ${f0(p.merge)}, reply→done ${f0(p.postModel)}`;

/** The row at one repository size. */
export async function measureRepoSize(say: (s?: string) => void, files: number, { latencyMs = 300, warmRounds = 1 }: { latencyMs?: number; warmRounds?: number } = {}): Promise<RepoSizeFigures> {
  const t0 = performance.now();
  const template = makeRepository(files);
  const makeMs = performance.now() - t0;
  const projects: Record<Side, string> = { shared: copyRepository(template, `shared-${files}`), worktrees: copyRepository(template, `worktrees-${files}`) };
  rmSync(template, { recursive: true, force: true });
  const benches: Partial<Record<Side, BenchServer>> = {};
  try {
    // Both servers at once: a server's start is seconds of CPU, and the two never run plans at the same time.
    const [shared, worktrees] = await Promise.all([
      startBenchServer({ concurrency: 4, latencyMs, projectDir: projects.shared, pluginOptions: { review: {}, isolation: { mode: 'none' } }, ...plugin }).then((b) => (benches.shared = b)),
      startBenchServer({ concurrency: 4, latencyMs, projectDir: projects.worktrees, pluginOptions: { review: {} }, ...plugin }).then((b) => (benches.worktrees = b)),
    ]);
    const bench: Record<Side, BenchServer> = { shared, worktrees };
    say(`  ${files.toLocaleString('en-US')} files: repository made in ${f0(makeMs)} ms; servers up in ${f0(shared.startMs)} / ${f0(worktrees.startMs)} ms`);
    const runs: RepoSizeRun[] = [];
    let n = 0;
    const run = async (side: Side, cold: boolean) => {
      const label = `${files} files ${side} ${cold ? 'cold' : 'warm'} ${++n}`;
      const plan = repoSizePlan(label);
      const result = await runPlan(bench[side], plan, `Run the benchmark plan: ${label}`, { specialist: writingCoder(label) });
      if (result.status !== 'completed') throw new Error(`${label}: plan ${result.planId} ended ${result.status}`);
      const summary = summarize(result, plan, side, cold, latencyMs);
      runs.push(summary);
      say(`    ${side.padEnd(9)} ${cold ? 'cold' : 'warm'}: approval → completed ${f0(summary.approvalToCompletedMs)} ms (whole orca turn ${f0(summary.wholeMs)} ms); per step, median ms: ${phaseText(summary.phases)}; load ${summary.load.toFixed(1)}`);
    };
    await run('shared', true);
    await run('worktrees', true);
    for (let i = 0; i < warmRounds; i++) {
      if (i % 2 === 0) {
        await run('worktrees', false);
        await run('shared', false);
      } else {
        await run('shared', false);
        await run('worktrees', false);
      }
    }
    const wall = (side: Side, cold: boolean) => median(runs.filter((r) => r.side === side && r.cold === cold).map((r) => r.approvalToCompletedMs));
    const slots = (() => {
      try {
        return execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: projects.worktrees, encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('worktree ')).length - 1;
      } catch {
        return NaN;
      }
    })();
    const figures: RepoSizeFigures = {
      files,
      makeMs,
      runs,
      coldRatio: wall('worktrees', true) / wall('shared', true),
      warmRatio: wall('worktrees', false) / wall('shared', false),
      warmAddedPerStepMs: (wall('worktrees', false) - wall('shared', false)) / CRITICAL_STEPS,
      coldAddedPerStepMs: (wall('worktrees', true) - wall('shared', true)) / CRITICAL_STEPS,
      slots,
      endRssMiB: { shared: memoryNow(shared.pid).rssMiB, worktrees: memoryNow(worktrees.pid).rssMiB },
      load: loadavg()[0],
    };
    say(
      `    → worktrees / shared: warm ${figures.warmRatio.toFixed(3)} (${f0(wall('worktrees', false))} / ${f0(wall('shared', false))} ms; per critical-path step ${f0(figures.warmAddedPerStepMs)} ms), cold ${figures.coldRatio.toFixed(3)} (${f0(figures.coldAddedPerStepMs)} ms per step); ${slots} slots; server RSS at the end ${f0(figures.endRssMiB.shared)} / ${f0(figures.endRssMiB.worktrees)} MiB`,
    );
    return figures;
  } finally {
    await Promise.all(Object.values(benches).map((b) => b.stop()));
    for (const dir of Object.values(projects)) rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureRepoSizes(say: (s?: string) => void, { sizes = REPO_SIZES, latencyMs = 300, warmRounds = 1 }: { sizes?: number[]; latencyMs?: number; warmRounds?: number } = {}): Promise<RepoSizeFigures[]> {
  say(
    `Repository size: the plan s1 ∥ s2 → s3 ∥ s4 (4 coders, each writes one committed file; review gate on, the default) at ${sizes.map((s) => s.toLocaleString('en-US')).join(' / ')} committed files, model latency ${latencyMs} ms; shared tree and worktree slots each on a server of its own, same repository; the first plan on a server cold, then ${warmRounds} warm round(s)`,
  );
  const out: RepoSizeFigures[] = [];
  for (const files of sizes) out.push(await measureRepoSize(say, files, { latencyMs, warmRounds }));
  return out;
}

export const repoSizeResults = (figures: RepoSizeFigures[]) =>
  figures.map((r) => ({
    ...r,
    makeMs: round(r.makeMs, 0),
    coldRatio: round(r.coldRatio, 3),
    warmRatio: round(r.warmRatio, 3),
    warmAddedPerStepMs: round(r.warmAddedPerStepMs, 0),
    coldAddedPerStepMs: round(r.coldAddedPerStepMs, 0),
    endRssMiB: { shared: round(r.endRssMiB.shared, 0), worktrees: round(r.endRssMiB.worktrees, 0) },
  }));

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  await runBench(async () => {
    const sizes = process.env.SIZES ? process.env.SIZES.split(',').map(Number) : REPO_SIZES;
    const t0 = performance.now();
    const figures = await measureRepoSizes((s = '') => console.log(s), { sizes, warmRounds: Number(process.env.WARM_ROUNDS ?? 1) });
    console.log(JSON.stringify(repoSizeResults(figures), null, 2));
    console.log(`total wall time ${((performance.now() - t0) / 1000).toFixed(1)} s; load average ${loadavg().join(' / ')}`);
  });
}
