// W1 alone (bench/carry.ts): each Orca role's first request against OpenCode's `build`, with the
// plugin options given in OPTIONS (JSON, added to the bench's; default none), and the planner's
// tools one by one, so a change to what the planner carries can be measured in a minute.
//   OPTIONS='{"agenda":{"tools":false}}' npx tsx bench/probes/w1-roles.ts
// PLUGIN_URL loads another build than dist/ (a snapshot, while dist/ is being rebuilt).
import { buildRequest, carried, fmtCarried, measureRoles, roleLines } from '../carry.js';
import { runBench } from '../lifecycle.js';
import { startBenchServer } from '../server.js';
import { agentOf } from '../../test/e2e/team.js';

await runBench(async () => {
  const pluginOptions = { review: {}, isolation: { mode: 'none' }, ...(JSON.parse(process.env.OPTIONS ?? '{}') as Record<string, unknown>) };
  const plain = await startBenchServer({ concurrency: 4, latencyMs: 0, plugin: false });
  const build = carried(await buildRequest(plain).finally(() => plain.stop()));
  console.log(`build without Orca: ${fmtCarried(build)}`);
  const orca = await startBenchServer({ concurrency: 4, latencyMs: 0, pluginOptions, ...(process.env.PLUGIN_URL ? { pluginUrl: process.env.PLUGIN_URL } : {}) });
  try {
    const { run, roles } = await measureRoles(orca, 'w1 probe');
    console.log(`W1 with options ${JSON.stringify(pluginOptions)}:`);
    for (const line of roleLines(roles, build)) console.log(`  ${line}`);
    const planner = run.requests.find((r) => agentOf(r) === 'planner');
    if (planner) {
      const tools = (planner.body.tools ?? []) as Array<{ function?: { name?: string } }>;
      console.log(`planner tools: ${tools.map((t) => `${t.function?.name} ${JSON.stringify(t).length}`).join(', ')}`);
    }
  } finally {
    await orca.stop();
  }
});
