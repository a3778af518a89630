import { z } from 'zod';
import { nextDue } from '../agenda/describe.js';
import { continueCommand, firingPlan } from '../agenda/firing-plan.js';
import type { AgendaItemView } from '../agenda/view.js';
import type { Orca } from '../composition-root.js';
import { defineTool } from './define-tool.js';
import { agendaToolError, itemJson, type AgendaOrca } from './agenda-shared.js';

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

const STATUSES = ['active', 'all', 'pending', 'running', 'executed', 'failed', 'cancelled', 'expired'] as const;

export function agendaListTool(orca: Pick<AgendaOrca, 'agenda'> & Pick<Orca, 'directory'>) {
  return defineTool({
    name: 'agenda_list',
    description:
      "List the project's agenda items, oldest first: by default the active ones (pending or running), with their trigger, action, reason, next due time, last result and when it last fired, and for a firing that started a plan what became of that plan now (plan); whether the agenda is paused.",
    args: {
      status: z.enum(STATUSES).optional().describe('Which items: active (default), all, or one status.'),
      limit: z.number().int().min(1).max(200).optional().describe('At most this many, the most recent (default 50).'),
    },
    expected: {
      status: `one of ${STATUSES.join(', ')}`,
      limit: 'an integer from 1 to 200',
    },
    async execute({ status = 'active', limit = 50 }) {
      try {
        const items = orca.agenda.list({ status });
        const shown = items.slice(Math.max(0, items.length - limit));
        return JSON.stringify(
          {
            paused: orca.agenda.paused,
            total: items.length,
            next_due: nextDue(items),
            ...(shown.length < items.length ? { note: `the ${shown.length} most recent of ${items.length}` } : {}),
            items: shown.map((item) => listedItem(orca.directory, item)),
          },
          null,
          2,
        );
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
