import { runInProcess } from './inprocess.js';
import { chain } from './plans.js';
import { summary } from './stats.js';
await runInProcess(chain(10));
for (let i = 0; i < 3; i++) {
  const r = await runInProcess(chain(50));
  console.log(summary(r.perStepMs), r.tailMs, r.wallMs, r.planFileBytes, r.prompts.get('s2')!.length, r.prompts.get('s50')!.length);
}
