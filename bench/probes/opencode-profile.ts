// Backs docs/development.md, "Profiling": one more step of Orca's in a warm slot costs OpenCode's
// JavaScript thread about 45 ms more than a bare prompt; src/workspace/worktrees.ts cites its S8=1.
// Samples the JavaScript of the opencode server itself (a Bun-compiled binary: `--cpu-prof` is not
// honoured, but BUN_INSPECT opens the WebKit inspector, whose ScriptProfiler samples stacks, about
// one sample per millisecond of JavaScript) and compares what one more step costs OpenCode's thread
// when Orca runs the plan against the bare driver (bench/bare.ts) on the same server.
// Each run is profiled on its own (start/stop tracking around it: the samples' timestamps cannot be
// mapped to wall time reliably, many read 0). Per extra step = (12-step DAG − 1-step plan) / 11, so
// the orca and planner turns and the approval cancel out.
// env: ROUNDS (default 3), LAT (default 300), CONC (default 4), ISOLATION=none (the shared tree; default: worktree slots),
// S8=1 (instead: eight copies of the DAG at once, after a warm-up round of them, profiled whole: what S8x12 costs the thread).
import { WebSocket } from 'ws';
import { freshPort } from '../../test/support/fresh-port.js';
import { bareScript, runBare } from '../bare.js';
import { layeredDag } from '../plans.js';
import { runPlans, startBenchServer } from '../server.js';

interface Frame { name: string; url: string; line: number }
interface Trace { stackFrames: Frame[] }
interface Tally { inclusive: Map<string, number>; self: Map<string, number>; samples: number; plugin: number }

const rounds = Number(process.env.ROUNDS ?? 3);
const concurrency = Number(process.env.CONC ?? 4);
const plan = layeredDag(3, 4);
const one = { ...plan, goal: `${plan.goal} (one step)`, steps: plan.steps.slice(0, 1) };
const port = await freshPort();
const b = await startBenchServer({ concurrency, latencyMs: Number(process.env.LAT ?? 300), env: { BUN_INSPECT: `ws://127.0.0.1:${port}/orca-bench` }, ...(process.env.ISOLATION === 'none' ? { pluginOptions: { isolation: { mode: 'none' } } } : {}) });
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
const frameKey = (f: Frame) => `${f.name || '(anonymous)'} ${f.url.replace(/^.*\/(dist|src)\//, '$1/').replace('/$bunfs/root/', '').slice(-50)}:${f.line}`;
const tally = (): Tally => ({ inclusive: new Map(), self: new Map(), samples: 0, plugin: 0 });

/** Runs `fn` with the profiler on and adds its samples to `into`. */
async function profiled(into: Tally, fn: () => Promise<unknown>) {
  events.length = 0;
  await send('ScriptProfiler.startTracking', { includeSamples: true });
  await fn();
  await send('ScriptProfiler.stopTracking');
  for (let i = 0; i < 100 && !events.some((e) => e.method === 'ScriptProfiler.trackingComplete'); i++) await new Promise((r) => setTimeout(r, 100));
  const done = events.find((e) => e.method === 'ScriptProfiler.trackingComplete');
  if (!done) throw new Error(`no trackingComplete; events: ${events.map((e) => e.method).join(', ')}`);
  for (const t of (done.params.samples?.stackTraces ?? []) as Trace[]) {
    into.samples++;
    if (t.stackFrames.some((f) => f.url.includes('/dist/') && !f.url.includes('node_modules'))) into.plugin++;
    for (const key of new Set(t.stackFrames.map(frameKey))) into.inclusive.set(key, (into.inclusive.get(key) ?? 0) + 1);
    // The innermost frame of the plugin's own code, if any: where the plugin spends what it causes.
    const own = t.stackFrames.find((f) => f.url.includes('/dist/') && !f.url.includes('node_modules'));
    if (own) into.self.set(frameKey(own), (into.self.get(frameKey(own)) ?? 0) + 1);
  }
}

