// A plan on the real server with a traced copy of the plugin (see experiment-copy.ts): how long
// each call the plugin makes into OpenCode takes, the plan-file saves, and event-loop stalls.
// Usage: tsx bench/probes/trace-chain.ts [dag]   env: STEPS (chain length, default 12), LAT (ms, default 300),
// NOSNAP=1 (opencode "snapshot": false)
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { distCopy } from './experiment-copy.js';
import { startBenchServer, runPlan, serverCpuMs } from '../server.js';
import { chain, layeredDag } from '../plans.js';
import { median } from '../stats.js';

const copy = distCopy();
const trace = join(copy.dir, 'trace.jsonl');
rmSync(trace, { force: true });
const dag = process.argv[2] === 'dag';
const latencyMs = Number(process.env.LAT ?? 300);
const plan = dag ? layeredDag(3, 4) : chain(Number(process.env.STEPS ?? 12));
const b = await startBenchServer({
  concurrency: dag ? 4 : 1,
  latencyMs,
  env: { ORCA_TRACE: trace },
  pluginUrl: copy.pluginUrl,
  config: process.env.NOSNAP ? { snapshot: false } : {},
});
try {
  const c0 = serverCpuMs(b.server.projectDir);
  const r = await runPlan(b, plan, 'Run it');
  const c1 = serverCpuMs(b.server.projectDir);
  const n = r.steps.length;
  console.log(`approval→completed ${r.approvalToCompletedMs} ms, ${(r.approvalToCompletedMs / n).toFixed(0)} ms/step, opencode CPU ${((c1 - c0) / n).toFixed(0)} ms/step`);
  const rows = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { op: string; t0: number; t1: number; lag?: number });
  const inRun = rows.filter((r) => r.op !== 'lag');
  for (const op of ['children', 'create', 'messages', 'prompt', 'save']) {
    const d = inRun.filter((r) => r.op === op).map((r) => r.t1 - r.t0);
    if (!d.length) continue;
    const q = Math.max(1, Math.floor(d.length / 5));
    const fifths = [0, 1, 2, 3, 4].map((i) => median(d.slice(i * q, (i + 1) * q)).toFixed(0)).join(' ');
    console.log(`${op.padEnd(9)} n ${String(d.length).padStart(3)}  median ${median(d).toFixed(0).padStart(4)} ms  max ${String(Math.max(...d)).padStart(4)}  sum ${String(d.reduce((a, b) => a + b, 0)).padStart(6)}  (median by fifth of the run: ${fifths})`);
  }
  const lags = rows.filter((r) => r.op === 'lag');
  console.log(`event-loop stalls > 15 ms in the opencode process (whole life): ${lags.length}, ${lags.reduce((a, r) => a + (r.lag ?? 0), 0)} ms in all, max ${Math.max(0, ...lags.map((r) => r.lag ?? 0))} ms`);
} finally {
  await b.stop();
}
