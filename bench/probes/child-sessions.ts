// Is a prompt slower in a child session (what the plugin uses), or while the parent session is
// busy (the orca session waits in orca_ask_planner for the whole plan)? Bare prompts from outside.
import { startBenchServer, serverCpuMs } from '../server.js';
import { structured } from '../../test/e2e/team.js';
import { specialistOutputJsonSchema } from '../../src/schemas/specialist-output.js';
import { stepResult } from '../plans.js';
import { median } from '../stats.js';

const b = await startBenchServer({ concurrency: 1, latencyMs: 0 });
// The "build" agent's turn (the busy parent) is answered after 60 s; coder turns at once.
b.setScript((req) => (req.system.includes('Orca agent: coder') || req.tools.includes('StructuredOutput') ? structured(stepResult('x')) : { text: 'done', delayMs: 60_000 }));
const c = b.server.client;
const prompt = async (sessionID: string) => {
  const t0 = performance.now();
  await c.session.prompt({ sessionID, agent: 'coder', parts: [{ type: 'text', text: 'Do it.' }], format: { type: 'json_schema', schema: specialistOutputJsonSchema() } as never, tools: { StructuredOutput: true } });
  return performance.now() - t0;
};
const series = async (label: string, parentID?: string) => {
  const t: number[] = [];
  const cpu0 = serverCpuMs(b.server.projectDir);
  for (let i = 0; i < 8; i++) t.push(await prompt((await c.session.create({ title: `${label} ${i}`, ...(parentID ? { parentID } : {}) })).data!.id));
  console.log(`${label.padEnd(34)} prompt median ${median(t).toFixed(0)} ms, opencode CPU ${((serverCpuMs(b.server.projectDir) - cpu0) / 8).toFixed(0)} ms/prompt`);
};
try {
  const idle = (await c.session.create({ title: 'idle parent' })).data!.id;
  const busy = (await c.session.create({ title: 'busy parent' })).data!.id;
  await series('root session');
  await series('child of an idle parent', idle);
  const running = c.session.prompt({ sessionID: busy, agent: 'build', parts: [{ type: 'text', text: 'wait' }] }).catch(() => {});
  await new Promise((r) => setTimeout(r, 500));
  await series('root, another session busy');
  await series('child of a busy parent', busy);
  await c.session.abort({ sessionID: busy });
  await running;
} finally {
  await b.stop();
}
