// What every request carries (issue 26): the characters a model request costs before the model
// has read a word of the task, per Orca role against OpenCode's own `build` agent, and how much of
// it a provider's prompt cache can reuse between steps.
//   W0  bytes Orca adds to a `build` request (the plugin loaded minus not loaded; target 0).
//   W1  per Orca role, the first request of a session of that role: system, tools, whole body, and
//       the whole body against `build` without Orca.
//   W2  the byte-identical leading share of the fixed part between two sibling steps of one role.
//   W3  the characters of every request of a whole plan (orca, planner, steps, reviews) against
//       the bare driver's for the same steps, for two plan sizes.
// `npx tsx bench/carry.ts` runs W0, W1 (shared tree) and W3 alone; `npm run bench` adds W1 in
// worktrees and W2 from the P1b runs.
import { agentOf, isFixRequest, isReviewRequest } from '../test/e2e/team.js';
import { text, type RecordedRequest } from '../test/support/scripted-model.js';
import { bareScript, runBare } from './bare.js';
import { runBench } from './lifecycle.js';
import { layeredDag, type BenchPlan, type BenchStep } from './plans.js';
import { runPlan, startBenchServer, stepIdOf, type BenchServer, type PlanRun } from './server.js';
import { median } from './stats.js';

/** Orca's roles, in the order the table prints them. */
export const ROLES = ['orca', 'planner', 'coder', 'tester', 'reviewer', 'researcher', 'document-writer', 'architect'] as const;
export type Role = (typeof ROLES)[number];

/** W1's targets: a role's whole first request at most this share of `build`'s (without Orca); absent = info. */
export const ROLE_TARGET: Partial<Record<Role, number>> = {
  planner: 0.45,
  coder: 0.6,
  tester: 0.6,
  reviewer: 0.6,
  researcher: 0.6,
  'document-writer': 0.6,
  architect: 0.6,
};
/** W2's target: the leading share of sibling steps' fixed parts. */
export const SHARE_TARGET = 0.9;

/** Characters (UTF-16 code units, as `.length` counts them) of one request's parts. */
export interface Carried {
  /** The system messages' text, joined by a blank line (RecordedRequest.system). */
  system: number;
  /** The `tools` array as JSON, and how many tools it offers. */
  tools: number;
  toolCount: number;
  /** The whole request body as JSON. */
  whole: number;
}

export function carried(req: RecordedRequest): Carried {
  return { system: req.system.length, tools: JSON.stringify(req.body.tools ?? []).length, toolCount: req.tools.length, whole: JSON.stringify(req.body).length };
}

/**
 * The fixed part of a request: what stays the same from one request of a role to the next unless
 * the plugin or OpenCode varies it, and what a provider's prompt cache keys on first. Precisely:
 * the request's `tools` array as JSON (JSON.stringify of the body as the scripted model parsed it:
 * OpenCode sends compact JSON, so this is the bytes as sent), followed by the system messages as
 * JSON (the array of every `role: "system"` message object, in request order). That is the order
 * the cache reads them in: OpenAI caches the longest matching prefix of the request as its
 * template renders it, tools first; Anthropic's cache order is tools, then system, then messages.
 * The user's messages (the step's own prompt) come after, and are not part of it.
 */
export function fixedPart(req: RecordedRequest): string {
  const system = req.messages.filter((m) => m.role === 'system');
  return JSON.stringify(req.body.tools ?? []) + JSON.stringify(system);
}

/** Length of the common prefix of `a` and `b`. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface SiblingShare {
  planId: string;
  agent: string;
  steps: [string, string];
  /** Common prefix / the longer fixed part. */
  share: number;
  prefix: number;
  lengths: [number, number];
  /** Where the two first differ: the tools JSON ends at `toolsLength`; a few characters of each side from there. */
  toolsLength: number;
  differs?: { at: number; a: string; b: string };
}

