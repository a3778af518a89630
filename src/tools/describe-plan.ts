import type { Orca } from '../composition-root.js';
import { changesSinceRevision, diffLines } from '../machines/plan-diff.js';
import { planIdArg, PLAN_ID_EXPECTED } from './plan-id-arg.js';
import { defineTool } from './define-tool.js';
import { forecastPlan, forecastText } from '../usage/forecast.js';
import { stepChanges } from './render.js';

export function describePlanTool(orca: Pick<Orca, 'host' | 'store' | 'history'>) {
  return defineTool({
    name: 'orca_describe_plan',
    description:
      'Describe one plan: goal, steps with their agents and dependencies, assumptions, risks, verification ' +
      "criteria, the execution state with each finished step's output, what each step really changed (files with " +
      '+/- lines, files outside its declared ones flagged; at a merge gate, the conflicts), what its turns cost ' +
      '(usage per step and in total) and a forecast of what the plan needs (dispatches, estimated tokens and cost).',
    args: { plan_id: planIdArg.describe('The plan, as listed by orca_list_plans.') },
    expected: { plan_id: PLAN_ID_EXPECTED },
    async execute({ plan_id: planId }) {
      if (orca.host.isLive(planId)) orca.host.flush(planId);
      const { snapshot, schema_version: _s, machine_version: _m, ...file } = orca.store.load(planId);
      // Each step's diff as its digest and its conflicts cut: the agent reads this whole; orca show and the patch have the rest.
      const plan = { ...file, steps: file.steps.map(({ diff, conflicts, ...step }) => ({ ...step, ...stepChanges({ status: step.status, diff, conflicts }) })) };
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