/** S8=1: the whole of eight plans at once, after one warm-up round of them (slots made and warm). */
async function profileS8() {
  const plans = (tag: string) => Array.from({ length: 8 }, (_, k) => ({ plan: { ...plan, goal: `S8 ${tag} ${k}` }, request: `Run S8 ${tag} copy ${k}` }));
  await runPlans(b, plans('warm-up'));
  const t = tally();
  await profiled(t, () => runPlans(b, plans('measured')));
  console.log(`samples (≈ ms of JavaScript on OpenCode's thread) over eight plans at once: ${t.samples}; with the plugin's own code on the stack ${t.plugin}`);
  const top = (m: Map<string, number>, n: number) => [...m].sort((x, y) => y[1] - x[1]).slice(0, n);
  console.log('inclusive samples, top 40:');
  for (const [k, v] of top(t.inclusive, 40)) console.log(`${String(v).padStart(7)}  ${k}`);
  console.log("the plugin's innermost function on the stack, top 25:");
  for (const [k, v] of top(t.self, 25)) console.log(`${String(v).padStart(7)}  ${k}`);
}

/** Per extra step of the DAG, Orca against the bare driver (the default). */
async function profilePerStep() {
  // Warm-up, not counted.
  b.setScript(bareScript());
  await runBare(b, plan, concurrency);
  await runPlans(b, [{ plan: { ...plan, goal: `${plan.goal} (warm-up)` }, request: 'Run the warm-up' }]);
  const bare = tally();
  const bareOne = tally();
  const orca = tally();
  const orcaOne = tally();
  for (let i = 0; i < rounds; i++) {
    b.setScript(bareScript());
    await profiled(bare, () => runBare(b, plan, concurrency));
    await profiled(bareOne, () => runBare(b, one, concurrency));
    await profiled(orca, () => runPlans(b, [{ plan: { ...plan, goal: `${plan.goal} r${i}` }, request: `Run round ${i}` }]));
    await profiled(orcaOne, () => runPlans(b, [{ plan: { ...one, goal: `${one.goal} r${i}` }, request: `Run one step, round ${i}` }]));
  }
  const extra = plan.steps.length - 1;
  const perStep = (all: Tally, single: Tally, key?: string) =>
    ((key ? (all.inclusive.get(key) ?? 0) - (single.inclusive.get(key) ?? 0) : all.samples - single.samples) / rounds / extra);
  console.log(`samples (≈ ms of JavaScript on OpenCode's thread) per extra step: bare ${perStep(bare, bareOne).toFixed(1)}, Orca ${perStep(orca, orcaOne).toFixed(1)}`);
  console.log(`samples with the plugin's own code on the stack per extra step: ${((orca.plugin - orcaOne.plugin) / rounds / extra).toFixed(1)}`);
  const keys = new Set([...bare.inclusive.keys(), ...orca.inclusive.keys()]);
  const rows = [...keys]
    .map((k) => ({ k, orca: perStep(orca, orcaOne, k), bare: perStep(bare, bareOne, k) }))
    .sort((x, y) => y.orca - y.bare - (x.orca - x.bare))
    .slice(0, 40);
  console.log('inclusive samples per extra step, Orca − bare (Orca, bare):');
  for (const r of rows) console.log(`${(r.orca - r.bare).toFixed(1).padStart(6)} (${r.orca.toFixed(1)}, ${r.bare.toFixed(1)})  ${r.k}`);
  const ownRows = [...orca.self.keys()].map((k) => ({ k, n: ((orca.self.get(k) ?? 0) - (orcaOne.self.get(k) ?? 0)) / rounds / extra })).sort((x, y) => y.n - x.n).slice(0, 25);
  console.log("the plugin's innermost function on the stack, samples per extra step:");
  for (const r of ownRows) console.log(`${r.n.toFixed(1).padStart(6)}  ${r.k}`);
}

try {
  await (process.env.S8 === '1' ? profileS8() : profilePerStep());
} finally {
  ws.close();
  await b.stop();
}
