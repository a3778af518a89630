// Where Orca's time goes in P1b: per-step phases of Orca's run (journal + model requests) and the
// opencode server's CPU for an Orca run against a bare run of the same DAG: its own (of which in the
// kernel) and its children's (git). With PLANS=8, S8x12's CPU: what a step costs the server in a slot
// against the shared tree (ISOLATION=none) and the bare driver.
// env: ROUNDS (default 2), LAT (default 300), CONC (default 4), PLANS (default 1: plans at once),
// ISOLATION (worktree|none: the plugin's isolation.mode; default the plugin's), GIT=0 (the project is no git repository).
import { bareScript, runBare } from '../bare.js';
import { layeredDag } from '../plans.js';
import { runPlans, serverCpuSplit, startBenchServer, stepPhases } from '../server.js';
import { median } from '../stats.js';

const rounds = Number(process.env.ROUNDS ?? 2);
const latencyMs = Number(process.env.LAT ?? 300);
const concurrency = Number(process.env.CONC ?? 4);
const plans = Number(process.env.PLANS ?? 1);
const dag = layeredDag(3, 4);
const b = await startBenchServer({
  concurrency,
  latencyMs,
  ...(process.env.SNAP === '0' ? { config: { snapshot: false } } : {}),
  ...(process.env.ISOLATION ? { pluginOptions: { isolation: { mode: process.env.ISOLATION } } } : {}),
  git: process.env.GIT !== '0',
});
/** CPU between two readings: the server's own (in the kernel), and its children's (git). */
type Cpu = ReturnType<typeof serverCpuSplit>;
const cpu = (a: Cpu, b: Cpu) => `${(b.own - a.own).toFixed(0)} (system ${(b.ownSystem - a.ownSystem).toFixed(0)}) + children ${(b.children - a.children).toFixed(0)} ms`;
try {
  for (let i = 0; i < rounds; i++) {
    const c0 = serverCpuSplit(b.server.projectDir);
    const logAt = b.server.logs().length;
    b.setScript(bareScript());
    const t0 = performance.now();
    const bare = await Promise.all(Array.from({ length: plans }, () => runBare(b, dag, concurrency)));
    const bareWall = performance.now() - t0;
    const c1 = serverCpuSplit(b.server.projectDir);
    const runs = await runPlans(b, Array.from({ length: plans }, (_, k) => ({ plan: { ...dag, goal: `${dag.goal} r${i} p${k}` }, request: `Run round ${i} plan ${k}` })));
    const c2 = serverCpuSplit(b.server.projectDir);
    const hashes = new Set([...b.server.logs().slice(logAt).matchAll(/message=tracking hash=(\w+)/g)].map((m) => m[1]));
    const orcaSpan = Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.approvedAt));
    console.log(`round ${i}: bare ${bareWall.toFixed(0)} ms (cpu ${cpu(c0, c1)}, create median ${median(bare.flatMap((r) => r.createMs)).toFixed(1)}, prompt median ${median(bare.flatMap((r) => r.promptMs)).toFixed(0)}); orca ${orcaSpan.toFixed(0)} ms (cpu ${cpu(c1, c2)} incl. orca+planner turns; calls ${JSON.stringify(runs[0]!.callsByAgent)}, titles ${runs[0]!.titleRequests}); distinct snapshot trees this round ${hashes.size}`);
    const phases = runs.flatMap((r) => stepPhases(r, dag, latencyMs));
    const med = (k: Exclude<keyof (typeof phases)[number], 'id'>) => median(phases.map((p) => p[k])).toFixed(0);
    console.log(`  orca per-step phases median ms: schedule ${med('schedule')} (workspace ${med('workspace')}), open ${med('open')}, preModel ${med('preModel')}, model ${med('model')}, postModel ${med('postModel')} (measure ${med('measure')}, merge ${med('merge')})`);
  }
} finally {
  await b.stop();
}
