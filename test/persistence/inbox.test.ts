import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { inboxDir, postDecision } from '../../src/persistence/inbox.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { idlePorts } from '../support/idle-ports.js';
import { turn } from '../support/turns.js';
import { eachTempStore } from '../support/temp-store.js';

const ports = idlePorts;
const plan = { type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] };

let store: PlanStore;
eachTempStore('orca-inbox-', (s) => (store = s));

function waitingPlan(host: PlanHost) {
  const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
  host.send(planId, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
  host.send(planId, { type: 'xstate.done.actor.consultPlanner', output: turn(plan) } as never);
  return planId;
}
const approve = { type: 'approval.approve', channel: 'cli', at: '2026-01-01T00:00:00.000Z' };

describe('decision inbox', () => {
  it('should deliver a decision to a plan live in this process and empty the inbox', async () => {
    const host = new PlanHost({ store, ports });
    const planId = waitingPlan(host);
    postDecision(store.dir, planId, approve);
    host.applyInbox(planId);
    expect(host.open(planId).getSnapshot().value).toEqual({ in_progress: 'running' });
    expect(host.open(planId).getSnapshot().context.decisions).toMatchObject([{ option: 'Approve', channel: 'cli' }]);
    expect(readdirSync(inboxDir(store.dir, planId))).toEqual([]);
    await host.dispose();
  });

  it('should apply decisions left while no process ran the plan when it is restored', async () => {
    const first = new PlanHost({ store, ports });
    const planId = waitingPlan(first);
    await Promise.resolve();
    await first.dispose();
    postDecision(store.dir, planId, approve);
    const second = new PlanHost({ store, ports });
    expect(second.open(planId).getSnapshot().value).toEqual({ in_progress: 'running' });
    await second.dispose();
  });

  it('should drop, with a log line, a decision that no longer applies', async () => {
    const lines: string[] = [];
    const host = new PlanHost({ store, ports, log: (_l, m) => lines.push(m) });
    const planId = waitingPlan(host);
    postDecision(store.dir, planId, { type: 'deviation.retry', stepId: 's1', channel: 'cli', at: 'x' });
    host.applyInbox(planId);
    expect(host.open(planId).getSnapshot().value).toBe('pending_approval');
    expect(lines.some((l) => /deviation.retry from the inbox no longer applies/.test(l))).toBe(true);
    expect(existsSync(inboxDir(store.dir, planId))).toBe(true);
    await host.dispose();
  });
});
