import { describe, expect, it } from 'vitest';
import { agendaItemMachine, type AgendaItemInput } from '../../src/machines/agenda-item.machine.js';
import { itemStart, itemStep, statusOf } from '../../src/agenda/fold.js';
import type { CreatedLine, ItemLine } from '../../src/agenda/events.js';
import { AgendaStateError } from '../../src/agenda/errors.js';
import { coverTransitions, replay } from '../support/model-coverage.js';
import { renderStatecharts } from '../../src/statecharts/export.js';

const id = 'agn_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
const at = '2030-01-01T00:00:00.000Z';
const started = (firing: number): ItemLine => ({ type: 'agenda.started', at, agendaId: id, firing, depth: 0 });
const executed = (firing: number): ItemLine => ({ type: 'agenda.executed', at, agendaId: id, firing, result: 'ok' });
const failed = (firing: number): ItemLine => ({ type: 'agenda.failed', at, agendaId: id, firing, error: 'boom' });
const cancelled: ItemLine = { type: 'agenda.cancelled', at, agendaId: id, reason: 'no longer needed' };
const expired: ItemLine = { type: 'agenda.expired', at, agendaId: id };

// Each state offers the lines that may come next, and the wrong firing numbers a corrupt log could hold.
const events = (s: any): ItemLine[] => {
  const firing: number = s.context.firing;
  switch (s.value) {
    case 'pending':
      return [started(firing + 1), started(firing), started(firing + 2), cancelled, expired];
    case 'running':
      return [executed(firing), executed(firing + 1), failed(firing), failed(firing - 1)];
    default:
      return [];
  }
};

// Firings past the second look alike: a recurring item's chart is finite even if its log is not.
const serialize = (s: any) => [s.value, Math.min(s.context.firing, 2), s.context.recurring].join('|');

const input = (recurring: boolean): AgendaItemInput => ({ agendaId: id, recurring });

describe('agenda item machine (model-based)', () => {
  it('should take every transition of the chart', () => {
    const once = coverTransitions({ machine: agendaItemMachine, input: input(false), events, serializeState: serialize });
    const cron = coverTransitions({ machine: agendaItemMachine, input: input(true), events, serializeState: serialize });
    const covered = new Set([...once.covered, ...cron.covered]);
    const missing = [...once.all].filter(([t]) => !covered.has(t)).map(([, label]) => label);
    expect(missing).toEqual([]);
    expect(covered.size).toBe(once.all.size);
    console.info(
      `agenda item machine: ${covered.size}/${once.all.size} transitions, ${once.states + cron.states} states, ${once.edges + cron.edges} edges`,
    );
  });

  it('should be drawn into statecharts/ with its guards', () => {
    const chart = renderStatecharts()['agenda-item.mmd'];
    expect(chart).toContain('pending --> running : agenda.started [isNextFiring]');
    expect(chart).toContain('firing_executed --> pending : always [isRecurring]');
    expect(chart).toContain('firing_failed --> failed : always');
  });

  it('should end a one-shot item in executed or failed', () => {
    expect(replay(agendaItemMachine, input(false), [started(1), executed(1)]).snapshot.value).toBe('executed');
    const failedOnce = replay(agendaItemMachine, input(false), [started(1), failed(1)]).snapshot;
    expect(failedOnce.value).toBe('failed');
    expect(failedOnce.status).toBe('done');
    expect(failedOnce.context.lastError).toBe('boom');
  });

  it('should return a recurring item to pending after each firing, counting its firings', () => {
    const { snapshot } = replay(agendaItemMachine, input(true), [started(1), executed(1), started(2), failed(2), started(3)]);
    expect(snapshot.value).toBe('running');
    expect(snapshot.context).toMatchObject({ firing: 3, executions: 1, failures: 1, lastError: 'boom' });
  });
});

describe('agenda item fold', () => {
  const created = (recurring: boolean): CreatedLine => ({
    type: 'agenda.created',
    at,
    agendaId: id,
    trigger: recurring ? { type: 'cron', expression: '0 9 * * *' } : { type: 'time', executeAt: at },
    action: { type: 'emit', kind: 'x', message: '' },
    reason: 'r',
    createdBy: 'ses_1',
    depth: 0,
  });

  it('should fold lines purely into the same state as an actor reaches', () => {
    const lines = [started(1), executed(1)];
    const folded = lines.reduce(itemStep, itemStart(created(true)));
    expect(statusOf(folded)).toBe('pending');
    expect(folded.context.executions).toBe(1);
    expect(folded.value).toBe(replay(agendaItemMachine, input(true), lines).snapshot.value);
  });

  it('should refuse a line the machine does not accept in the current state, leaving the state as it was', () => {
    const done = [started(1), executed(1)].reduce(itemStep, itemStart(created(false)));
    expect(() => itemStep(done, executed(1))).toThrow(AgendaStateError);
    expect(() => itemStep(done, executed(1))).toThrow('agenda.executed is not accepted for agn_01JDX4Z6Q5H2M3N4P5R6S7T8V9 in state executed');
    expect(() => itemStep(itemStart(created(true)), started(2))).toThrow(/firing 2; last started 0/);
    const running = itemStep(itemStart(created(false)), started(1));
    expect(() => itemStep(running, cancelled)).toThrow(/agenda.cancelled is not accepted .* in state running/);
    expect(statusOf(running)).toBe('running');
  });
});
