import { createActor, waitFor, type AnyActorRef } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { wirePlanMachine } from '../../src/host/wire.js';
import { sessionsOf, WritePolicy } from '../../src/host/write-policy.js';
import type { PlanSnapshot } from '../../src/machines/gates.js';
import { stepActorId } from '../../src/machines/plan.machine.js';
import type { PlanPorts } from '../../src/machines/ports.js';
import type { PlannerOutput, PlanPolicy } from '../../src/machines/types.js';
import { newPlanId } from '../../src/persistence/plan-id.js';
import { instantPorts } from '../support/instant-ports.js';
import { turn } from '../support/turns.js';

/**
 * The policy is asked with real snapshots of the wired plan machine, so a step context that named
 * its sessions differently would fail here, not only in the host's tests.
 */
const oneStep: PlannerOutput = {
  type: 'plan',
  goal: 'Add a greeting',
  steps: [{ id: 's1', agent: 'coder', description: 'write hello.ts' }],
  assumptions: [],
  risks: [],
  verification: [],
};
const approve = { type: 'approval.approve', channel: 'tool', at: '2026-01-01T00:00:00.000Z' } as const;
const never = () => new Promise<never>(() => {});

const actors: Array<{ stop(): void }> = [];
afterEach(() => actors.splice(0).forEach((actor) => actor.stop()));

/** A plan actor with ports that answer at once, except those `ports` replaces. */
function plan({ callerSessionId = null as string | null, policy = { review_agents: [] } as Partial<PlanPolicy>, ports = {} as Partial<PlanPorts> } = {}) {
  const actor = createActor(wirePlanMachine({ ...instantPorts(oneStep), ...ports }), {
    input: { planId: newPlanId(), message: 'Add a greeting', callerSessionId, policy },
  });
  actors.push(actor);
  actor.start();
  const until = (predicate: (s: PlanSnapshot) => boolean) => waitFor(actor, predicate) as Promise<PlanSnapshot>;
  return { actor, until };
}

const stepContext = (s: PlanSnapshot) => (s.children[stepActorId('s1')] as AnyActorRef | undefined)?.getSnapshot()?.context;
const atApproval = (s: PlanSnapshot) => s.value === 'pending_approval';
const specialistRunning = (s: PlanSnapshot) => typeof stepContext(s)?.sessionId === 'string';
const reviewerOpened = (s: PlanSnapshot) => typeof stepContext(s)?.review?.session_id === 'string';

/** A plan waiting at its approval, then running its step's specialist turn (which never ends). */
async function toSpecialistTurn(callerSessionId: string | null) {
  const { actor, until } = plan({ callerSessionId, ports: { runSpecialist: never } });
  const approval = await until(atApproval);
  actor.send(approve);
  return { approval, running: await until(specialistRunning) };
}

