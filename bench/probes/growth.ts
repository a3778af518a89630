// Only the growth figures of bench/parallel.ts: heap held, plan file and writes per step, in process.
import { heapAfterGc, runInProcess } from '../inprocess.js';
import { layeredDag } from '../plans.js';

heapAfterGc();
await runInProcess(layeredDag(2, 8), { yieldIo: true, concurrency: 8 });
for (const layers of [6, 12, 25]) {
  const plan = layeredDag(layers, 8);
  const run = await runInProcess(plan, { yieldIo: true, concurrency: 8, measureHeap: true });
  const n = plan.steps.length;
  console.log(`${n} steps: heap ${((run.heapBytes ?? NaN) / 1024).toFixed(0)} KiB (${((run.heapBytes ?? NaN) / n / 1024).toFixed(1)}/step), file ${(run.planFileBytes / 1024).toFixed(0)} KiB (${(run.planFileBytes / n / 1024).toFixed(2)}/step), writes/step ${(run.saves / n).toFixed(2)}, wall ${run.wallMs.toFixed(0)} ms`);
}
