// CPU profile of the plan host running a 200-step plan in process (ports answer after a macrotask):
// what grows with the plan. `node --import tsx --cpu-prof --cpu-prof-dir=DIR bench/probes/growth-profile.ts`,
// then `tsx bench/cpuprofile.ts DIR/*.cpuprofile`.
import { runInProcess } from '../inprocess.js';
import { layeredDag } from '../plans.js';

await runInProcess(layeredDag(2, 8), { yieldIo: true, concurrency: 8 });
const run = await runInProcess(layeredDag(25, 8), { yieldIo: true, concurrency: 8 });
console.log(`200 steps: ${run.wallMs.toFixed(0)} ms`);
