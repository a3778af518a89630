// S8×12 on one server, worktree slots (default) or ISOLATION=none: the DAG's first layer as warm-up
// (4 slots made and warmed), then 8 plans of 12 steps at once (Orca only unless BARE=1), with each
// step's phases, the slots held and on disk (sampled), and the server's memory. PLANS=n changes 8;
// CONCURRENCY=n: the plans' concurrency and the slot pool (4); ROUNDS=n: n-1 rounds of the plans before the measured one.
// GIT_TRACE=1: the git processes the server ran during the plans, by subcommand (bench/git-trace.ts);
// PLUGIN=<file URL of a dist/index.js>: another build of the plugin (a change tried before it is made in src/).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { xdgDirs } from '../../test/support/opencode-sandbox.js';
import { runBench } from '../lifecycle.js';
import { loadavg } from '../machine.js';
import { watchMemory } from '../memory.js';
import { layeredDag } from '../plans.js';
import { runPlans, startBenchServer, stepPhases } from '../server.js';
import { runBare, bareScript } from '../bare.js';
import { median } from '../stats.js';
import { gitProcesses, gitSummary, gitTraceFolder } from '../git-trace.js';

/** CPU ticks (1/100 s) of each thread of the process, by thread id, with its name. */
function threadCpu(pid: number): Map<string, { name: string; ticks: number }> {
  const out = new Map<string, { name: string; ticks: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the thread ended
    }
  }
  return out;
}

await runBench(async () => {
  const none = process.env.ISOLATION === 'none';
  const plans = Number(process.env.PLANS ?? 8);
  const trace = process.env.GIT_TRACE === '1' ? gitTraceFolder() : undefined;
  const bench = await startBenchServer({ concurrency: Number(process.env.CONCURRENCY ?? 4), latencyMs: 300, ...(process.env.PLUGIN ? { pluginUrl: process.env.PLUGIN } : {}), ...(trace ? { env: { GIT_TRACE2_EVENT: trace } } : {}), ...(none ? { pluginOptions: { isolation: { mode: 'none' } } } : {}) });
  const dag = layeredDag(3, 4);
  const slots = join(xdgDirs(bench.server.homeDir).XDG_DATA_HOME, 'opencode-orca', 'worktrees');
  const count = () => {
    let made = 0;
    let held = 0;
    for (const repo of readdirSync(slots, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      const names = (() => {
        try {
          return readdirSync(join(slots, repo.name, 'slots'));
        } catch {
          return [];
        }
      })();
      made += names.filter((n) => /^\d+$/.test(n)).length;
      held += names.filter((n) => /\.claim\.json$/.test(n)).length;
    }
    return { made, held };
  };
  try {
    const warm = await runPlans(bench, [{ plan: { ...layeredDag(1, 4), goal: 'warm-up' }, request: 'Run the warm-up plan' }]);
    console.log(`warm-up: ${warm[0]!.status} ${warm[0]!.approvalToCompletedMs} ms; slots ${none ? '-' : JSON.stringify(count())}; load ${loadavg().join(' / ')}`);
    for (let r = 1; r < Number(process.env.ROUNDS ?? 1); r++) {
      const t = performance.now();
      const pre = await runPlans(bench, Array.from({ length: plans }, (_, k) => ({ plan: { ...dag, goal: `S8 round ${r} copy ${k + 1}` }, request: `Run round ${r} copy ${k + 1} of ${plans}` })));
      console.log(`round ${r}: ${(performance.now() - t).toFixed(0)} ms, ${[...new Set(pre.map((x) => x.status))].join(',')}; slots ${none ? '-' : JSON.stringify(count())}`);
    }
    let maxMade = 0;
    let maxHeld = 0;
    const timer = none ? undefined : setInterval(() => {
      const c = count();
      maxMade = Math.max(maxMade, c.made);
      maxHeld = Math.max(maxHeld, c.held);
    }, 250);
    const memory = watchMemory(bench.pid);
    const cpu0 = threadCpu(bench.pid);
    const t0 = performance.now();
    const from = Date.now();
    const runs = await runPlans(bench, Array.from({ length: plans }, (_, k) => ({ plan: { ...dag, goal: `S8 copy ${k + 1}` }, request: `Run benchmark copy ${k + 1} of ${plans}` })));
    const span = Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.approvedAt));
    clearInterval(timer);
    const mem = memory.stop();
    const cpu1 = threadCpu(bench.pid);
    const phases = runs.flatMap((r) => stepPhases(r, dag, 300));
    const med = (k: keyof (typeof phases)[0]) => median(phases.map((p) => p[k] as number)).toFixed(0);
    const p90 = (k: keyof (typeof phases)[0]) => [...phases.map((p) => p[k] as number)].sort((a, b) => a - b)[Math.floor(phases.length * 0.9)]!.toFixed(0);
    console.log(`Orca: span ${span} ms (whole ${(performance.now() - t0).toFixed(0)} ms), statuses ${[...new Set(runs.map((r) => r.status))].join(',')}; slots at most ${maxMade} on disk, ${maxHeld} held; peak RSS ${mem.peakMiB.toFixed(0)} MiB; load ${loadavg().join(' / ')}`);
    const used = [...cpu1].map(([tid, t]) => ({ name: t.name, s: (t.ticks - (cpu0.get(tid)?.ticks ?? 0)) / 100 })).filter((t) => t.s > 0.2).sort((a, b) => b.s - a.s);
    console.log(`  server CPU over the plans: ${used.reduce((a, t) => a + t.s, 0).toFixed(1)} s; by thread: ${used.slice(0, 6).map((t) => `${t.name} ${t.s.toFixed(1)} s`).join(', ')}`);
    for (const k of ['schedule', 'workspace', 'open', 'preModel', 'postModel', 'measure', 'merge'] as const) console.log(`  ${k.padEnd(10)} median ${med(k).padStart(6)} ms, p90 ${p90(k).padStart(6)} ms`);
    if (trace) for (const l of gitSummary(gitProcesses(trace, from, Date.now()))) console.log(`  git: ${l}`);
    if (process.env.BARE === '1') {
      bench.setScript(bareScript());
      const b0 = performance.now();
      await Promise.all(Array.from({ length: plans }, () => runBare(bench, dag, 4)));
      console.log(`bare: span ${(performance.now() - b0).toFixed(0)} ms; load ${loadavg().join(' / ')}`);
    }
  } finally {
    await bench.stop();
  }
});
