// One plan of the bench DAG on a bench server, isolation on or off (ISOLATION=none): wall, workspace, worktrees seen; the server log on failure.
import { layeredDag } from '../plans.js';
import { runPlan, startBenchServer, stepPhases } from '../server.js';

const none = process.env.ISOLATION === 'none';
const bench = await startBenchServer({ concurrency: 4, latencyMs: 300, ...(none ? { pluginOptions: { isolation: { mode: 'none' } } } : {}) });
console.log(`server up in ${bench.startMs.toFixed(0)} ms, home ${bench.server.homeDir}`);
try {
  const plan = layeredDag(Number(process.env.LAYERS ?? 1), Number(process.env.WIDTH ?? 2));
  // RUNS=2: the same plan again on the same server (warm worktree slots).
  for (let round = 1; round <= Number(process.env.RUNS ?? 1); round++) {
    const t0 = performance.now();
    const run = await runPlan(bench, plan, `Run the benchmark plan: probe ${round}`);
    for (const p of stepPhases(run, plan, 300)) console.log(`  ${p.id}: schedule ${p.schedule.toFixed(0)}, open ${p.open.toFixed(0)}, pre-model ${p.preModel.toFixed(0)}, post-model ${p.postModel.toFixed(0)} ms`);
    console.log(`round ${round}: ${run.status} approval→completed ${run.approvalToCompletedMs} ms, whole ${(performance.now() - t0).toFixed(0)} ms; calls ${JSON.stringify(run.callsByAgent)}`);
  }
} catch (error) {
  console.log(String(error));
  console.log(bench.server.logs().slice(-6000));
} finally {
  await bench.stop();
}
