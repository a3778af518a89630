import { runInProcess } from './inprocess.js';
import { chain } from './plans.js';
import { summary } from './stats.js';
await runInProcess(chain(10));
const all: number[] = [];
for (let i = 0; i < 4; i++) all.push(...(await runInProcess(chain(50))).perStepMs);
console.log(summary(all));
