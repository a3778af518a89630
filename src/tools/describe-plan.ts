import type { Orca } from '../composition-root.js';
import { changesSinceRevision, diffLines } from '../machines/plan-diff.js';
import { planIdArg, PLAN_ID_EXPECTED } from './plan-id-arg.js';
import { defineTool } from './define-tool.js';
import { forecastPlan, forecastText } from '../usage/forecast.js';

export function describePlanTool(orca: Pick<Orca, 'host' | 'store' | 'history'>) {
  return defineTool({
    name: 'orca_describe_plan',
    description:
      'Describe one plan: goal, steps with their agents and dependencies, assumptions, risks, verification ' +
      "criteria, the execution state with each finished step's output, what its turns cost (usage per step and " +
      'in total) and a forecast of what the plan needs (dispatches, estimated tokens and cost).',
    args: { plan_id: planIdArg.describe('The plan, as listed by orca_list_plans.') },
    expected: { plan_id: PLAN_ID_EXPECTED },
    async execute({ plan_id: planId }) {
      if (orca.host.isLive(planId)) orca.host.flush(planId);
      const { snapshot, schema_version: _s, machine_version: _m, ...plan } = orca.store.load(planId);
      const changes = changesSinceRevision(plan);
      const reviewAgents = (snapshot.context as { policy?: { review_agents?: string[] } }).policy?.review_agents ?? [];
      const forecast = forecastPlan(plan.steps, reviewAgents, (agent) => orca.history.stats(agent));
      return JSON.stringify(
        { ...plan, ...(changes ? { changes_since_previous_version: diffLines(changes) } : {}), forecast: { ...forecast, text: forecastText(forecast) } },
        null,
        2,
      );
    },
  });
}
