// Samples the JavaScript of the opencode server itself (a Bun-compiled binary: `--cpu-prof` is not
// honoured, but BUN_INSPECT opens the WebKit inspector, whose ScriptProfiler samples stacks) while
// a plan runs, and attributes the samples: the plugin's own files vs OpenCode's bundle, and the
// hottest functions. env: STEPS (chain length, default 20), LAT (ms, default 0), DAG=1 for the P1 DAG,
// PLANS (copies run at once, default 1; the bare driver then runs as many).
import { WebSocket } from 'ws';
import { startBenchServer, runPlans } from '../server.js';
import { bareScript, runBare } from '../bare.js';
import { freshPort } from '../../test/support/fresh-port.js';
import { chain, layeredDag } from '../plans.js';

interface Frame { name: string; url: string; line: number; column: number; sourceID?: string }
interface Trace { timestamp: number; stackFrames: Frame[] }

const port = await freshPort();
const dag = process.env.DAG === '1';
const plan = dag ? layeredDag(3, 4) : chain(Number(process.env.STEPS ?? 20));
const b = await startBenchServer({ concurrency: dag ? 4 : 1, latencyMs: Number(process.env.LAT ?? 0), env: { BUN_INSPECT: `ws://127.0.0.1:${port}/orca-bench` } });
const ws = new WebSocket(`ws://127.0.0.1:${port}/orca-bench`);
await new Promise<void>((resolve, reject) => {
  ws.once('open', () => resolve());
  ws.once('error', reject);
});
let id = 0;
const pending = new Map<number, (v: unknown) => void>();
const events: Array<{ method: string; params: any }> = [];
ws.on('message', (data) => {
  const msg = JSON.parse(String(data));
  if (msg.id !== undefined) pending.get(msg.id)?.(msg.result ?? msg.error);
  else events.push(msg);
});
const send = (method: string, params: Record<string, unknown> = {}) =>
  new Promise<any>((resolve) => {
    const n = ++id;
    pending.set(n, resolve);
    ws.send(JSON.stringify({ id: n, method, params }));
  });
try {
  await send('ScriptProfiler.startTracking', { includeSamples: true });
  const t0 = Date.now();
  const copies = Number(process.env.PLANS ?? 1);
  const runs = await runPlans(b, Array.from({ length: copies }, (_, k) => ({ plan: { ...plan, goal: `${plan.goal} #${k}` }, request: `Run it #${k}` })));
  const run = runs[0]!;
  const planEnd = Date.now();
  b.setScript(bareScript());
  const bare = (await Promise.all(runs.map(() => runBare(b, plan, dag ? 4 : 1))))[0]!;
  console.log(`plan: ${run.approvalToCompletedMs} ms approval→completed (${(run.approvalToCompletedMs / plan.steps.length).toFixed(0)} ms/step), whole turn ${run.totalWallMs.toFixed(0)} ms; then the bare driver on the same plan: ${bare.wallMs.toFixed(0)} ms`);
  await send('ScriptProfiler.stopTracking');
  for (let i = 0; i < 100 && !events.some((e) => e.method === 'ScriptProfiler.trackingComplete'); i++) await new Promise((r) => setTimeout(r, 100));
  const done = events.find((e) => e.method === 'ScriptProfiler.trackingComplete');
  if (!done) throw new Error(`no trackingComplete; events: ${events.map((e) => e.method).join(', ')}`);
  const traces: Trace[] = done.params.samples?.stackTraces ?? [];
  console.log(`${traces.length} samples`);
  const report = (label: string, from: number, to: number) => {
    // ScriptProfiler timestamps are seconds since the profiler's start; map by proportion of wall time.
    const inWindow = traces.filter((t) => t.timestamp >= from && t.timestamp < to);
    const self = new Map<string, number>();
    const byOrigin = new Map<string, number>();
    const inclusive = new Map<string, number>();
    for (const t of inWindow) {
      const top = t.stackFrames[0];
      const key = top ? `${top.name || '(anonymous)'} ${top.url.replace(/^.*\/(dist|src)\//, '$1/').slice(-70)}:${top.line}` : '(idle/native)';
      self.set(key, (self.get(key) ?? 0) + 1);
      const plugin = t.stackFrames.some((f) => f.url.includes('/dist/') && !f.url.includes('node_modules'));
      const origin = !top ? '(no JS frame)' : plugin ? 'stack includes the plugin (dist/)' : 'OpenCode / Bun only';
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + 1);
      const seen = new Set<string>();
      for (const f of t.stackFrames) {
        const k = `${f.name || '(anonymous)'} ${f.url.replace(/^.*\/(dist|src)\//, '$1/').slice(-60)}`;
        if (seen.has(k)) continue;
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + 1);
      }
    }
    const n = inWindow.length || 1;
    console.log(`\n--- ${label}: ${inWindow.length} samples`);
    for (const [k, v] of [...byOrigin].sort((a, b) => b[1] - a[1])) console.log(`${((100 * v) / n).toFixed(1).padStart(5)}%  ${k}`);
    console.log('top self:');
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * v) / n).toFixed(1).padStart(5)}%  ${k}`);
    console.log('top inclusive:');
    for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${((100 * v) / n).toFixed(1).padStart(5)}%  ${k}`);
  };
  const first = traces[0]?.timestamp ?? 0;
  const last = traces.at(-1)?.timestamp ?? 0;
  const wall = (Date.now() - t0) / 1000;
  const planFrac = (planEnd - t0) / 1000 / wall;
  report('plan run (orca turn included)', first, first + (last - first) * planFrac);
  report('the bare driver', first + (last - first) * planFrac, last + 1);
} finally {
  ws.close();
  await b.stop();
}
