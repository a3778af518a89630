// Server CPU and latency of the calls the plugin makes around each dispatch, from outside:
// session.create (with parent + metadata), session.children (50 children), session.messages (fresh session).
import { startBenchServer, serverCpuMs } from '../server.js';
import { median } from '../stats.js';
const b = await startBenchServer({ concurrency: 1, latencyMs: 0 });
const c = b.server.client;
const dir = b.server.projectDir;
const measure = async (label: string, n: number, fn: (i: number) => Promise<unknown>) => {
  const t: number[] = [];
  const cpu0 = serverCpuMs(dir);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    t.push(performance.now() - t0);
  }
  console.log(`${label.padEnd(44)} median ${median(t).toFixed(1)} ms, server CPU ${((serverCpuMs(dir) - cpu0) / n).toFixed(1)} ms/call`);
};
try {
  const parent = (await c.session.create({ title: 'parent' })).data!.id;
  const ids: string[] = [];
  await measure('session.create (parentID, metadata)', 50, async (i) => {
    const res = await c.session.create({ title: `child ${i}`, parentID: parent, metadata: { orca: { plan_id: 'p', step_id: `s${i}`, attempt: 1, idempotency_key: `p:s${i}:1` } } } as never);
    ids.push(res.data!.id);
  });
  await measure('session.children (50 children)', 30, () => c.session.children({ sessionID: parent }));
  await measure('session.messages (fresh session)', 30, (i) => c.session.messages({ sessionID: ids[i]! }));
  await measure('session.status', 30, () => c.session.status());
} finally {
  await b.stop();
}
