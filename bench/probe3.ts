import { runInProcess } from './inprocess.js';
import { chain } from './plans.js';
await runInProcess(chain(10));
const r = await runInProcess(chain(50));
console.log(r.perStepMs.map((x) => x.toFixed(1)).join(' '));
const r2 = await runInProcess(chain(200));
const s = r2.perStepMs;
console.log('200-chain: first10', s.slice(0,10).map((x) => x.toFixed(1)).join(' '), 'last10', s.slice(-10).map((x) => x.toFixed(1)).join(' '), 'file', r2.planFileBytes);
