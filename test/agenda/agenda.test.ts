import { describe, expect, it } from 'vitest';
import { AgendaStateError, DEFAULT_AGENDA_LIMITS } from '../../src/agenda/index.js';
import { at, deferred, emitTo, harness, item, MINUTE, plan, T0 } from './harness.js';

describe('Agenda facade', () => {
  it("should default to seed 002's limits plus max_plans_per_day 20", () => {
    expect(DEFAULT_AGENDA_LIMITS).toEqual({
      max_pending_project: 30,
      max_pending_per_session: 10,
      min_interval_seconds: 60,
      max_pending_per_event_kind: 5,
      max_emits_per_session_per_hour: 30,
      max_cascade_depth: 8,
      max_plans_per_day: 20,
    });
    const limits = harness({ limits: { max_cascade_depth: 3, max_plans_per_day: undefined } }).agenda.limits;
    expect(limits).toMatchObject({ max_cascade_depth: 3, max_plans_per_day: 20 });
  });

  it('should create, list (pending and running by default), filter by status and session, and show the next due time', async () => {
    const h = harness();
    const mine = h.agenda.create(item(at(T0 + 10 * MINUTE), emitTo('x'), { sessionId: 'ses_a' }));
    const theirs = h.agenda.create(item({ type: 'cron', expression: '0 12 * * *' }, emitTo('y'), { sessionId: 'ses_b' }));
    const forA = h.agenda.create(item({ type: 'event', eventKind: 'ci.done' }, { type: 'command', command: '/review', sessionId: 'ses_a' }, { sessionId: 'ses_b' }));
    expect(mine).toMatchObject({ status: 'pending', nextDueAt: new Date(T0 + 10 * MINUTE).toISOString(), createdBy: 'ses_a', firings: 0, depth: 0 });
    expect(theirs.nextDueAt).toBe('2030-01-07T12:00:00.000Z');
    expect(forA.nextDueAt).toBeNull();
    expect(h.agenda.list({ sessionId: 'ses_a' }).map((i) => i.agendaId)).toEqual([mine.agendaId, forA.agendaId]);
    h.now.ms = T0 + 10 * MINUTE;
    await h.agenda.tick();
    expect(h.agenda.list().map((i) => i.agendaId)).toEqual([theirs.agendaId, forA.agendaId]);
    expect(h.agenda.list({ status: 'executed' }).map((i) => i.agendaId)).toEqual([mine.agendaId]);
    expect(h.agenda.list({ status: 'all' })).toHaveLength(3);
  });

  it('should cancel only a pending item, and clear only pending ones, leaving a running firing to finish', async () => {
    const h = harness();
    const slow = h.agenda.create(item(at(T0), plan('slow')));
    const waiting = h.agenda.create(item({ type: 'event', eventKind: 'never' }, emitTo('x')));
    const gate = deferred<{ result: string }>();
    h.executor.fn = () => gate.promise;
    const tick = h.agenda.tick();
    await Promise.resolve();
    expect(h.agenda.get(slow.agendaId).status).toBe('running');
    expect(() => h.agenda.cancel(slow.agendaId)).toThrow(AgendaStateError);
    expect(() => h.agenda.cancel(slow.agendaId)).toThrow(`${slow.agendaId} is running firing 1; cancel it once that firing has finished.`);
    expect(h.agenda.clear().map((i) => [i.agendaId, i.status])).toEqual([[waiting.agendaId, 'cancelled']]);
    gate.resolve({ result: 'done' });
    await tick;
    expect(h.agenda.get(slow.agendaId).status).toBe('executed');
    expect(() => h.agenda.cancel(slow.agendaId, 'too late')).toThrow(`${slow.agendaId} is executed: only a pending item can be cancelled.`);
    expect(h.agenda.cancel(h.agenda.create(item(at(T0 + 10 * MINUTE), emitTo('x'))).agendaId, 'changed my mind')).toMatchObject({
      status: 'cancelled',
      cancelReason: 'changed my mind',
    });
    expect(h.agenda.clear()).toEqual([]);
  });

  it('should start one timer at the poll interval however often start is called', async () => {
    const h = harness();
    h.agenda.start(7);
    h.agenda.start(7);
    expect(h.timers.map((t) => t.ms)).toEqual([7000]);
    await h.agenda.stop();
    expect(h.timers[0]!.stopped).toBe(true);
  });
});
