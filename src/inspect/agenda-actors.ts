import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Agenda } from '../agenda/agenda.js';
import { agendaItemMachine } from '../machines/agenda-item.machine.js';

/**
 * The agenda in the Stately inspector, only while it is on: one actor of the item machine per
 * item, fed the item's log lines as they are appended (its past first), so the inspector shows
 * the same transitions the fold computes. These actors decide nothing: the log is the truth.
 */
export function inspectAgendaItems(agenda: Pick<Agenda, 'observe'>, inspect: (event: InspectionEvent) => void): () => void {
  const actors = new Map<string, Actor<typeof agendaItemMachine>>();
  const unsubscribe = agenda.observe((line) => {
    if (line.type === 'bus.emitted') return;
    if (line.type === 'agenda.created') {
      const actor = createActor(agendaItemMachine, { input: { agendaId: line.agendaId, recurring: line.trigger.type === 'cron' }, inspect });
      actors.set(line.agendaId, actor.start());
      return;
    }
    actors.get(line.agendaId)?.send(line);
  });
  return () => {
    unsubscribe();
    for (const actor of actors.values()) actor.stop();
    actors.clear();
  };
}
