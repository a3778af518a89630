// Every tool against random arguments, as a confused model might send them (OpenCode passes them to
// execute unchecked): each call gives a clear error or a valid result, and the plans keep being written.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '@opencode-ai/plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionMonitor } from '../../src/opencode/session-monitor.js';
import { assembleOrca, type Orca } from '../../src/composition-root.js';
import { newPlanId } from '../../src/persistence/plan-id.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { SPECIALIST_AGENTS } from '../../src/schemas/specialist-agents.js';
import { askPlannerTool } from '../../src/tools/ask-planner.js';
import { askSpecialistTool } from '../../src/tools/ask-specialist.js';
import { describePlanTool } from '../../src/tools/describe-plan.js';
import { listPlansTool } from '../../src/tools/list-plans.js';
import { fakeSessions } from '../support/fake-sessions.js';

const CALLS_PER_TOOL = 100;
/** Long enough to prove that errors quote a bad input, not repeat it. */
const HUGE = 'x'.repeat(10_240);

/** mulberry32: the same sequence every run, so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fuzzer(seed: number, known: () => string[]) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const value = (depth = 0): unknown =>
    pick<() => unknown>([
      () => pick(['', ' ', '\n', 'hello', 'Add a greet function', 'ünïcødé ✓', HUGE, 'plan_../../x', '../etc/passwd', 'ses_abc', 'ses_1', ...SPECIALIST_AGENTS]),
      () => (known().length > 0 ? pick(known()) : newPlanId()),
      () => newPlanId(),
      () => pick([0, -1, 1, 2.5, 42, 200, 201, 1e21, -0]),
      () => pick([null, true, false]),
      () => (depth > 1 ? [] : Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1))),
      () => (depth > 1 ? {} : { message: value(depth + 1), nested: value(depth + 1) }),
    ])();
  /** A value a model would plausibly send for a known argument, so valid calls happen too. */
  const plausible: Record<string, () => unknown> = {
    message: () => pick(['Add a greet function', 'What is in src?']),
    plan_id: () => (known().length > 0 ? pick(known()) : newPlanId()),
    limit: () => pick([1, 10, 50]),
    offset: () => pick([0, 3]),
    agent_id: () => pick(SPECIALIST_AGENTS),
    question: () => 'What does src/index.ts export?',
    session_id: () => pick(['ses_1', 'ses_2']),
  };
  /** An argument object: mostly the tool's own names, sometimes others (a misspelling, junk). */
  return (names: string[]): Record<string, unknown> => {
    const args: Record<string, unknown> = {};
    for (const name of [...names, 'planId', 'foo', 'constructor', 'messages']) {
      const wanted = names.includes(name) ? 0.7 : 0.05;
      if (next() >= wanted) continue;
      args[name] = plausible[name] && next() < 0.6 ? plausible[name]!() : value();
    }
    return args;
  };
}

