// Runs a chain on the real server with an instrumented copy of the plugin (ORCA_TRACE) to see
// where a step's time goes: the plugin's calls into OpenCode, its file writes, event-loop lag.
import { readFileSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { startBenchServer, runPlan, serverCpuMs } from '../server.js';
import { chain, layeredDag } from '../plans.js';
import { median } from '../stats.js';
const trace = '/tmp/orca-exp/trace.jsonl';
rmSync(trace, { force: true });
const dag = process.argv[2] === 'dag';
const b = await startBenchServer({ concurrency: dag ? 4 : 1, latencyMs: 300, env: { ORCA_TRACE: trace }, pluginUrl: pathToFileURL('/tmp/orca-exp/dist/index.js').href, config: process.env.NOSNAP ? { snapshot: false } : {} });
try {
  const c0 = serverCpuMs(b.server.projectDir);
  const r = await runPlan(b, dag ? layeredDag(3, 4) : chain(12), 'Run it');
  const c1 = serverCpuMs(b.server.projectDir);
  const n = r.steps.length;
  console.log('approval→completed', r.approvalToCompletedMs, 'per step', (r.approvalToCompletedMs / n).toFixed(0), 'server CPU per step', ((c1 - c0) / n).toFixed(0));
  const rows = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const by = (op: string) => rows.filter((r) => r.op === op).map((r) => r.t1 - r.t0);
  for (const op of ['create', 'messages', 'prompt', 'save', 'children', 'busy']) {
    const d = by(op);
    if (d.length) console.log(op.padEnd(9), 'n', d.length, 'median', median(d).toFixed(0), 'max', Math.max(...d), 'sum', d.reduce((a, b) => a + b, 0));
  }
  const lags = rows.filter((r) => r.op === 'lag');
  console.log('event-loop stalls >15ms:', lags.length, 'total', lags.reduce((a, r) => a + r.lag, 0), 'ms, max', Math.max(0, ...lags.map((r) => r.lag)));
  const tA = Date.parse('1970-01-01'); void tA;
  // per step: prompt call as seen by the plugin vs model request arrival
  const prompts = rows.filter((r) => r.op === 'prompt');
  const reqs = b.model.chatRequests().filter((q) => q.lastUser.includes('# Your step'));
  const pre = prompts.map((p) => { const q = reqs.find((q) => q.at >= p.t0 && q.at <= p.t1); return q ? q.at - p.t0 : NaN; });
  const post = prompts.map((p) => { const q = reqs.filter((q) => q.at >= p.t0 && q.at <= p.t1).at(-1); return q ? p.t1 - q.at - 300 : NaN; });
  console.log('plugin prompt: pre-model median', median(pre.filter(Number.isFinite)).toFixed(0), 'post-model median', median(post.filter(Number.isFinite)).toFixed(0));
} finally { await b.stop(); }