/** The leading share of the fixed parts of two requests. */
export function leadingShare(a: RecordedRequest, b: RecordedRequest): Omit<SiblingShare, 'planId' | 'agent' | 'steps'> {
  const fa = fixedPart(a);
  const fb = fixedPart(b);
  const prefix = commonPrefix(fa, fb);
  const longer = Math.max(fa.length, fb.length);
  return {
    share: longer === 0 ? 1 : prefix / longer,
    prefix,
    lengths: [fa.length, fb.length],
    toolsLength: JSON.stringify(a.body.tools ?? []).length,
    ...(prefix < longer ? { differs: { at: prefix, a: fa.slice(prefix, prefix + 60), b: fb.slice(prefix, prefix + 60) } } : {}),
  };
}

/**
 * W2 of one plan run: for each set of siblings (steps with the same dependencies) of one agent,
 * the first two steps' first requests. The bench DAG's layers hold two coders each (l<k>w1, l<k>w4).
 */
export function siblingShares(run: PlanRun, plan: BenchPlan): SiblingShare[] {
  const first = new Map<string, RecordedRequest>();
  for (const req of run.requests) {
    const id = stepIdOf(req);
    if (id && !first.has(id) && !isReviewRequest(req)) first.set(id, req);
  }
  const groups = new Map<string, BenchStep[]>();
  for (const step of plan.steps) {
    const key = `${step.agent} after ${[...step.depends_on].sort().join(',')}`;
    groups.set(key, [...(groups.get(key) ?? []), step]);
  }
  const out: SiblingShare[] = [];
  for (const steps of groups.values()) {
    const [a, b] = steps;
    const ra = a && first.get(a.id);
    const rb = b && first.get(b.id);
    if (!a || !b || !ra || !rb) continue;
    out.push({ planId: run.planId, agent: a.agent, steps: [a.id, b.id], ...leadingShare(ra, rb) });
  }
  return out;
}

/** One step per specialist role, none depending on another, each declaring its own file. */
export function rolesPlan(): BenchPlan {
  const agents = ROLES.filter((r) => r !== 'orca' && r !== 'planner');
  return {
    type: 'plan',
    goal: 'Benchmark roles: one step per specialist',
    steps: agents.map((agent, i) => ({ id: `r${i + 1}`, agent, description: `Role step ${i + 1}: do the ${agent}'s part of the change to module r${i + 1}.`, depends_on: [], files: [`src/r${i + 1}.ts`] })),
    assumptions: ['benchmark fixture'],
    risks: ['none'],
    verification: ['every step reports success'],
  };
}

/** W1 of one plan run: the first request of each role's session (a reviewer's step, not a review). */
export function roleRequests(run: PlanRun): Partial<Record<Role, Carried>> {
  const out: Partial<Record<Role, Carried>> = {};
  for (const req of run.requests) {
    const role = agentOf(req) as Role;
    if (!ROLES.includes(role) || out[role] || isReviewRequest(req) || isFixRequest(req)) continue;
    out[role] = carried(req);
  }
  return out;
}

/** Runs the roles plan on `bench` and returns each role's first request. */
export async function measureRoles(bench: BenchServer, label: string): Promise<{ run: PlanRun; roles: Partial<Record<Role, Carried>> }> {
  const plan = rolesPlan();
  const run = await runPlan(bench, { ...plan, goal: `${plan.goal} (${label})` }, `Run the benchmark roles plan: ${label}`);
  if (run.status !== 'completed') throw new Error(`roles plan ${run.planId} ended ${run.status}`);
  return { run, roles: roleRequests(run) };
}

export interface PlanChars {
  steps: number;
  /** Characters of every chat request of Orca's run (whole bodies), by who sent it, and in all. */
  orca: { total: number; requests: number; byPart: Record<string, { requests: number; chars: number }> };
  /** The bare driver's requests for the same steps. */
  bare: { total: number; requests: number };
  /** orca.total / bare.total. */
  ratio: number;
  perStep: { orca: number; bare: number };
}

