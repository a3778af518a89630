import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { agendaItemMachine, type AgendaItemStatus } from '../machines/agenda-item.machine.js';
import { AgendaStateError } from './errors.js';
import type { CreatedLine, ItemLine } from './events.js';

/**
 * An item's state is the fold of its log lines through its statechart, with xstate's pure
 * `initialTransition` / `transition`: no actor, nothing runs, the same lines give the same state.
 */

export type ItemSnapshot = SnapshotFrom<typeof agendaItemMachine>;

export const itemStart = (created: CreatedLine): ItemSnapshot =>
  initialTransition(agendaItemMachine, { agendaId: created.agendaId, recurring: created.trigger.type === 'cron' })[0];

/** The next state, or an AgendaStateError when the machine does not accept the line in this state. */
export function itemStep(snapshot: ItemSnapshot, line: ItemLine): ItemSnapshot {
  if (!snapshot.can(line)) {
    const firing = 'firing' in line ? ` (firing ${line.firing}; last started ${snapshot.context.firing})` : '';
    throw new AgendaStateError(
      `${line.type} is not accepted for ${line.agendaId} in state ${statusOf(snapshot)}${firing}`,
    );
  }
  return transition(agendaItemMachine, snapshot, line)[0];
}

export const statusOf = (snapshot: ItemSnapshot): AgendaItemStatus => snapshot.value as AgendaItemStatus;
