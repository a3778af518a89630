// P2b's gap by OpenCode setting: a chain at 0 ms vs bare prompts on the same server, with
// OpenCode's file snapshots on (default) and off ("snapshot": false). env: STEPS (default 20), ROUNDS (2).
import { runPlan, startBenchServer, stepPhases, barePrompts } from '../server.js';
import { chain } from '../plans.js';
import { mean, median } from '../stats.js';
const CHAIN = chain(Number(process.env.STEPS ?? 20));
for (let round = 0; round < Number(process.env.ROUNDS ?? 2); round++) {
  for (const snapshot of [true, false]) {
    const b = await startBenchServer({ concurrency: 1, latencyMs: 0, config: snapshot ? {} : { snapshot: false } });
    try {
      const r = await runPlan(b, CHAIN, 'chain');
      const ph = stepPhases(r, CHAIN, 0);
      const m = (k: 'open' | 'preModel' | 'postModel') => mean(ph.map((p) => p[k])).toFixed(0);
      const bare = await barePrompts(b, r.prompts['s2']!.userText, 8);
      const bp = median(bare.map((x) => x.promptMs));
      const ps = r.approvalToCompletedMs / CHAIN.steps.length;
      console.log(`snapshot ${snapshot ? 'on ' : 'off'}: ${ps.toFixed(0)} ms/step (open ${m('open')}, pre-model ${m('preModel')}, post-model ${m('postModel')}); bare ${bp.toFixed(0)} ms (pre ${median(bare.map((x) => x.preModelMs)).toFixed(0)}, post ${median(bare.map((x) => x.postModelMs)).toFixed(0)}) → ratio ${(ps / bp).toFixed(2)}`);
    } finally {
      await b.stop();
    }
  }
}
