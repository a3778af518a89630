import { z } from 'zod';
import type { Orca } from '../composition-root.js';
import { listSummaries } from '../persistence/plan-index.js';
import { defineTool } from './define-tool.js';
import { renderPlanList } from './render.js';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;

export function listPlansTool(orca: Pick<Orca, 'host'>) {
  return defineTool({
    name: 'orca_list_plans',
    description:
      `List the plans of this project, newest first, ${LIST_LIMIT_DEFAULT} at a time: plan_id, goal, status, what it is doing ` +
      '(activity: waiting for a human, running, paused until resumed, or idle), step progress and updated time, with how ' +
      'many there are in all and the offset of the next page.',
    args: {
      limit: z
        .number()
        .int()
        .min(1)
        .max(LIST_LIMIT_MAX)
        .optional()
        .describe(`At most this many (1-${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}).`),
      offset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('How many of the newest to skip (default 0).'),
    },
    expected: {
      limit: `an integer from 1 to ${LIST_LIMIT_MAX}`,
      offset: 'an integer of 0 or more',
    },
    async execute({ limit = LIST_LIMIT_DEFAULT, offset = 0 }) {
      return JSON.stringify(renderPlanList(listSummaries(orca.host.index), { offset, limit }, (id) => orca.host.isHeld(id)), null, 2);
    },
  });
}