describe('WritePolicy after a change', () => {
  it("should write a plan's first change at once, and the ordinary changes after it behind", async () => {
    const { approval } = await toSpecialistTurn('ses_caller');
    const policy = new WritePolicy();
    expect(policy.afterChange(approval, { written: false })).toBe('now');
    expect(policy.afterChange(approval, { written: true })).toBe('behind');
  });

  it("should write behind the planner's session: a planner turn is simply asked again", async () => {
    const { approval } = await toSpecialistTurn(null);
    expect(approval.context.planner_session_id).toMatch(/^ses_/);
    expect(new WritePolicy().afterChange(approval, { written: true })).toBe('behind');
  });

  it("should write a finished plan's last change at once", async () => {
    const { actor, until } = plan();
    await until(atApproval);
    actor.send(approve);
    const done = await until((s) => s.status === 'done');
    expect(new WritePolicy().afterChange(done, { written: true })).toBe('now');
  });

  it('should write a step session of a plan with no caller session at once, without fsync, and only the first time it is seen', async () => {
    const { approval, running } = await toSpecialistTurn(null);
    const policy = new WritePolicy();
    expect(policy.afterChange(approval, { written: true })).toBe('behind');
    expect(policy.afterChange(running, { written: true })).toBe('now-unsynced');
    expect(policy.afterChange(running, { written: true })).toBe('behind');
  });

  it("should write a step session of the caller's session behind: a restart finds it by its idempotency key", async () => {
    const { approval, running } = await toSpecialistTurn('ses_caller');
    const policy = new WritePolicy();
    policy.afterChange(approval, { written: true });
    expect(policy.afterChange(running, { written: true })).toBe('behind');
  });

  it("should write a reviewer session of a plan with no caller session at once, after its specialist's", async () => {
    let finish: (value: Awaited<ReturnType<PlanPorts['runSpecialist']>>) => void = () => {};
    const runSpecialist = () => new Promise<Awaited<ReturnType<PlanPorts['runSpecialist']>>>((resolve) => (finish = resolve));
    const { actor, until } = plan({ policy: { review_agents: ['coder'] }, ports: { runSpecialist, runReview: never } });
    await until(atApproval);
    actor.send(approve);
    const running = await until(specialistRunning);
    const policy = new WritePolicy();
    expect(policy.afterChange(running, { written: true })).toBe('now-unsynced');
    finish(turn({ type: 'success', summary: 'done', artifacts: [] }));
    const reviewing = await until(reviewerOpened);
    expect(policy.afterChange(reviewing, { written: true })).toBe('now-unsynced');
    expect(policy.afterChange(reviewing, { written: true })).toBe('behind');
  });

  it('should not write the sessions of a restored plan again: they are in its file', async () => {
    const { running } = await toSpecialistTurn(null);
    const restored = new WritePolicy();
    restored.restored(running);
    expect(restored.afterChange(running, { written: true })).toBe('behind');
    expect(new WritePolicy().afterChange(running, { written: true })).toBe('now-unsynced');
  });

  it('should write at once a finished plan whose change also opened a session', async () => {
    const { running } = await toSpecialistTurn(null);
    const finished = { ...running, status: 'done' } as PlanSnapshot;
    expect(new WritePolicy().afterChange(finished, { written: true })).toBe('now');
  });
});

describe('WritePolicy at a flush and a release', () => {
  it('should write a flushed plan at once', () => {
    expect(new WritePolicy().flush()).toBe('now');
  });

  it.each([
    [true, true, 'now'],
    [true, false, null],
    [false, true, null],
    [false, false, null],
  ] as const)('should write a released plan at once only when asked to and its file may lag it (write %s, may lag %s)', (write, fileMayLag, expected) => {
    expect(new WritePolicy().atRelease({ write, fileMayLag })).toBe(expected);
  });
});

describe('sessionsOf', () => {
  it("should list the planner's session as findable and a step's sessions as findable only under a caller's session", async () => {
    const withCaller = await toSpecialistTurn('ses_caller');
    const without = await toSpecialistTurn(null);
    const ids = (s: PlanSnapshot) => [s.context.planner_session_id, stepContext(s)?.sessionId];
    const [planner, step] = ids(withCaller.running);
    expect(sessionsOf(withCaller.running)).toEqual([
      { id: planner, findable: true },
      { id: step, findable: true },
    ]);
    const [planner2, step2] = ids(without.running);
    expect(sessionsOf(without.running)).toEqual([
      { id: planner2, findable: true },
      { id: step2, findable: false },
    ]);
  });

  it("should list a step's reviewer session beside its specialist's", async () => {
    const { actor, until } = plan({ callerSessionId: 'ses_caller', policy: { review_agents: ['coder'] }, ports: { runReview: never } });
    await until(atApproval);
    actor.send(approve);
    const reviewing = await until(reviewerOpened);
    const step = stepContext(reviewing);
    expect(sessionsOf(reviewing).slice(1)).toEqual([
      { id: step.sessionId, findable: true },
      { id: step.review.session_id, findable: true },
    ]);
  });

  it('should list no session of a plan still waiting for its planner session', () => {
    const { actor } = plan({ ports: { openPlannerSession: never } });
    expect(sessionsOf(actor.getSnapshot())).toEqual([]);
  });
});