/** Which part of a plan a request belongs to (W3's breakdown). */
function partOf(req: RecordedRequest): string {
  const agent = agentOf(req);
  if (agent === 'orca' || agent === 'planner') return agent;
  if (isReviewRequest(req)) return 'reviews';
  if (isFixRequest(req)) return 'fixes';
  return 'steps';
}

export function planChars(run: PlanRun, bare: { requests: RecordedRequest[] }, steps: number): PlanChars {
  const byPart: PlanChars['orca']['byPart'] = {};
  let total = 0;
  for (const req of run.requests) {
    const chars = JSON.stringify(req.body).length;
    const part = (byPart[partOf(req)] ??= { requests: 0, chars: 0 });
    part.requests++;
    part.chars += chars;
    total += chars;
  }
  const bareTotal = bare.requests.reduce((sum, r) => sum + JSON.stringify(r.body).length, 0);
  return {
    steps,
    orca: { total, requests: run.requests.length, byPart },
    bare: { total: bareTotal, requests: bare.requests.length },
    ratio: total / bareTotal,
    perStep: { orca: total / steps, bare: bareTotal / steps },
  };
}

export interface CarryFigures {
  /** W0: the first request of a `build` session, without and with the plugin loaded. */
  build: { without: Carried; withOrca: Carried; addedBytes: number; identical: boolean };
  /** W1 in the shared tree (isolation none, review gate on as by default). */
  rolesShared: Partial<Record<Role, Carried>>;
  /** W3 for each plan size. */
  plans: PlanChars[];
}

/** W3's plan sizes: the bench DAG's shape (layers of 4 file-changing steps, each needing the whole layer before) at 2 and 4 layers. */
export const W3_PLANS = () => [layeredDag(2, 4), layeredDag(4, 4)];

/**
 * W0, W1 (shared tree) and W3 on two servers on one scripted model at latency 0: OpenCode without
 * Orca, and with Orca in its defaults but for isolation none (each worktree costs its step an
 * OpenCode instance, and where a step works changes its request by its working directory only).
 */
export async function measureCarry(say: (s?: string) => void): Promise<CarryFigures> {
  let t0 = performance.now();
  const lap = () => {
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    t0 = performance.now();
    return `(${s} s)`;
  };
  const orca = await startBenchServer({ concurrency: 4, latencyMs: 0, pluginOptions: { review: {}, isolation: { mode: 'none' } } });
  try {
    const plain = await startBenchServer({ concurrency: 4, latencyMs: 0, plugin: false });
    let without: { req: RecordedRequest; server: BenchServer };
    try {
      without = { req: await buildRequest(plain), server: plain };
    } finally {
      await plain.stop();
    }
    const withOrca = await buildRequest(orca);
    const neutral = (req: RecordedRequest, server: BenchServer) => JSON.stringify(req.body).replaceAll(server.server.projectDir, '<project>').replaceAll(server.server.homeDir, '<home>');
    const a = neutral(without.req, without.server);
    const b = neutral(withOrca, orca);
    const build = { without: carried(without.req), withOrca: carried(withOrca), addedBytes: Buffer.byteLength(b) - Buffer.byteLength(a), identical: a === b };
    say(`W0: first request of a build session: without Orca ${fmtCarried(build.without)}; with Orca loaded ${fmtCarried(build.withOrca)}; Orca adds ${build.addedBytes} bytes (${build.identical ? 'byte-identical' : 'NOT identical'} once the project and home paths are masked) ${lap()}`);

    const { roles: rolesShared } = await measureRoles(orca, 'shared tree');
    say(`W1 in the shared tree (isolation none; review gate on) ${lap()}:`);
    for (const line of roleLines(rolesShared, build.without)) say(`  ${line}`);

    const plans: PlanChars[] = [];
    for (const plan of W3_PLANS()) {
      orca.setScript(bareScript());
      const bare = await runBare(orca, plan, 4);
      const run = await runPlan(orca, { ...plan, goal: `${plan.goal} (W3)` }, `Run the benchmark plan: W3 ${plan.steps.length} steps`);
      if (run.status !== 'completed') throw new Error(`W3 plan ${run.planId} ended ${run.status}`);
      const figures = planChars(run, bare, plan.steps.length);
      plans.push(figures);
      say(`W3 ${plan.steps.length} steps (${plan.goal}): ${planCharsLine(figures)} ${lap()}`);
    }
    return { build, rolesShared, plans };
  } finally {
    await orca.stop();
  }
}

