// A/B of the in-process orchestration (P2a) on a copy of src/ (experiment-copy.ts): as built,
// stopping completed step actors, + compact JSON, + no fsync. Each variant in its own process,
// interleaved over ROUNDS (default 3), with ports that answer at once and with ports that yield
// one macrotask (2 plan-file writes per step, as with real I/O).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { srcCopy } from './experiment-copy.js';

const { dir } = srcCopy();
const child = `
import { runInProcess } from './bench/inprocess.js';
import { chain } from './bench/plans.js';
import { median, p95 } from './bench/stats.js';
await runInProcess(chain(10));
const out = [];
for (const yieldIo of [false, true]) {
  const all = []; let bytes = 0; let saves = 0;
  for (let i = 0; i < 3; i++) { const r = await runInProcess(chain(50), { yieldIo }); all.push(...r.perStepMs); bytes = r.planFileBytes; saves = r.saves; }
  out.push({ yieldIo, median: median(all), p95: p95(all), first10: median(all.filter((_, i) => i % 50 < 10)), last10: median(all.filter((_, i) => i % 50 >= 40)), savesPerStep: saves / 50, fileKiB: bytes / 1024 });
}
console.log(JSON.stringify(out));
`;
const variants: Array<[string, Record<string, string>]> = [
  ['as built', {}],
  ['stop completed steps', { EXP_STOPCHILD: '1' }],
  ['+ compact JSON', { EXP_STOPCHILD: '1', EXP_COMPACT: '1' }],
  ['+ no fsync', { EXP_STOPCHILD: '1', EXP_COMPACT: '1', EXP_NOFSYNC: '1' }],
];
const f = (x: number) => x.toFixed(2).padStart(5);
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  for (const [name, env] of variants) {
    const text = execFileSync(join(dir, 'node_modules', '.bin', 'tsx'), ['--input-type=module', '-e', child], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
    const [now, io] = JSON.parse(text.trim().split('\n').at(-1)!) as Array<Record<string, number>>;
    console.log(`${name.padEnd(22)} at once: median ${f(now!.median!)} p95 ${f(now!.p95!)} (steps 1-10 ${f(now!.first10!)}, 41-50 ${f(now!.last10!)}) ms | yielding ports: median ${f(io!.median!)} p95 ${f(io!.p95!)} ms, ${io!.savesPerStep} writes/step | file ${now!.fileKiB!.toFixed(0)} KiB`);
  }
}
