// A/B on ONE real server: plans alternate between the plugin as built and the same plugin with
// the session monitor's hooks (`event`, `experimental.chat.messages.transform`) switched off by a
// flag file, to see what the tool-loop breaker and idle watch cost a step (P2b).
// env: STEPS (default 20), ROUNDS (default 4). Model latency 0 ms, concurrency 1.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { distCopy } from './experiment-copy.js';
import { runPlan, startBenchServer, barePrompts } from '../server.js';
import { chain } from '../plans.js';
import { median } from '../stats.js';

const copy = distCopy('orca-bench-monitor-copy');
const flag = join(copy.dir, 'NO_MONITOR');
const plugin = join(copy.dir, 'dist', 'plugin.js');
let text = readFileSync(plugin, 'utf8');
const hooks: Array<[string, string]> = [
  ['event: async ({ event }) => monitor.observe(event),', 'event: async ({ event }) => { if (!__off()) monitor.observe(event); },'],
  [
    "'experimental.chat.messages.transform': async (_input, output) => monitor.beforeModelRequest(output.messages),",
    "'experimental.chat.messages.transform': async (_input, output) => { if (!__off()) await monitor.beforeModelRequest(output.messages); },",
  ],
];
for (const [from, to] of hooks) {
  if (!text.includes(from)) throw new Error(`patch does not apply: ${from}`);
  text = text.replace(from, to);
}
writeFileSync(plugin, `import { existsSync as __exists } from 'node:fs';\nconst __off = () => __exists(${JSON.stringify(flag)});\n${text}`);

const CHAIN = chain(Number(process.env.STEPS ?? 20));
const b = await startBenchServer({ concurrency: 1, latencyMs: 0, pluginUrl: copy.pluginUrl });
const per: Record<string, number[]> = { built: [], 'no-monitor': [] };
try {
  for (let round = 0; round < Number(process.env.ROUNDS ?? 4); round++) {
    for (const name of ['built', 'no-monitor']) {
      if (name === 'no-monitor') writeFileSync(flag, '');
      else rmSync(flag, { force: true });
      const r = await runPlan(b, CHAIN, 'chain');
      const bare = median((await barePrompts(b, r.prompts['s2']!.userText, 5)).map((x) => x.promptMs));
      const ps = r.approvalToCompletedMs / CHAIN.steps.length;
      per[name]!.push(ps);
      console.log(`${name.padEnd(11)} ${ps.toFixed(0)} ms/step; bare prompt ${bare.toFixed(0)} ms → ratio ${(ps / bare).toFixed(2)}`);
    }
  }
  console.log(`median ms/step: built ${median(per.built!).toFixed(0)}, no-monitor ${median(per['no-monitor']!).toFixed(0)}`);
} finally {
  await b.stop();
  rmSync(copy.dir, { recursive: true, force: true });
}