/** The first request of a new `build` session prompted with a short text, answered with text. */
export async function buildRequest(bench: BenchServer): Promise<RecordedRequest> {
  bench.setScript(() => text('ok'));
  const { client } = bench.server;
  const session = (await client.session.create({ title: 'bench build' }, { throwOnError: true })).data;
  const before = bench.model.chatRequests().length;
  await client.session.prompt({ sessionID: session.id, agent: 'build', parts: [{ type: 'text', text: 'Add a greet() function to src/greet.ts.' }] }, { throwOnError: true });
  const req = bench.model.chatRequests().slice(before)[0];
  if (!req) throw new Error('the build prompt sent no model request');
  return req;
}

const k = (n: number) => n.toLocaleString('en-US');
export const fmtCarried = (c: Carried) => `system ${k(c.system)}, tools ${k(c.tools)} (${c.toolCount}), whole ${k(c.whole)} chars`;

/** W1's lines: each role's characters and its whole request against `build`'s, with the target. */
export function roleLines(roles: Partial<Record<Role, Carried>>, build: Carried): string[] {
  return ROLES.map((role) => {
    const c = roles[role];
    if (!c) return `${role.padEnd(16)} no request seen`;
    const ratio = c.whole / build.whole;
    const target = ROLE_TARGET[role];
    return `${role.padEnd(16)} ${fmtCarried(c)} → ${ratio.toFixed(2)} × build${target === undefined ? ' (info)' : ` (target ≤ ${target}: ${ratio <= target ? 'pass' : 'FAIL'})`}`;
  });
}

export function planCharsLine(p: PlanChars): string {
  const parts = Object.entries(p.orca.byPart)
    .map(([name, v]) => `${name} ${k(v.chars)} (${v.requests})`)
    .join(', ');
  return `Orca ${k(p.orca.total)} chars in ${p.orca.requests} requests (${parts}); bare ${k(p.bare.total)} in ${p.bare.requests} → ${p.ratio.toFixed(2)}; per step ${k(Math.round(p.perStep.orca))} vs ${k(Math.round(p.perStep.bare))}`;
}

/** W2's summary over runs: the smallest and the median share, and one example of where they part. */
export function shareSummary(shares: SiblingShare[]) {
  const values = shares.map((s) => s.share);
  const worst = shares.reduce<SiblingShare | undefined>((w, s) => (!w || s.share < w.share ? s : w), undefined);
  return { pairs: shares.length, min: values.length ? Math.min(...values) : NaN, median: median(values), worst };
}

export function shareLine(label: string, shares: SiblingShare[]): string {
  const s = shareSummary(shares);
  if (!s.worst) return `${label}: no sibling pair seen`;
  const w = s.worst;
  const where = w.differs
    ? `; they part at char ${k(w.differs.at)} of ${k(Math.max(...w.lengths))} (${w.differs.at < w.toolsLength ? 'in the tools' : `in the system, ${k(w.differs.at - w.toolsLength)} chars in`}): ${JSON.stringify(w.differs.a)} vs ${JSON.stringify(w.differs.b)}`
    : '; identical';
  return `${label}: ${s.pairs} pairs, leading share min ${s.min.toFixed(3)}, median ${s.median.toFixed(3)} (${w.agent} ${w.steps.join('/')}${where})`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  await runBench(async () => {
    const figures = await measureCarry((s = '') => console.log(s));
    console.log(JSON.stringify(figures, null, 2));
  });
}
