// P4 alone (≈15 s): 10,000 plan files, plugin start with and without the summary cache, and
// orca_list_plans pages. env: PLANS (default 10000).
import { measureManyPlans } from '../many-plans.js';
import { orcaE2ePlan } from '../plans.js';
import { median } from '../stats.js';
const r = await measureManyPlans(orcaE2ePlan(), Number(process.env.PLANS ?? 10_000));
const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
console.log(`${r.plans} files of ${r.fileBytes} B (written in ${r.generateMs.toFixed(0)} ms)`);
console.log(`no cache: ${r.coldLoadIndexMs.toFixed(0)} ms; cached: ${f(r.loadIndexMs)} ms (median ${median(r.loadIndexMs).toFixed(0)}); ${r.changedPlans} changed: ${r.changedLoadIndexMs.toFixed(0)} ms; plugin fn: ${f(r.pluginStartMs)} ms`);
console.log(`list: median ${median(r.listMs).toFixed(1)} ms, ${r.listedPlans} plans, ${r.listOutputBytes} B, "${r.listMore}"; oldest page median ${median(r.listLastPageMs).toFixed(1)} ms`);
