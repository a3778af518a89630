import { describe, expect, it } from 'vitest';
import { eventLabel, matches, parsePattern } from '../../src/agenda/matching.js';
import { emitTo, harness, HOUR, iso, item, MINUTE, T0 } from './harness.js';

const onEvent = (eventKind: string | string[], extra: { matchMode?: 'any' | 'all'; expiresAt?: string } = {}) => ({ type: 'event', eventKind, ...extra });

describe('bus event matching (pure)', () => {
  it('should match "kind" on any subject and "kind:subject" on that subject only', () => {
    const done = { kind: 'plan.completed', subject: 'plan_A' };
    expect(matches(parsePattern('plan.completed'), done)).toBe(true);
    expect(matches(parsePattern('plan.completed:plan_A'), done)).toBe(true);
    expect(matches(parsePattern('plan.completed:plan_B'), done)).toBe(false);
    expect(matches(parsePattern('plan.failed'), done)).toBe(false);
    expect(matches(parsePattern('plan.completed:plan_A'), { kind: 'plan.completed' })).toBe(false);
    expect(parsePattern('a.b:c:d')).toEqual({ kind: 'a.b', subject: 'c:d' });
    expect(eventLabel(done)).toBe('plan.completed:plan_A');
  });
});

describe('event triggers on the bus', () => {
  it('should fire an "any" item on the first of its kinds, recording which', async () => {
    const h = harness();
    const it1 = h.agenda.create(item(onEvent(['tests.passed', 'lint.ok']), emitTo('ready')));
    expect((await h.agenda.tick()).fired).toEqual([]);
    h.agenda.emit('lint.ok', 'clean');
    const report = await h.agenda.tick();
    expect(report.fired).toEqual([expect.objectContaining({ agendaId: it1.agendaId, status: 'executed' })]);
    expect(h.lines().find((l) => l.type === 'agenda.started')).toMatchObject({ triggeredByEvent: 'lint.ok', depth: 0 });
    expect(h.lines().find((l) => l.type === 'agenda.executed')).toMatchObject({ triggeredByEvent: 'lint.ok' });
  });

  it('should fire an "all" item only once every kind was seen after its creation', async () => {
    const h = harness();
    h.agenda.emit('build.done', 'before the item: does not count');
    const all = h.agenda.create(item(onEvent(['build.done', 'tests.passed'], { matchMode: 'all' }), emitTo('ship')));
    h.agenda.emit('tests.passed', 'green');
    await h.agenda.tick();
    expect(h.agenda.get(all.agendaId).status).toBe('pending');
    h.agenda.emit('tests.passed', 'green again');
    await h.agenda.tick();
    expect(h.agenda.get(all.agendaId).status).toBe('pending');
    h.agenda.emit('build.done', 'built');
    await h.agenda.tick();
    expect(h.agenda.get(all.agendaId)).toMatchObject({ status: 'executed', lastResult: 'emitted ship' });
    expect(h.lines().find((l) => l.type === 'agenda.started')?.triggeredByEvent).toBe('build.done');
  });

  it("should match Orca's lifecycle events by kind, or by kind and plan_id", async () => {
    const h = harness();
    const anyPlan = h.agenda.create(item(onEvent('plan.completed'), emitTo('any')));
    const planA = h.agenda.create(item(onEvent('plan.completed:plan_A'), emitTo('a')));
    expect(h.agenda.publish('plan.completed', 'plan_B', 'plan_B completed')?.event).toBe('plan.completed:plan_B');
    await h.agenda.tick();
    expect(h.agenda.get(anyPlan.agendaId).status).toBe('executed');
    expect(h.agenda.get(planA.agendaId).status).toBe('pending');
    h.agenda.publish('plan.completed', 'plan_A', 'plan_A completed');
    await h.agenda.tick();
    expect(h.agenda.get(planA.agendaId)).toMatchObject({ status: 'executed' });
    expect(h.lines().filter((l) => l.type === 'agenda.started').map((l) => l.triggeredByEvent)).toEqual([
      'plan.completed:plan_B',
      'plan.completed:plan_A',
    ]);
  });

  it('should record a lifecycle event only when a pending item listens for it', () => {
    const h = harness();
    expect(h.agenda.publish('step.completed', 'plan_A', 'step s1 done')).toBeNull();
    h.agenda.create(item(onEvent('step.failed:plan_A'), emitTo('x')));
    expect(h.agenda.publish('step.failed', 'plan_B', 'other plan')).toBeNull();
    expect(h.agenda.publish('step.failed', 'plan_A', 'step s2 failed')).toMatchObject({ source: 'orca', subject: 'plan_A' });
    expect(h.agenda.events().map((e) => e.event)).toEqual(['step.failed:plan_A']);
    expect(() => h.agenda.publish('step failed', 'plan_A', '')).toThrow(/expected a kind like "plan.completed"/);
  });

  it('should send "kind:subject" from emit as a kind and a subject, and filter events like a trigger', () => {
    const h = harness();
    h.agenda.emit('deploy.done:prod', 'v1.2');
    h.agenda.emit('deploy.done:staging', 'v1.3');
    h.agenda.emit('tests.passed', '');
    expect(h.lines()[0]).toMatchObject({ kind: 'deploy.done', subject: 'prod' });
    expect(h.agenda.events({ kindFilter: 'deploy.done' }).map((e) => e.event)).toEqual(['deploy.done:prod', 'deploy.done:staging']);
    expect(h.agenda.events({ kindFilter: 'deploy.done:staging' }).map((e) => e.message)).toEqual(['v1.3']);
    expect(h.agenda.events({ limit: 1 }).map((e) => e.event)).toEqual(['tests.passed']);
  });

  it('should expire an event item at expiresAt, unless its event came in time', async () => {
    const h = harness();
    const expiresAt = iso(T0 + HOUR);
    const waits = h.agenda.create(item(onEvent('never.comes', { expiresAt }), emitTo('x')));
    const fires = h.agenda.create(item(onEvent('comes.in.time', { expiresAt }), emitTo('y')));
    h.now.ms = T0 + 30 * MINUTE;
    h.agenda.emit('comes.in.time', '');
    h.agenda.pause(); // no tick runs until after expiresAt
    h.now.ms = T0 + 2 * HOUR;
    h.agenda.resume();
    const report = await h.agenda.tick();
    expect(report.expired).toEqual([waits.agendaId]);
    expect(report.fired).toEqual([expect.objectContaining({ agendaId: fires.agendaId, status: 'executed', late: true })]);
    expect(h.agenda.get(waits.agendaId).status).toBe('expired');
    expect(h.toasts.find((t) => t.title === 'Agenda item expired')?.message).toContain(waits.agendaId);
    h.agenda.emit('never.comes', 'too late');
    expect((await h.agenda.tick()).fired).toEqual([]);
  });
});
