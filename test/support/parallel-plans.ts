import type { PlanHost } from '../../src/host/plan-host.js';
import { turn } from './turns.js';

/** The invokes that run model turns resolve with `{ value, usage }`. */
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output: id === 'runSpecialist' || id === 'consultPlanner' ? turn(output) : output }) as never;
const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };

/**
 * A plan of two coder steps `a` and `b` side by side (disjoint files; the host's concurrency must
 * allow two, and its ports must never settle), both in flight when a crash stopped them: restored,
 * each turn was found interrupted, and each step waits at its own resume gate.
 */
export function twoInterruptedPlan(host: PlanHost): string {
  const planId = host.create({ message: 'write a and b' }).getSnapshot().context.plan_id;
  host.send(planId, done('openPlannerSession', { sessionId: 'ses_planner' }));
  host.send(
    planId,
    done('consultPlanner', {
      type: 'plan',
      goal: 'Write a and b',
      steps: ['a', 'b'].map((id) => ({ id, agent: 'coder', description: `write ${id}.ts`, files: [`${id}.ts`] })),
      assumptions: [],
      risks: [],
      verification: [],
    }),
  );
  host.send(planId, { type: 'approval.approve', ...by });
  for (const id of ['a', 'b']) {
    const step = host.open(planId).getSnapshot().children[`step:${id}`] as { send(event: unknown): void };
    step.send(done('openSpecialistSession', { sessionId: `ses_${id}` }));
    step.send(done('runSpecialist', { type: 'interrupted', session_id: `ses_${id}`, detail: 'its turn never finished' }));
  }
  host.flush(planId);
  return planId;
}
