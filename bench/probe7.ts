import { startBenchServer, runPlan, barePrompts, serverCpuMs } from './server.js';
import { layeredDag, chain } from './plans.js';
const prof = process.argv[2];
const b = await startBenchServer({ concurrency: 1, latencyMs: 300 });
console.log('start', b.startMs);
try {
  const c0 = serverCpuMs(b.server.projectDir);
  const r = await runPlan(b, chain(12), 'Run the benchmark chain');
  const c1 = serverCpuMs(b.server.projectDir);
  console.log('chain12 approval→completed', r.approvalToCompletedMs, 'per step', r.approvalToCompletedMs / 12, 'total', r.totalWallMs, 'cpu', c1 - c0);
  console.log(r.steps.map((s) => [s.id, s.running - s.opening, s.requests[0]! - s.running, s.completed - s.requests[0]! - 300].join(':')).join(' '));
  const bare = await barePrompts(b, r.prompts['s2']!.userText, 8);
  const c2 = serverCpuMs(b.server.projectDir);
  console.log(bare.map((x) => `${x.createMs.toFixed(0)}+${x.promptMs.toFixed(0)}`).join(' '), 'cpu per bare', (c2 - c1) / 8);
} finally { await b.stop(); }
