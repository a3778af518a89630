import { tool } from '@opencode-ai/plugin';
import type { Orca } from '../orca.js';
import { listSummaries } from '../persistence/plan-index.js';

export function listPlansTool(orca: Orca) {
  return tool({
    description: 'List the plans of this project, newest first: plan_id, goal, status and step progress.',
    args: {},
    async execute() {
      const plans = listSummaries(orca.host.index).map((p) => ({
        plan_id: p.plan_id,
        goal: p.goal,
        status: p.status,
        step_progress: `${p.step_progress.completed}/${p.step_progress.total}`,
        updated_at: p.updated_at,
      }));
      return JSON.stringify({ plans }, null, 2);
    },
  });
}
