import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { drivePlan } from '../../src/host/drive.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanPolicy } from '../../src/machines/types.js';
import { idlePlanPorts } from '../../src/machines/ports.js';
import { autoChoice } from '../../src/decisions/auto-policy.js';
import { decisionEvent } from '../../src/machines/gates.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { waitingSummaries } from '../../src/persistence/plan-index.js';
import type { AutoPolicy } from '../../src/config/options.js';

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
  plan: { policy?: Partial<PlanPolicy>; concurrency?: number } = {},
) {
  const fake = fakeSessions(reply);
  const store = new PlanStore(join(dir, 'plans'));
  const host = new PlanHost({
    store,
    ports: { ...idlePlanPorts, ...opencodePorts(fake.port) },
    ...(plan.concurrency ? { concurrency: plan.concurrency } : {}),
    policy: { review_agents: [], ...plan.policy },
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
