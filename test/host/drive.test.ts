import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { drivePlan } from '../../src/host/drive.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanPolicy } from '../../src/machines/types.js';
import { idlePlanPorts } from '../../src/machines/ports.js';
import { autoChoice } from '../../src/decisions/auto-policy.js';
import { decisionEvent, gateKey, openGates, type Gate } from '../../src/machines/gates.js';
import type { PlanPorts } from '../../src/machines/ports.js';
import { instantPorts } from '../support/instant-ports.js';
import { turn } from '../support/turns.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { waitFor } from '../support/wait-for.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { waitingSummaries } from '../../src/persistence/plan-index.js';
import type { AutoPolicy } from '../../src/config/options.js';
import { statePath } from '../../src/persistence/plan-envelope.js';

const plan = {
  type: 'plan',
  goal: 'Greet the world',
  steps: [
    { id: 'impl', agent: 'coder', description: 'write greet.ts' },
    { id: 'docs', agent: 'document-writer', description: 'document greet' },
    { id: 'test', agent: 'tester', description: 'test greet', depends_on: ['impl', 'docs'] },
  ],
  assumptions: ['TypeScript'],
  risks: ['none'],
  verification: ['npm test'],
};

let dir: string;
/** Hosts made by setup: disposed (their last journal lines and files settled) before their folder goes. */
const hosts: PlanHost[] = [];
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orca-drive-'))));
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

function setup(
  reply: Parameters<typeof fakeSessions>[0],
  policy: AutoPolicy | undefined,
  plan: { policy?: Partial<PlanPolicy>; concurrency?: number; ports?: Partial<PlanPorts> } = {},
) {
  const fake = fakeSessions(reply);
  const store = new PlanStore(join(dir, 'plans'));
  const host = new PlanHost({
    store,
    // A test's own ports (the workspace's, say) over the fake sessions'.
    ports: { ...idlePlanPorts, ...opencodePorts(fake.port), ...plan.ports },
    ...(plan.concurrency ? { concurrency: plan.concurrency } : {}),
    // No verifying turn after the last step: these fakes answer step turns only (test/host/verification.test.ts has it).
    policy: { review_agents: [], verify_turn: false, ...plan.policy },
  });
  hosts.push(host);
  const resolve = async (gate: any) => {
    const choice = autoChoice(gate, policy);
    return choice ? { event: decisionEvent(gate, choice, { channel: 'auto', at: '2026-01-01T00:00:00.000Z' }) } : { waiting: 'no channel' };
  };
  return { ...fake, host, store, resolve };
}

const succeed = (agent: string, text: string) =>
  agent === 'planner'
    ? plan
    : { type: 'success', summary: `${agent} did ${/Your step: (\w+)/.exec(text)?.[1]}`, artifacts: [`${agent}.txt`], key_findings: [] };

