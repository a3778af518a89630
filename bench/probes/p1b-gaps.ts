// Where Orca's P1b time goes on the critical path, against the bare driver's: per layer of the DAG,
// the gap from the previous layer's last model reply (or the approval; the bare run's start) to the
// layer's first model request, then the tail (last reply → plan completed; → the bare run's end).
// Then, ms after the reply that ended layer 1 and layer 3, the states of the step that ended it and
// of layer 2's first step; with GIT_TRACE=1 the git processes the server ran around that boundary.
// Measured 2026-11-29 in the shared tree: Orca's gaps ~300 / 650 / 600 / 380 ms against the bare
// driver's ~250 / 350 / 350 / 90: the capture of the landed tree (~200 ms, git) sits between layers.
// env: ROUNDS (default 3), LAT, CONC, ISOLATION (worktree|none), PLUGIN (a dist's index.js URL), GIT_TRACE=1,
// WRITE=1 (each step, Orca's and the bare driver's, first writes src/<step>.txt with the write tool, then answers: two model calls).
import { rmSync } from 'node:fs';
import { bareScript, runBare } from '../bare.js';
import { layeredDag } from '../plans.js';
import { join } from 'node:path';
import { runPlans, SPECIALIST_AGENTS, startBenchServer, stepIdOf } from '../server.js';
import { stepResult } from '../plans.js';
import { jsonReply, team, type AgentScript } from '../../test/e2e/team.js';
import { lastToolResult, type RecordedRequest } from '../../test/support/scripted-model.js';
import { gitProcesses, gitTraceFolder } from '../git-trace.js';
const trace = process.env.GIT_TRACE === '1' ? gitTraceFolder() : undefined;

const rounds = Number(process.env.ROUNDS ?? 3);
const latencyMs = Number(process.env.LAT ?? 300);
const concurrency = Number(process.env.CONC ?? 4);
const dag = layeredDag(3, 4);
const layerOf = (id: string) => Number(/^l(\d+)/.exec(id)?.[1] ?? 0);
const b = await startBenchServer({ concurrency, latencyMs, ...(process.env.PLUGIN ? { pluginUrl: process.env.PLUGIN } : {}), ...(process.env.ISOLATION ? { pluginOptions: { isolation: { mode: process.env.ISOLATION } } } : {}), git: true, ...(trace ? { env: { GIT_TRACE2_EVENT: trace } } : {}) });
const writes = process.env.WRITE === '1';
let written = 0;
/** WRITE=1: a step's first call writes its own file where it works, the next answers. */
const writing: AgentScript = (req: RecordedRequest) => {
  const id = stepIdOf(req) ?? 'unknown';
  if (lastToolResult(req)) return jsonReply(stepResult(id));
  const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim() ?? b.server.projectDir;
  return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'src', `${id}.txt`), content: `${id} write ${++written}\n` } }] };
};
const bareWriting = () => team(Object.fromEntries(SPECIALIST_AGENTS.map((a) => [a, writing])));
function gaps(reqs: Array<{ at: number; id: string }>, start: number, end: number) {
  const out: number[] = [];
  let prevEnd = start;
  for (let l = 1; l <= 3; l++) {
    const mine = reqs.filter((r) => layerOf(r.id) === l);
    out.push(Math.min(...mine.map((r) => r.at)) - prevEnd);
    prevEnd = Math.max(...mine.map((r) => r.at)) + latencyMs;
  }
  out.push(end - prevEnd);
  return out.map((x) => x.toFixed(0)).join(' / ');
}
try {
  for (let i = 0; i < rounds; i++) {
    b.setScript(writes ? bareWriting() : bareScript());
    const t0 = Date.now();
    const bare = await runBare(b, dag, concurrency);
    const t1 = Date.now();
    const bareReqs = bare.requests.map((r) => ({ at: r.at, id: stepIdOf(r) ?? '' }));
    const [run] = await runPlans(b, [{ plan: { ...dag, goal: `${dag.goal} r${i}` }, request: `Run round ${i}` }], writes ? { specialist: writing } : {});
    const tA = run!.approvedAt;
    const orcaReqs = run!.steps.flatMap((s) => s.requests.map((at) => ({ at: at + tA, id: s.id })));
    const last = (l: number) => run!.steps.filter((s) => layerOf(s.id) === l).sort((a, b) => b.requests.at(-1)! - a.requests.at(-1)!)[0]!;
    for (const l of [1, 3]) {
      const s = last(l);
      const r = s.requests.at(-1)! + latencyMs;
      console.log(`  layer ${l} last ${s.id}: ${s.states.filter((x) => x.at >= r - 50).map((x) => `${x.state}+${(x.at - r).toFixed(0)}`).join(' ')}`);
    }
    const firstL2 = run!.steps.filter((s) => layerOf(s.id) === 2).sort((a, b) => a.requests[0]! - b.requests[0]!)[0]!;
    const r1 = last(1).requests.at(-1)! + latencyMs;
    console.log(`  layer 2 first ${firstL2.id}: ${firstL2.states.map((x) => `${x.state}+${(x.at - r1).toFixed(0)}`).join(' ')} req+${(firstL2.requests[0]! - r1).toFixed(0)}; plan end +${(run!.endedAt - tA - last(3).requests.at(-1)! - latencyMs).toFixed(0)}`);
    if (trace) for (const g of gitProcesses(trace, tA + r1 - 400, tA + r1 + 700)) console.log(`    git +${(g.at - tA - r1).toFixed(0)} ${g.ms.toFixed(0)}ms ${g.opencodeSnapshot ? 'oc' : ''} ${g.verb} ${g.argv.slice(0, 4).join(' ')}`);
    console.log(`round ${i}: bare ${t1 - t0} ms gaps ${gaps(bareReqs, t0, t1)} | orca ${(run!.endedAt - tA).toFixed(0)} ms gaps ${gaps(orcaReqs, tA, run!.endedAt)}`);
  }
} finally {
  await b.stop();
  if (trace) rmSync(trace, { recursive: true, force: true });
}
