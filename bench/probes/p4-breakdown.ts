// Where PlanHost.loadIndex spends its time with 10,000 plan files, and what a summary cache
// (one index file validated by each plan file's mtime and size) would cost instead.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateProject, templatePlanFile } from '../many-plans.js';
import { orcaE2ePlan } from '../plans.js';
import { PlanStore, parsePlanFileText } from '../../src/persistence/plan-store.js';
import { isPlanId } from '../../src/persistence/plan-id.js';
import { migratePlanFile } from '../../src/persistence/migrations.js';
import { planFile } from '../../src/persistence/plan-file.js';
import { summarize, createPlanIndex, type PlanSummary } from '../../src/persistence/plan-index.js';

const fileOf = (r: ReturnType<typeof parsePlanFileText>) => {
  if (!r.ok) throw new Error(r.reason);
  return r.file;
};
const N = Number(process.env.PLANS ?? 10_000);
const tpl = await templatePlanFile(orcaE2ePlan());
const gen = generateProject(orcaE2ePlan(), N, tpl.file);
tpl.cleanup();
const store = PlanStore.forProject(gen.projectDir);
const time = <T>(label: string, fn: () => T): T => {
  const t0 = performance.now();
  const out = fn();
  console.log(`${label.padEnd(58)} ${(performance.now() - t0).toFixed(0).padStart(5)} ms`);
  return out;
};
try {
  for (let round = 0; round < 2; round++) {
    console.log(`-- round ${round + 1} (${N} files of ${gen.fileBytes} B)`);
    const ids = time('listIds (readdir + id check + sort)', () => store.listIds());
    const texts = time('readFileSync of every file', () => ids.map((id) => readFileSync(store.pathOf(id), 'utf8')));
    const raws = time('JSON.parse of every file', () => texts.map((t) => JSON.parse(t)));
    const migrated = time('migratePlanFile', () => raws.map((r) => migratePlanFile(r)));
    const parsed = time('zod planFile.safeParse (whole file, snapshot included)', () => migrated.map((m) => planFile.safeParse(m)));
    time('summarize', () => parsed.map((p) => summarize(p.data!)));
    time('all of it: parsePlanFileText + summarize (= loadIndex body)', () => ids.map((id, i) => summarize(fileOf(parsePlanFileText(texts[i]!, id)))));
    // Prototype: a cache of summaries keyed by plan id, valid while the file's mtime and size match.
    const cachePath = join(store.dir, 'summaries.cache');
    const cache = Object.fromEntries(ids.map((id, i) => {
      const st = statSync(store.pathOf(id));
      return [id, { mtimeMs: st.mtimeMs, size: st.size, summary: summarize(fileOf(parsePlanFileText(texts[i]!, id))) }];
    }));
    writeFileSync(cachePath, JSON.stringify(cache));
    time('prototype: readdir + stat each file + read/parse cache + reset', () => {
      const c = JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, { mtimeMs: number; size: number; summary: PlanSummary }>;
      const summaries: PlanSummary[] = [];
      for (const e of readdirSync(store.dir)) {
        if (!e.endsWith('.json') || !isPlanId(e.slice(0, -5))) continue;
        const id = e.slice(0, -5);
        const st = statSync(join(store.dir, e));
        const hit = c[id];
        if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) summaries.push(hit.summary);
        else summaries.push(summarize(store.load(id)));
      }
      createPlanIndex().trigger.reset({ summaries });
      return summaries.length;
    });
    rmSync(cachePath);
  }
} finally {
  rmSync(gen.projectDir, { recursive: true, force: true });
}