describe('drivePlan with the OpenCode ports', () => {
  it('should run an approved plan to completed, threading dependency summaries and nothing else', async () => {
    const t = setup(succeed, { approval: 'approve' });
    const planId = t.host.create({ message: 'greet', callerSessionId: 'ses_root' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, t.resolve, new AbortController().signal);
    expect(result.kind).toBe('outcome');
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');

    const testPrompt = t.prompts.find((p) => p.agent === 'tester')!.text;
    expect(testPrompt).toContain('coder did impl');
    expect(testPrompt).toContain('document-writer did docs');
    expect(t.prompts.find((p) => p.agent === 'coder')!.text).not.toContain('document-writer did docs');
    // Every child session is a child of the caller's session.
    expect(t.created.every((c) => c.parentID === 'ses_root')).toBe(true);

    t.host.flush(planId);
    const file = JSON.parse(readFileSync(t.store.pathOf(planId), 'utf8'));
    expect(file.status).toBe('completed');
    expect(file.steps.map((s: any) => [s.id, s.status, s.output.summary])).toEqual([
      ['impl', 'completed', 'coder did impl'],
      ['docs', 'completed', 'document-writer did docs'],
      ['test', 'completed', 'tester did test'],
    ]);
    expect(file.decisions).toEqual([
      { gate: 'approval', option: 'Approve', channel: 'auto', at: '2026-01-01T00:00:00.000Z', text: 'auto policy hitl.auto.approval=approve' },
    ]);
  });

  it('should start the steps after one that landed in the shared tree once its tree is kept, while git diffs it, and record every diff', async () => {
    const calls: string[] = [];
    let testOpened!: () => void;
    const opened = new Promise<void>((resolve) => (testOpened = resolve));
    const diffOf = (stepId: string) => ({ files: [{ path: `${stepId}.ts`, status: 'added' as const, added: 1, removed: 0 }], undeclared: [], patch_path: null, base: `b-${stepId}`, result: `r-${stepId}`, where: 'shared' as const });
    const { host, store, resolve } = setup(succeed, { approval: 'approve' }, {
      policy: { workspace: 'shared' },
      ports: {
        openWorkspace: async ({ stepId }) => {
          calls.push(`open:${stepId}`);
          if (stepId === 'test') testOpened();
          return { kind: 'shared', dir, base: `b-${stepId}` };
        },
        captureStep: async ({ stepId }) => {
          calls.push(`capture:${stepId}`);
          return { result: `r-${stepId}` };
        },
        measureStep: async ({ stepId, result }) => {
          calls.push(`measure:${stepId}:${result}`);
          // The step's dependents start before its diff is in (a fallback keeps a wrong chart from hanging the test).
          if (stepId !== 'test') await Promise.race([opened, new Promise((resolve) => setTimeout(resolve, 3_000))]);
          calls.push(`measured:${stepId}`);
          return diffOf(stepId);
        },
      },
    });
    const planId = host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(host, planId, resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');

    const at = (call: string) => calls.indexOf(call);
    expect(at('capture:impl')).toBeLessThan(at('open:test'));
    expect(at('capture:docs')).toBeLessThan(at('open:test'));
    expect(at('measure:impl:r-impl')).toBeGreaterThan(at('capture:impl')); // the kept tree is diffed
    expect(at('open:test')).toBeLessThan(at('measured:impl'));
    expect(at('open:test')).toBeLessThan(at('measured:docs'));
    host.flush(planId);
    const file = JSON.parse(readFileSync(store.pathOf(planId), 'utf8'));
    expect(file.steps.map((s: any) => [s.id, s.status, s.diff?.result])).toEqual([
      ['impl', 'completed', 'r-impl'],
      ['docs', 'completed', 'r-docs'],
      ['test', 'completed', 'r-test'],
    ]);
  });

  it('should show a step that waits for a worktree slot as waiting (its chart in opening_workspace.waiting_for_slot), then run it once it holds one', async () => {
    let giveSlot!: () => void;
    const slotGiven = new Promise<void>((resolve) => (giveSlot = resolve));
    const followers = new Set<(waiting: boolean) => void>();
    const { host, store, resolve, prompts } = setup(succeed, { approval: 'approve' }, {
      policy: { workspace: 'worktree' },
      ports: {
        openWorkspace: async ({ stepId }) => {
          if (stepId === 'docs') {
            followers.forEach((tell) => tell(true));
            await slotGiven;
            followers.forEach((tell) => tell(false));
          }
          const root = join(dir, 'slots', stepId); // the session ports start a session only in a folder that exists
          mkdirSync(root, { recursive: true });
          return { kind: 'worktree', root, dir: root, base: 'b0' };
        },
        followSlot: ({ stepId }, listener) => {
          if (stepId !== 'docs') return () => {};
          followers.add(listener);
          return () => followers.delete(listener);
        },
        measureStep: async ({ stepId }) => ({ files: [], undeclared: [], patch_path: null, base: 'b0', result: `r-${stepId}`, where: 'worktree' as const }),
        mergeStep: async ({ stepId }) => ({ type: 'merged' as const, diff: { files: [], undeclared: [], patch_path: null, base: 'b0', result: `r-${stepId}`, where: 'worktree' as const } }),
      },
    });
    const planId = host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const driven = drivePlan(host, planId, resolve, new AbortController().signal);

    const docsPhase = () => {
      host.flush(planId);
      const file = store.load(planId);
      return statePathOf(file.snapshot.children['step:docs']);
    };
    await waitFor(() => docsPhase() === 'opening_workspace.waiting_for_slot', { description: 'docs waiting for a slot in the plan file' });
    expect(prompts.map((p) => p.agent)).not.toContain('document-writer'); // docs has no session yet
    giveSlot();
    const result = await driven;
    expect(result, JSON.stringify(result)).toMatchObject({ kind: 'outcome', tag: 'outcome.completed' });
    expect(prompts.map((p) => p.agent).filter((agent) => agent !== 'planner').sort()).toEqual(['coder', 'document-writer', 'tester']);
  });

  it('should stop at the approval gate and report waiting when no channel can answer', async () => {
    const t = setup(succeed, undefined);
    const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, t.resolve, new AbortController().signal);
    expect(result.kind).toBe('waiting');
    expect(result.kind === 'waiting' && result.gates[0]!.kind).toBe('approval');
    expect(t.prompts.some((p) => p.agent !== 'planner')).toBe(false);
    t.host.flush(planId);
    expect(waitingSummaries(t.host.index)).toMatchObject([{ plan_id: planId, waiting_for: 'approval', status: 'pending_approval' }]);
    expect(JSON.parse(readFileSync(t.store.pathOf(planId), 'utf8')).waiting_for).toBe('approval');
  });

  it('should send a correction prompt for malformed planner output, then fail clearly after two', async () => {
    const t = setup((agent) => (agent === 'planner' ? 'I think we should just do it.' : {}), undefined);
    const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, t.resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.failure');
    expect(t.prompts.filter((p) => p.agent === 'planner')).toHaveLength(3);
    expect(t.prompts[1]!.sessionID).toBe(t.prompts[0]!.sessionID);
    expect(result.snapshot.context.planner_error).toMatch(/planner output was invalid after 2 correction prompts/);
  });

  it('should stop the plan with auto policy stop when a step fails', async () => {
    const t = setup((agent, text) => (agent === 'document-writer' ? { type: 'failure', error: 'no docs folder' } : succeed(agent, text)), {
      approval: 'approve',
      deviation: 'stop',
    });
    const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, t.resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.stopped');
    expect(result.snapshot.value).toBe('failed');
    expect(t.prompts.some((p) => p.agent === 'tester')).toBe(false);
  });

  it('should retry up to the limit with auto retry, then stop saying why', async () => {
    // A different error each time: the same-error breaker never opens.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
    const t = setup((agent, text, n) => (agent === 'coder' ? { type: 'failure', error: `cannot find ${words[n - 1]}` } : succeed(agent, text)), {
      approval: 'approve',
      deviation: 'retry',
    });
    const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, t.resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.stopped');
    expect(t.prompts.filter((p) => p.agent === 'coder')).toHaveLength(10);
    const last = result.snapshot.context.decisions.at(-1)!;
    expect(last.option).toBe('Stop');
    expect(last.text).toMatch(/Retry is no longer offered after 10 failed attempts/);
  });
});

const run = async (t: ReturnType<typeof setup>) => {
  const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
  return { planId, result: await drivePlan(t.host, planId, t.resolve, new AbortController().signal) };
};
const options = (r: { snapshot: { context: { decisions: Array<{ gate: string; option: string; channel: string }> } } }) =>
  r.snapshot.context.decisions.map((d) => `${d.gate}:${d.option}:${d.channel}`);

describe('drivePlan at the circuit breaker and the dispatch cap', () => {
  it('should stop auto retrying when the same error opens the breaker, and wait for a human there', async () => {
    const t = setup((agent, text) => (agent === 'coder' ? { type: 'failure', error: 'compile error in greet.ts' } : succeed(agent, text)), {
      approval: 'approve',
      deviation: 'retry',
    });
    const { planId, result } = await run(t);
    expect(result.kind).toBe('waiting');
    if (result.kind !== 'waiting') return;
    expect(result.gates).toMatchObject([{ kind: 'deviation', stepId: 'impl', failures: 3, options: ['Retry', 'Replan', 'Stop'], breaker: expect.stringMatching(/^circuit breaker: the same error 3 times/) }]);
    expect(t.prompts.filter((p) => p.agent === 'coder')).toHaveLength(3);
    expect(options(result)).toEqual(['approval:Approve:auto', 'deviation:Retry:auto', 'deviation:Retry:auto']);
    t.host.flush(planId);
    const file = JSON.parse(readFileSync(t.store.pathOf(planId), 'utf8'));
    expect(file.waiting_for).toBe('deviation');
    expect(file.steps[0].breaker).toMatch(/^circuit breaker: the same error 3 times in a row on step impl/);
  });

  it("should take a human's Retry at an open breaker and go on", async () => {
    const t = setup((agent, text, n) => (agent === 'coder' && n <= 3 ? { type: 'failure', error: 'compile error in greet.ts' } : succeed(agent, text)), {
      approval: 'approve',
      deviation: 'retry',
    });
    const auto = t.resolve;
    const human = async (gate: any) =>
      gate.kind === 'deviation' && gate.breaker
        ? { event: decisionEvent(gate, { option: 'Retry', text: 'fix the import first' }, { channel: 'question', at: '2026-01-01T00:00:00.000Z' }) }
        : auto(gate);
    const planId = t.host.create({ message: 'greet' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, human, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(options(result)).toEqual(['approval:Approve:auto', 'deviation:Retry:auto', 'deviation:Retry:auto', 'deviation:Retry:question']);
    expect(result.snapshot.context.steps[0]!.breaker).toBeUndefined();
  });

  it('should pause at the dispatch cap and report waiting when no channel can answer', async () => {
    const t = setup(succeed, { approval: 'approve', deviation: 'retry' }, { policy: { max_dispatches: 1 } });
    const { planId, result } = await run(t);
    expect(result.kind).toBe('waiting');
    expect(result.kind === 'waiting' && result.gates).toMatchObject([
      {
        kind: 'budget',
        planId,
        crossed: ['dispatches'],
        dispatches: 1,
        cap: 1,
        increment: 1,
        // The planner's turn and the coder's, each one test turn (fake-sessions).
        usage: { turns: 2 },
        cost_cap: null,
        token_cap: null,
        after_continue: { cap: 2, cost_cap: null, token_cap: null },
        completed: 1,
        total: 3,
        options: ['Continue', 'Stop'],
        autoOptions: ['Continue', 'Stop'],
      },
    ]);
    expect(t.prompts.filter((p) => p.agent !== 'planner').map((p) => p.agent)).toEqual(['coder']);
    t.host.flush(planId);
    expect(JSON.parse(readFileSync(t.store.pathOf(planId), 'utf8')).waiting_for).toBe('budget');
  });

  it('should go on past the cap with hitl.auto.budget=continue, a logged decision at each pause', async () => {
    const t = setup(succeed, { approval: 'approve', budget: 'continue' }, { policy: { max_dispatches: 1 } });
    const { result } = await run(t);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(options(result)).toEqual(['approval:Approve:auto', 'budget:Continue:auto', 'budget:Continue:auto']);
    expect(result.snapshot.context.decisions[1]).toMatchObject({ text: 'auto policy hitl.auto.budget=continue' });
    expect([result.snapshot.context.dispatches, result.snapshot.context.dispatch_cap]).toEqual([3, 3]);
  });

  it('should pause at the money budget like the cap: hitl.auto.budget=continue raises it and the plan completes', async () => {
    // Each fake turn costs $0.001: the planner's and the coder's reach $0.002 before the docs step;
    // Continue raises the limit to $0.004, which the last step reaches when nothing is left to start.
    const t = setup(succeed, { approval: 'approve', budget: 'continue' }, { policy: { max_cost: 0.002 } });
    const { result } = await run(t);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(options(result)).toEqual(['approval:Approve:auto', 'budget:Continue:auto']);
    expect(result.snapshot.context.usage).toMatchObject({ turns: 4, cost: 0.004 });
    expect(result.snapshot.context.cost_cap).toBe(0.004);
  });

  it('should stop the plan at the cap with hitl.auto.budget=stop', async () => {
    const t = setup(succeed, { approval: 'approve', budget: 'stop' }, { policy: { max_dispatches: 1 } });
    const { result } = await run(t);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.stopped');
    expect(result.snapshot.value).toBe('failed');
    expect(options(result)).toEqual(['approval:Approve:auto', 'budget:Stop:auto']);
    expect(result.snapshot.context.steps.map((s) => s.status)).toEqual(['completed', 'pending', 'pending']);
  });

  it('should meet the cap before an auto Retry when a step fails with the budget spent', async () => {
    const t = setup((agent, text) => (agent === 'coder' ? { type: 'failure', error: 'compile error' } : succeed(agent, text)), { approval: 'approve', deviation: 'retry' }, {
      policy: { max_dispatches: 1 },
    });
    const { result } = await run(t);
    expect(result.kind).toBe('waiting');
    expect(result.kind === 'waiting' && result.gates.map((g) => g.kind)).toEqual(['budget', 'deviation']);
    // The auto policy never got to send a Retry the machine would refuse.
    expect(options(result)).toEqual(['approval:Approve:auto']);
  });

  it('should retry through the cap when both policies allow it', async () => {
    const t = setup(
      (agent, text, n) => (agent === 'coder' && n < 3 ? { type: 'failure', error: `cannot find ${['alpha', 'beta'][n - 1]}` } : succeed(agent, text)),
      { approval: 'approve', deviation: 'retry', budget: 'continue' },
      { policy: { max_dispatches: 1 } },
    );
    const { result } = await run(t);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(options(result)).toEqual([
      'approval:Approve:auto',
      'budget:Continue:auto',
      'deviation:Retry:auto',
      'budget:Continue:auto',
      'deviation:Retry:auto',
      'budget:Continue:auto',
      'budget:Continue:auto',
    ]);
  });

  it('should not mistake a cap reached again right after Continue for a refused decision', async () => {
    // Three independent steps, three at a time, one dispatch per budget: each Continue starts one
    // step and the next pause comes in the same macrostep.
    const independent = { ...plan, steps: plan.steps.map((s) => ({ ...s, depends_on: [] })) };
    const t = setup((agent, text) => (agent === 'planner' ? independent : succeed(agent, text)), { approval: 'approve', budget: 'continue' }, {
      policy: { max_dispatches: 1 },
      concurrency: 3,
    });
    const { result } = await run(t);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(options(result).filter((o) => o.startsWith('budget'))).toHaveLength(2);
  });
});

/**
 * Several steps at one kind of gate at once: a kill -9 that interrupted two or four steps in
 * flight (each at the resume gate after the restart), two parallel steps whose changes did not
 * apply (each at the merge gate). The human answers the first; the plan must ask the next, not
 * mistake it for the first one still open.
 */
describe('drivePlan with several steps at one kind of gate', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const parallel = (n: number) => ({
    type: 'plan' as const,
    goal: 'Write the modules',
    // Disjoint files: coder steps that may run side by side in one tree.
    steps: Array.from({ length: n }, (_, i) => ({ id: `m${i + 1}`, agent: 'coder' as const, description: `write m${i + 1}.ts`, files: [`m${i + 1}.ts`] })),
    assumptions: [],
    risks: [],
    verification: [],
  });
  const diff = (stepId: string) => ({
    files: [{ path: `${stepId}.ts`, status: 'modified' as const, added: 1, removed: 0 }],
    undeclared: [],
    patch_path: null,
    base: 'b0',
    result: `r-${stepId}`,
    where: 'worktree' as const,
  });

  /** A host whose steps meet `gateAt` once each, all of them before the first is answered. */
  function setupGates(n: number, gateAt: 'resume' | 'merge') {
    const store = new PlanStore(join(dir, 'plans'));
    const calls = new Map<string, number>();
    const count = (key: string) => {
      calls.set(key, (calls.get(key) ?? 0) + 1);
      return calls.get(key)!;
    };
    // Each step's first turn ends only once every step's has started: all of them reach the gate together.
    let started = 0;
    let allStarted!: () => void;
    const together = new Promise<void>((resolve) => (allStarted = resolve));
    const ports: PlanPorts = {
      ...instantPorts(parallel(n)),
      runSpecialist: async ({ idempotencyKey }) => {
        const stepId = idempotencyKey.split(':')[1]!;
        const n1 = count(`run:${stepId}`);
        if (n1 === 1) {
          if (++started === n) allStarted();
          await together;
        }
        if (gateAt === 'resume' && n1 === 1) return turn({ type: 'interrupted', session_id: `ses_${stepId}`, detail: 'its turn never finished' });
        return turn({ type: 'success', summary: `${stepId} written`, artifacts: [`${stepId}.ts`] });
      },
      openWorkspace: async ({ stepId }) => ({ kind: 'worktree', root: `/wt/${stepId}`, dir: `/wt/${stepId}`, base: 'b0' }),
      measureStep: async ({ stepId }) => diff(stepId),
      mergeStep: async ({ stepId }) => ({ type: 'conflict', diff: diff(stepId), conflicts: [{ path: `${stepId}.ts`, hunks: ['<<<<<<< your working tree'] }] }),
    };
    const host = new PlanHost({
      store,
      ports,
      concurrency: n,
      policy: { review_agents: [], ...(gateAt === 'merge' ? { workspace: 'worktree' as const } : {}) },
    });
    hosts.push(host);
    return { host, calls };
  }

  /** A person answering each gate as the dialog would, recording which gate it was asked. */
  function human(option: string) {
    const asked: Gate[] = [];
    const resolve = async (gate: Gate) => {
      asked.push(gate);
      if (gate.kind === 'approval') return { event: decisionEvent(gate, { option: 'Approve' }, { channel: 'question', at }) };
      return { event: decisionEvent(gate, { option }, { channel: 'question', at }) };
    };
    return { asked, resolve };
  }

  for (const n of [2, 4]) {
    it(`should ask the resume gate of each of ${n} interrupted steps in turn, and complete`, async () => {
      const t = setupGates(n, 'resume');
      const person = human('Re-run');
      const planId = t.host.create({ message: 'modules' }).getSnapshot().context.plan_id;
      const result = await drivePlan(t.host, planId, person.resolve, new AbortController().signal);
      expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
      const ids = Array.from({ length: n }, (_, i) => `m${i + 1}`);
      expect(person.asked.filter((g) => g.kind === 'resume').map((g) => 'stepId' in g && g.stepId)).toEqual(ids);
      expect(options(result)).toEqual(['approval:Approve:question', ...ids.map(() => 'resume:Re-run:question')]);
      expect(result.snapshot.context.decisions.filter((d) => d.gate === 'resume').map((d) => d.step_id)).toEqual(ids);
      // Each step ran again once, after its own Re-run.
      for (const id of ids) expect(t.calls.get(`run:${id}`)).toBe(2);
    });
  }

  it("should ask the merge gate of each of two parallel steps whose changes did not apply, and complete", async () => {
    const t = setupGates(2, 'merge');
    const person = human('Resolved by hand');
    const planId = t.host.create({ message: 'modules' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, person.resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(person.asked.filter((g) => g.kind === 'merge').map((g) => 'stepId' in g && g.stepId)).toEqual(['m1', 'm2']);
    expect(options(result)).toEqual(['approval:Approve:question', 'merge:Resolved by hand:question', 'merge:Resolved by hand:question']);
    expect(result.snapshot.context.decisions.filter((d) => d.gate === 'merge').map((d) => d.step_id)).toEqual(['m1', 'm2']);
  });

  it('should give each open gate its own key, and the same keys to the gates of the plan restored from its file', async () => {
    const t = setupGates(2, 'resume');
    const person = human('Re-run');
    const planId = t.host.create({ message: 'modules' }).getSnapshot().context.plan_id;
    // No channel past the approval: the plan waits with both steps at the resume gate.
    const waiting = await drivePlan(t.host, planId, async (gate) => (gate.kind === 'approval' ? person.resolve(gate) : { waiting: 'nobody here' }), new AbortController().signal);
    expect(waiting.kind).toBe('waiting');
    const live = openGates(t.host.open(planId).getSnapshot());
    expect(live.map(gateKey)).toEqual([`${planId}:resume:m1:1`, `${planId}:resume:m2:1`]);
    await t.host.release(planId);

    // Another process (a restart) restores the plan from its file: the same two gates, the same keys.
    const again = new PlanHost({ store: new PlanStore(join(dir, 'plans')), ports: idlePlanPorts, concurrency: 2, policy: { review_agents: [] } });
    hosts.push(again);
    expect(openGates(again.open(planId).getSnapshot()).map(gateKey)).toEqual(live.map(gateKey));
  });

  it("should stop asking a step's gate answered elsewhere and ask the other step's", async () => {
    const t = setupGates(2, 'resume');
    const asked: string[] = [];
    // The dialog for m1 stays open; meanwhile a slash command answers m1 (as /orca-rerun would).
    const resolve = async (gate: Gate, signal: AbortSignal) => {
      if (gate.kind === 'approval') return { event: decisionEvent(gate, { option: 'Approve' }, { channel: 'question', at }) };
      if (gate.kind !== 'resume') throw new Error(`unexpected ${gate.kind} gate`);
      asked.push(gate.stepId);
      if (gate.stepId === 'm1') {
        t.host.send(gate.planId, decisionEvent(gate, { option: 'Re-run' }, { channel: 'command', at }));
        return new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      return { event: decisionEvent(gate, { option: 'Re-run' }, { channel: 'question', at }) };
    };
    const planId = t.host.create({ message: 'modules' }).getSnapshot().context.plan_id;
    const result = await drivePlan(t.host, planId, resolve, new AbortController().signal);
    expect(result.kind === 'outcome' && result.tag).toBe('outcome.completed');
    expect(asked).toEqual(['m1', 'm2']);
    expect(options(result)).toEqual(['approval:Approve:question', 'resume:Re-run:command', 'resume:Re-run:question']);
  });
});

/** The dotted state of a step's actor in a plan file's snapshot ("opening_workspace.waiting_for_slot"). */
function statePathOf(child: unknown): string | undefined {
  const value = (child as { snapshot?: { value?: unknown } } | undefined)?.snapshot?.value;
  return value === undefined ? undefined : statePath(value);
}
