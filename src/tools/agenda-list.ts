import { nextDue } from '../agenda/describe.js';
import { continueCommand, firingPlan } from '../agenda/firing-plan.js';
import type { AgendaItemView } from '../agenda/view.js';
import type { Orca } from '../composition-root.js';
import { agendaOp, itemJson, type AgendaOrca } from './agenda-shared.js';

/** Finished items (executed, failed, cancelled, expired) shown after the active ones: the latest, enough to say what just ran. */
export const FINISHED_SHOWN = 10;

/** An item with what became of the plan its last firing started, read from the plan file now. */
function listedItem(directory: string, item: AgendaItemView) {
  const plan = firingPlan(directory, item);
  if (!plan) return itemJson(item);
  return {
    ...itemJson(item),
    ...(item.lastFiredAt ? { lastFiredAt: item.lastFiredAt } : {}),
    plan: {
      planId: plan.planId,
      now: plan.now,
      words: plan.words,
      ...(plan.waitingFor ? { waitingFor: plan.waitingFor } : {}),
      ...(plan.now === 'interrupted'
        ? { resume: `Call orca_ask_planner with plan_id ${plan.planId} to resume it from its saved state (from a shell: ${continueCommand(item.agendaId)}).` }
        : {}),
    },
  };
}

/**
 * `agenda` op list (seed 002's agenda_list): every active item (pending or running; the rails keep
 * them few) and the latest finished ones, oldest first, with trigger, action, reason, next due time,
 * last result, and for a firing that started a plan what became of that plan now; whether the
 * agenda is paused.
 */
export function agendaListOp(orca: Pick<AgendaOrca, 'agenda'> & Pick<Orca, 'directory'>) {
  return agendaOp({
    args: {},
    expected: {},
    async run() {
      const all = orca.agenda.list({ status: 'all' });
      const active = all.filter((item) => item.status === 'pending' || item.status === 'running');
      const finished = all.filter((item) => !active.includes(item));
      const shown = finished.slice(Math.max(0, finished.length - FINISHED_SHOWN));
      return JSON.stringify(
        {
          paused: orca.agenda.paused,
          active: active.length,
          next_due: nextDue(active),
          items: active.map((item) => listedItem(orca.directory, item)),
          finished: { total: finished.length, latest: shown.map((item) => listedItem(orca.directory, item)) },
        },
        null,
        2,
      );
    },
  });
}
