import { startBenchServer, runPlan, barePrompts } from './server.js';
import { layeredDag, chain } from './plans.js';
const b = await startBenchServer({ concurrency: 4, latencyMs: 300 });
console.log('start', b.startMs);
try {
  const r = await runPlan(b, layeredDag(3, 4), 'Run the benchmark DAG');
  console.log(JSON.stringify({ ...r, prompts: undefined }, null, 1));
  const bare = await barePrompts(b, r.prompts['l2w1']!.userText, 5);
  console.log(bare);
} finally { await b.stop(); }
