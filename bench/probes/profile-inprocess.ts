// Backs docs/development.md, "Profiling" (Orca in process): the workload of the V8 profile shown there.
// A workload for the V8 profiler: the in-process 50-step chain (P2a) a few times.
//   node --cpu-prof --cpu-prof-dir=/tmp/orca-prof --import tsx bench/probes/profile-inprocess.ts [yield]
//   npx tsx bench/cpuprofile.ts /tmp/orca-prof/*.cpuprofile flush writeFileAtomic fsyncSync getPersistedSnapshot appendJournal
import { runInProcess } from '../inprocess.js';
import { chain } from '../plans.js';

const yieldIo = process.argv[2] === 'yield';
await runInProcess(chain(10));
for (let i = 0; i < 6; i++) await runInProcess(chain(50), { yieldIo });
