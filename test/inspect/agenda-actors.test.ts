import type { InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { inspectAgendaItems } from '../../src/inspect/agenda-actors.js';
import { at, emitTo, harness, item, MINUTE, T0 } from '../agenda/harness.js';

describe('agenda items in the inspector', () => {
  it("should show one actor per item, its past replayed and its new lines sent as they are appended", async () => {
    const h = harness();
    const earlier = h.agenda.create(item(at(T0), emitTo('x')));
    await h.agenda.tick();
    const events: InspectionEvent[] = [];
    const stop = inspectAgendaItems(h.agenda, (e) => events.push(e));
    const later = h.agenda.create(item(at(T0 + 5 * MINUTE), emitTo('y')));
    h.agenda.cancel(later.agendaId, 'changed my mind');
    const states = (agendaId: string) =>
      events
        .filter((e): e is Extract<InspectionEvent, { type: '@xstate.snapshot' }> => e.type === '@xstate.snapshot')
        .filter((e) => (e.snapshot as unknown as { context: { agendaId: string } }).context.agendaId === agendaId)
        .map((e) => (e.snapshot as unknown as { value: string }).value);
    expect(states(earlier.agendaId)).toEqual(['pending', 'running', 'executed']);
    expect(states(later.agendaId)).toEqual(['pending', 'cancelled']);
    expect(events.filter((e) => e.type === '@xstate.actor')).toHaveLength(2);
    stop();
    h.agenda.create(item(at(T0 + 10 * MINUTE), emitTo('z')));
    expect(events.filter((e) => e.type === '@xstate.actor')).toHaveLength(2);
  });
});
