// Where does a bare prompt's time go on the real server? Plugin loaded or not, agent, OpenCode snapshots.
import { startOpencode } from '../../test/support/opencode-server.js';
import { startScriptedModel } from '../../test/support/scripted-model.js';
import { builtPluginUrl, structured } from '../../test/e2e/team.js';
import { specialistOutputJsonSchema } from '../../src/schemas/specialist-output.js';
import { serverCpuMs } from '../server.js';
import { stepResult } from '../plans.js';
import { median } from '../stats.js';

const LAT = Number(process.env.LAT ?? 300);
const model = await startScriptedModel({ respond: () => structured(stepResult('bare')), latencyMs: LAT });
async function variant(name: string, config: Record<string, unknown>, agent: string, n = 8) {
  const server = await startOpencode({ modelUrl: model.url, config, requestTimeoutMs: 120_000 });
  try {
    const rows: Array<{ create: number; pre: number; post: number; total: number }> = [];
    const cpu0 = serverCpuMs(server.projectDir);
    for (let i = 0; i < n; i++) {
      const c0 = Date.now();
      const s = (await server.client.session.create({ title: `b${i}` })).data!;
      const c1 = Date.now();
      const before = model.requests.length;
      await server.client.session.prompt({
        sessionID: s.id, agent, parts: [{ type: 'text', text: 'Do the step and reply with the JSON result.' }],
        format: { type: 'json_schema', schema: specialistOutputJsonSchema() } as never, tools: { StructuredOutput: true },
      });
      const c2 = Date.now();
      const reqs = model.requests.slice(before);
      const first = reqs[0]!.at;
      rows.push({ create: c1 - c0, pre: first - c1, post: c2 - (reqs.at(-1)!.at + LAT), total: c2 - c1 });
      if (reqs.length !== 1) console.log(name, 'requests per prompt', reqs.length, reqs.map((r) => r.kind));
    }
    const cpu = (serverCpuMs(server.projectDir) - cpu0) / n;
    const med = (k: keyof (typeof rows)[0]) => median(rows.map((r) => r[k])).toFixed(0);
    console.log(`${name.padEnd(40)} create ${med('create')} pre-model ${med('pre')} post-model ${med('post')} prompt ${med('total')} ms; server CPU/prompt ${cpu.toFixed(0)} ms`);
  } finally {
    await server.stop();
  }
}
const plugin = { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } } }]] };
await variant('no plugin, agent build', {}, 'build');
await variant('plugin, agent build', plugin, 'build');
await variant('plugin, agent coder', plugin, 'coder');
await variant('plugin, agent coder, snapshot:false', { ...plugin, snapshot: false }, 'coder');
await variant('no plugin, agent build, snapshot:false', { snapshot: false }, 'build');
await model.close();
