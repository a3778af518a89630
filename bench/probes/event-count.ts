// Which OpenCode events a P1b plan raises (GET /global/event, as every client of the server receives
// them): per type, counted after a warm-up plan, for the plan run with worktree slots or in the shared tree.
// env: ISOLATION (worktree|none), LAT (default 300), CONC (default 4).
import { layeredDag } from '../plans.js';
import { runPlans, startBenchServer } from '../server.js';

const dag = layeredDag(3, 4);
const b = await startBenchServer({ concurrency: Number(process.env.CONC ?? 4), latencyMs: Number(process.env.LAT ?? 300), ...(process.env.ISOLATION ? { pluginOptions: { isolation: { mode: process.env.ISOLATION } } } : {}) });
try {
  await runPlans(b, [{ plan: { ...dag, goal: `${dag.goal} warm` }, request: 'Warm up' }]);
  const from = b.server.events.events.length;
  await runPlans(b, [{ plan: dag, request: 'Run it' }]);
  const counts = new Map<string, number>();
  for (const e of b.server.events.events.slice(from)) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const total = [...counts.values()].reduce((s, n) => s + n, 0);
  console.log(`events in one 12-step plan: ${total}`);
  for (const [type, n] of [...counts].sort((x, y) => y[1] - x[1])) console.log(`  ${String(n).padStart(5)} ${type}`);
} finally {
  await b.stop();
}
