import { describe, expect, it } from 'vitest';
import { dueCronSlot, nextFiring } from '../../src/agenda/cron.js';
import { AgendaInputError } from '../../src/agenda/errors.js';
import { emitTo, harness, item, MINUTE, plan } from './harness.js';

const ms = Date.parse;
const cron = (expression: string, timezone?: string) => ({ type: 'cron' as const, expression, ...(timezone ? { timezone } : {}) });

describe('cron triggers (croner)', () => {
  it('should find the next firing in the trigger time zone, UTC by default, across a DST change', () => {
    // Monday 2030-01-07 08:00Z: 09:00 in Paris (UTC+1 in winter).
    const monday = ms('2030-01-07T08:00:00Z');
    expect(nextFiring(cron('30 9 * * 1-5'), monday)).toBe(ms('2030-01-07T09:30:00Z'));
    expect(nextFiring(cron('30 9 * * 1-5', 'Europe/Paris'), monday)).toBe(ms('2030-01-07T08:30:00Z'));
    expect(nextFiring(cron('30 9 * * *', 'America/New_York'), monday)).toBe(ms('2030-01-07T14:30:00Z'));
    // Friday evening: the next weekday firing is Monday.
    expect(nextFiring(cron('30 9 * * 1-5', 'Europe/Paris'), ms('2030-01-11T18:00:00Z'))).toBe(ms('2030-01-14T08:30:00Z'));
    // Paris goes to UTC+2 on 2030-03-31: 09:30 local is 07:30Z from then on.
    expect(nextFiring(cron('30 9 * * *', 'Europe/Paris'), ms('2030-03-30T12:00:00Z'))).toBe(ms('2030-03-31T07:30:00Z'));
  });

  it('should be due at its slot exactly, not before, and fold missed slots into one firing', () => {
    const hourly = cron('0 * * * *');
    const anchor = ms('2030-01-07T08:00:00Z');
    expect(dueCronSlot(hourly, anchor, ms('2030-01-07T08:59:59Z'))).toBeNull();
    expect(dueCronSlot(hourly, anchor, ms('2030-01-07T09:00:00Z'))).toEqual({ dueAt: ms('2030-01-07T09:00:00Z'), firstDueAt: ms('2030-01-07T09:00:00Z'), slots: 1 });
    expect(dueCronSlot(hourly, anchor, ms('2030-01-07T12:30:00Z'))).toEqual({ dueAt: ms('2030-01-07T12:00:00Z'), firstDueAt: ms('2030-01-07T09:00:00Z'), slots: 4 });
  });

  it('should refuse an expression or a time zone croner does not accept, quoting them', () => {
    const h = harness();
    expect(() => h.agenda.create(item(cron('every monday'), emitTo('x')))).toThrow(AgendaInputError);
    expect(() => h.agenda.create(item(cron('every monday'), emitTo('x')))).toThrow(/^Invalid cron expression "every monday": expected 5 fields/);
    expect(() => h.agenda.create(item(cron('0 9 * * *', 'Mars/Olympus_Mons'), emitTo('x')))).toThrow(
      'Invalid cron timezone "Mars/Olympus_Mons": expected an IANA time zone such as "Europe/Paris" or "UTC".',
    );
  });
});

describe('cron items in the tick', () => {
  it('should number each firing and go back to pending for the next one', async () => {
    const h = harness();
    const daily = h.agenda.create(item(cron('30 9 * * 1-5', 'Europe/Paris'), plan('standup notes')));
    expect(daily.nextDueAt).toBe('2030-01-07T08:30:00.000Z');
    for (const day of ['2030-01-07', '2030-01-08', '2030-01-09']) {
      h.now.ms = ms(`${day}T08:30:00Z`);
      await h.agenda.tick();
      await h.agenda.tick(); // a second tick in the same minute does not fire again
    }
    expect(h.calls.map((c) => [c.firing, c.idempotencyKey, c.dueAt])).toEqual([
      [1, `${daily.agendaId}#1`, '2030-01-07T08:30:00.000Z'],
      [2, `${daily.agendaId}#2`, '2030-01-08T08:30:00.000Z'],
      [3, `${daily.agendaId}#3`, '2030-01-09T08:30:00.000Z'],
    ]);
    expect(h.lines().filter((l) => l.type !== 'agenda.created').map((l) => `${l.type}#${l.firing}`)).toEqual([
      'agenda.started#1',
      'agenda.executed#1',
      'agenda.started#2',
      'agenda.executed#2',
      'agenda.started#3',
      'agenda.executed#3',
    ]);
    expect(h.agenda.get(daily.agendaId)).toMatchObject({ status: 'pending', firings: 3, nextDueAt: '2030-01-10T08:30:00.000Z', late: false });
  });

  it('should fire once, marked late, for the slots missed while no server ran', async () => {
    const h = harness();
    const hourly = h.agenda.create(item(cron('0 * * * *'), emitTo('heartbeat')));
    h.now.ms = ms('2030-01-07T09:00:00Z');
    await h.agenda.tick();
    // The server is down from 09:00 to 14:20; a new process opens the same project.
    h.now.ms = ms('2030-01-07T14:20:00Z');
    const restarted = h.reopen();
    const report = await restarted.agenda.tick();
    expect(report.fired).toEqual([expect.objectContaining({ agendaId: hourly.agendaId, firing: 2, status: 'executed', late: true })]);
    expect(restarted.lines().filter((l) => l.type === 'agenda.started').at(-1)).toMatchObject({
      firing: 2,
      dueAt: '2030-01-07T14:00:00.000Z',
      late: true,
      missed: 5,
    });
    expect(restarted.toasts.at(-1)).toMatchObject({ variant: 'success', title: 'Agenda item executed late' });
    expect(restarted.toasts.at(-1)!.message).toContain('late (5 slots passed, fired once)');
    expect(restarted.agenda.events({ kindFilter: 'heartbeat' })).toHaveLength(2);
    // The next slot is counted from the one that fired.
    expect(restarted.agenda.get(hourly.agendaId).nextDueAt).toBe('2030-01-07T15:00:00.000Z');
    restarted.now.ms += 10 * MINUTE;
    expect((await restarted.agenda.tick()).fired).toEqual([]);
    restarted.now.ms = ms('2030-01-07T15:00:30Z'); // within lateAfterSeconds (60) of its slot
    expect((await restarted.agenda.tick()).fired).toEqual([expect.objectContaining({ firing: 3, late: false })]);
  });
});
