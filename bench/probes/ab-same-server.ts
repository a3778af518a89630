// A/B on ONE real server (so machine load hits both alike): plans alternate between the plugin as
// built (crash-recovery look-ups only for side effects in flight in a restored plan) and the same
// plugin making them on every dispatch, as it did before (experiment-copy.ts, switched by a flag
// file the copy checks on each call).
// env: STEPS (default 20), ROUNDS (default 5). Model latency 0 ms, concurrency 1.
import { rmSync, writeFileSync } from 'node:fs';
import { distCopy } from './experiment-copy.js';
import { runPlan, startBenchServer, stepPhases, barePrompts } from '../server.js';
import { chain } from '../plans.js';
import { mean, median } from '../stats.js';

const copy = distCopy();
const CHAIN = chain(Number(process.env.STEPS ?? 20));
const b = await startBenchServer({ concurrency: 1, latencyMs: 0, pluginUrl: copy.pluginUrl });
const per: Record<string, number[]> = { built: [], 'every-lookup': [] };
try {
  for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
    for (const name of ['built', 'every-lookup']) {
      if (name === 'every-lookup') writeFileSync(copy.everyLookupFlag, '');
      else rmSync(copy.everyLookupFlag, { force: true });
      const r = await runPlan(b, CHAIN, 'chain');
      const ph = stepPhases(r, CHAIN, 0);
      const m = (k: 'open' | 'preModel' | 'postModel') => mean(ph.map((p) => p[k])).toFixed(0);
      const bare = median((await barePrompts(b, r.prompts['s2']!.userText, 5)).map((x) => x.promptMs));
      const ps = r.approvalToCompletedMs / CHAIN.steps.length;
      per[name]!.push(ps);
      console.log(`${name.padEnd(13)} ${ps.toFixed(0)} ms/step; mean open ${m('open')}, pre-model ${m('preModel')}, post-model ${m('postModel')} ms; bare prompt ${bare.toFixed(0)} ms → ratio ${(ps / bare).toFixed(2)}`);
    }
  }
  console.log(`median ms/step: built ${median(per.built!).toFixed(0)}, every-lookup ${median(per['every-lookup']!).toFixed(0)}`);
} finally {
  rmSync(copy.everyLookupFlag, { force: true });
  await b.stop();
}