let dir: string;
let orca: Orca;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'orca-fuzz-'));
  const sessions = fakeSessions((agent, text) => {
    if (agent === 'planner') {
      if (!text.includes('RUN THE PLAN')) return { type: 'answer', content: 'noted' };
      return {
        type: 'plan',
        goal: 'Write hello.txt',
        steps: [{ id: 'hello', agent: 'document-writer', description: 'Write hello.txt' }],
        assumptions: [],
        risks: [],
        verification: [],
      };
    }
    if (agent.endsWith('.readonly')) return 'a read-only answer';
    return { type: 'success', summary: `${agent} done`, artifacts: [] };
  });
  orca = assembleOrca({
    directory: dir,
    options: { hitl: { auto: { approval: 'approve' } }, review: { agents: [] } },
    sessions: sessions.port,
    asker: { ask: async () => ({ kind: 'unavailable', reason: 'no dialog in this test' }) },
    monitor: createSessionMonitor({ abort: async () => {}, log: () => {} }),
    log: () => {},
    showToast: () => {},
    notes: { post: () => {}, say: async () => true, restoreAfterTurn: () => {}, turnStarting: async () => {}, observe: () => {} },
  });
});
afterAll(async () => {
  await orca.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const context = (): ToolContext => ({
  sessionID: 'ses_orca',
  messageID: 'msg_1',
  agent: 'orca',
  directory: dir,
  worktree: dir,
  abort: new AbortController().signal,
  metadata: () => {},
  ask: async () => {},
});

/** The JSON a tool answered, whichever of its result shapes it used. */
async function call(tool: { execute(args: never, ctx: ToolContext): Promise<unknown> }, args: unknown) {
  const result = await tool.execute(args as never, context());
  return JSON.parse(typeof result === 'string' ? result : (result as { output: string }).output) as Record<string, unknown>;
}

const planFiles = () => (existsSync(join(dir, '.opencode', 'plans')) ? readdirSync(join(dir, '.opencode', 'plans')).filter((f) => f.endsWith('.json')) : []);

describe('every tool against random arguments', () => {
  const tools = () => ({
    orca_ask_planner: { tool: askPlannerTool(orca), names: ['message', 'plan_id'], ok: (r: Record<string, unknown>) => typeof r.plan_id === 'string' },
    orca_list_plans: { tool: listPlansTool(orca), names: ['limit', 'offset'], ok: (r: Record<string, unknown>) => typeof r.total === 'number' },
    orca_describe_plan: { tool: describePlanTool(orca), names: ['plan_id'], ok: (r: Record<string, unknown>) => typeof r.goal === 'string' },
    orca_ask_specialist: { tool: askSpecialistTool(orca), names: ['agent_id', 'question', 'session_id'], ok: (r: Record<string, unknown>) => typeof r.answer === 'string' },
  });

  it.each(['orca_ask_planner', 'orca_list_plans', 'orca_describe_plan', 'orca_ask_specialist'] as const)(
    `should answer ${CALLS_PER_TOOL} random calls of %s with a clear error or a valid result`,
    async (name) => {
      const { tool, names, ok } = tools()[name];
      const args = fuzzer(name.length * 7919, () => planFiles().map((f) => f.slice(0, -'.json'.length)));
      const kinds = new Map<string, number>();
      for (let i = 0; i < CALLS_PER_TOOL; i++) {
        const input = i % 25 === 24 ? [null, [], 'message', 7][i % 4] : args(names);
        const reply = await call(tool, input);
        const kind = reply.status === 'failure' ? String(reply.error_type) : 'ok';
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        if (reply.status !== 'failure') {
          expect(ok(reply), `${name}(${JSON.stringify(input).slice(0, 200)}) → ${JSON.stringify(reply).slice(0, 300)}`).toBe(true);
          continue;
        }
        const error = String(reply.error);
        // Clear: it says what was wrong; bounded: a 10 KB input is quoted, not echoed.
        expect(error.length, error.slice(0, 300)).toBeLessThan(1_000);
        expect(error).not.toContain('x'.repeat(200));
        if (kind === 'InvalidToolArgumentsError') {
          expect(error).toMatch(new RegExp(`^${name} was called with invalid arguments: .*(\`\\w+\`|expected the arguments to be an object)`));
        } else {
          expect(['PlanNotFoundError', 'Error'], `${kind}: ${error}`).toContain(kind);
        }
      }
      // The fuzzer reached both sides of the check, not only one.
      expect(kinds.get('InvalidToolArgumentsError') ?? 0).toBeGreaterThan(10);
      expect(kinds.get('ok') ?? 0).toBeGreaterThan(0);
    },
  );

  it('should still run a plan to completion afterwards, and every plan file on disk loads', async () => {
    const reply = await call(askPlannerTool(orca, { returns: 'outcome' }), { message: 'RUN THE PLAN: write hello.txt' });
    expect(reply).toMatchObject({ status: 'completed' });
    const store = new PlanStore(join(dir, '.opencode', 'plans'));
    expect(store.load(reply.plan_id as string).status).toBe('completed');
    const files = planFiles();
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(() => store.load(file.slice(0, -'.json'.length))).not.toThrow();
    expect(readdirSync(store.dir)).not.toContain('.quarantine');
  });
});
