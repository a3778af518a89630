import { describe, expect, it } from 'vitest';
import { parseAction, parseTrigger } from '../../src/agenda/create.js';
import { AgendaInputError, quote } from '../../src/agenda/errors.js';
import { isAgendaId, newAgendaId, parseAgendaId } from '../../src/agenda/ids.js';
import { at, harness, HOUR, item, T0 } from './harness.js';

describe('agenda triggers and actions', () => {
  it('should accept the three triggers of DESIGN "Agenda"', () => {
    expect(parseTrigger({ type: 'time', executeAt: '2030-01-01T09:00:00+01:00' }).type).toBe('time');
    expect(parseTrigger({ type: 'event', eventKind: ['a.b', 'plan.completed:plan_X'], matchMode: 'all', expiresAt: '2030-01-02T00:00:00Z' })).toEqual({
      type: 'event',
      eventKind: ['a.b', 'plan.completed:plan_X'],
      matchMode: 'all',
      expiresAt: '2030-01-02T00:00:00Z',
    });
    expect(parseTrigger({ type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Paris' }).type).toBe('cron');
  });

  it('should accept the six actions, schedule nesting an action and a trigger', () => {
    const nested = {
      type: 'schedule',
      reason: 'chain',
      trigger: { type: 'event', eventKind: 'tests.passed' },
      action: { type: 'schedule', reason: 'deeper', trigger: { type: 'time', executeAt: '2030-01-01T00:00:00Z' }, action: { type: 'emit', kind: 'x', message: 'm' } },
    };
    expect(parseAction(nested)).toEqual(nested);
    for (const action of [
      { type: 'plan', message: 'm' },
      { type: 'resume', plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', message: 'go on' },
      { type: 'command', command: '/review', arguments: 'src', sessionId: 'ses_1' },
      { type: 'emit', kind: 'deploy.done:prod', message: '' },
      { type: 'cancel', scheduleId: newAgendaId(), reason: 'r' },
    ]) {
      expect(parseAction(action)).toEqual(action);
    }
  });

  it('should refuse a misspelt key, a time without zone, a bad plan_id and a kind with spaces, saying what was expected', () => {
    expect(() => parseTrigger({ type: 'time', executeat: '2030-01-01T09:00:00Z' })).toThrow(/Invalid trigger .*executeAt/);
    expect(() => parseTrigger({ type: 'time', executeAt: '2030-01-01T09:00:00' })).toThrow(/expected executeAt as an ISO 8601 date-time with Z or an offset/);
    expect(() => parseAction({ type: 'resume', plan_id: '../etc' })).toThrow(/expected a plan_id/);
    expect(() => parseAction({ type: 'emit', kind: 'tests passed', message: '' })).toThrow(/expected an event kind like "tests.passed"/);
    expect(() => parseTrigger({ type: 'event', eventKind: [] })).toThrow(/expected at least one event kind/);
    expect(() => parseAction({ type: 'nap' })).toThrow(AgendaInputError);
  });

  it('should quote at most ~100 characters of a bad input', () => {
    const huge = { type: 'time', executeAt: 'x'.repeat(5000) };
    let message = '';
    try {
      parseTrigger(huge);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid trigger /);
    expect(message.length).toBeLessThan(400);
    expect(quote('y'.repeat(300))).toBe(`${JSON.stringify('y'.repeat(300)).slice(0, 100)}… (302 characters)`);
  });
});

describe('agenda ids', () => {
  it('should be agn_ and a ULID, validated like plan ids', () => {
    const id = newAgendaId(T0);
    expect(isAgendaId(id)).toBe(true);
    expect(parseAgendaId(id)).toBe(id);
    for (const bad of ['agn_', 'agn_../../x', `plan_${id.slice(4)}`, `${id}x`, 42]) {
      expect(() => parseAgendaId(bad)).toThrow(/expected "agn_" followed by 26 ULID characters/);
    }
  });

  it('should refuse a bad id from a tool before touching the store', () => {
    const { agenda } = harness();
    expect(() => agenda.cancel('agn_nope')).toThrow(/Invalid agendaId "agn_nope"/);
    expect(() => agenda.get(newAgendaId())).toThrow(/does not exist/);
  });

  it('should refuse a time more than a minute in the past, and a cron that never fires', () => {
    const { agenda } = harness();
    expect(() => agenda.create(item(at(T0 - 2 * 60_000), { type: 'emit', kind: 'x', message: '' }))).toThrow(/executeAt .* is in the past/);
    expect(agenda.create(item(at(T0 - 30_000), { type: 'emit', kind: 'x', message: '' })).status).toBe('pending');
    expect(() => agenda.create(item({ type: 'cron', expression: '0 0 0 1 1 * 2020' }, { type: 'emit', kind: 'x', message: '' }))).toThrow(/never fires after now/);
    expect(() => agenda.create(item({ type: 'event', eventKind: 'x', expiresAt: new Date(T0 - HOUR).toISOString() }, { type: 'emit', kind: 'y', message: '' }))).toThrow(/expiresAt .* is in the past/);
  });
});
