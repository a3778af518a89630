// Summarise a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by file,
// and inclusive time of selected functions. Usage: tsx bench/cpuprofile.ts FILE.cpuprofile [fn ...]
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export function summarizeProfile(path: string, inclusiveOf: string[] = [], top = 25) {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const short = (url: string) => url.replace(/^.*\/node_modules\//, 'nm/').replace(/^.*\/work\/main\//, '').replace(/^file:\/\//, '');
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${short(url)}:${lineNumber + 1}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    const file = short(url) || `(${functionName})`;
    fileSelf.set(file, (fileSelf.get(file) ?? 0) + us);
  }
  // Inclusive: a sample counts for a function if it appears anywhere on the sample's stack (once).
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const name = byId.get(n)!.callFrame.functionName;
      if (inclusiveOf.includes(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      }
    }
  }
  const sortDesc = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    totalMs: total / 1000,
    topFunctions: sortDesc(fnSelf).slice(0, top).map(([k, v]) => ({ fn: k, selfMs: v / 1000, pct: (100 * v) / total })),
    topFiles: sortDesc(fileSelf).slice(0, 15).map(([k, v]) => ({ file: k, selfMs: v / 1000, pct: (100 * v) / total })),
    inclusive: Object.fromEntries([...inclusive].map(([k, v]) => [k, { ms: v / 1000, pct: (100 * v) / total }])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, ...fns] = process.argv.slice(2);
  const s = summarizeProfile(file!, fns);
  console.log(`total sampled ${s.totalMs.toFixed(0)} ms`);
  for (const f of s.topFunctions) console.log(`${f.selfMs.toFixed(1).padStart(8)} ms ${f.pct.toFixed(1).padStart(5)}%  ${f.fn}`);
  console.log('--- by file');
  for (const f of s.topFiles) console.log(`${f.selfMs.toFixed(1).padStart(8)} ms ${f.pct.toFixed(1).padStart(5)}%  ${f.file}`);
  console.log('--- inclusive');
  for (const [k, v] of Object.entries(s.inclusive)) console.log(`${v.ms.toFixed(1).padStart(8)} ms ${v.pct.toFixed(1).padStart(5)}%  ${k}`);
}
