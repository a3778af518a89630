import type { AnyActorRef } from 'xstate';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { idlePlanPorts, type PlanPorts, type WatchIdleInput } from '../../src/machines/ports.js';
import { stepActorId } from '../../src/machines/plan.machine.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { turn } from '../support/turns.js';
import { eachTempStore } from '../support/temp-store.js';

/**
 * The step timeout is an invoked actor, not an `after` timer (whose timers a restored snapshot
 * would drop): a plan restored with a specialist turn in flight watches that session again.
 */
const plan = { type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'tester', description: 'd' }], assumptions: [], risks: [], verification: [] };
const approve = { type: 'approval.approve', channel: 'cli', at: '2026-01-01T00:00:00.000Z' } as const;
const never = () => new Promise<never>(() => {});

let store: PlanStore;
eachTempStore('orca-quality-restore-', (s) => (store = s));

function watchingPorts() {
  const watches: WatchIdleInput[] = [];
  let fire: ((v: { idleMs: number }) => void) | undefined;
  const ports: PlanPorts = {
    ...idlePlanPorts,
    openSpecialistSession: async () => ({ sessionId: 'ses_tester' }),
    runSpecialist: never,
    watchIdle: (input) => {
      watches.push(input);
      return new Promise((resolve) => (fire = resolve));
    },
  };
  return { ports, watches, fire: (idleMs: number) => fire?.({ idleMs }) };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('step timeout across a restore', () => {
  it('should watch the in-flight session again after a restore and fail the attempt with TIMEOUT when it fires', async () => {
    const first = watchingPorts();
    const host = new PlanHost({ store, ports: first.ports, policy: { idle_ms: 600_000 } });
    const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
    host.send(planId, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
    host.send(planId, { type: 'xstate.done.actor.consultPlanner', output: turn(plan) } as never);
    host.send(planId, approve);
    await settle();
    expect(first.watches).toEqual([{ planId, stepId: 's1', sessionId: 'ses_tester', idleMs: 600_000 }]);
    host.flush(planId);
    await host.dispose();

    const second = watchingPorts();
    const restored = new PlanHost({ store, ports: second.ports });
    const actor = restored.open(planId);
    await settle();
    // The policy came from the plan file, not from the second host's (default) options.
    expect(second.watches).toEqual([{ planId, stepId: 's1', sessionId: 'ses_tester', idleMs: 600_000 }]);
    second.fire(600_000);
    await settle();
    const step = (actor.getSnapshot().children[stepActorId('s1')] as AnyActorRef).getSnapshot();
    expect(step.value).toBe('awaiting_decision');
    expect(step.context.failures[0].error).toMatch(/^TIMEOUT: the tester was idle for 600 s/);
    expect(actor.getSnapshot().context.steps[0]).toMatchObject({ status: 'awaiting_decision' });
    await restored.dispose();
  });
});
