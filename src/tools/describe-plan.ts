import type { Orca } from '../composition-root.js';
import { changesSinceRevision, diffLines } from '../machines/plan-diff.js';
import { planIdArg, PLAN_ID_EXPECTED } from './plan-id-arg.js';
import { defineTool } from './define-tool.js';

export function describePlanTool(orca: Pick<Orca, 'host' | 'store'>) {
  return defineTool({
    name: 'orca_describe_plan',
    description:
      'Describe one plan: goal, steps with their agents and dependencies, assumptions, risks, verification ' +
      "criteria, and the execution state with each finished step's output.",
    args: { plan_id: planIdArg.describe('The plan, as listed by orca_list_plans.') },
    expected: { plan_id: PLAN_ID_EXPECTED },
    async execute({ plan_id: planId }) {
      if (orca.host.isLive(planId)) orca.host.flush(planId);
      const { snapshot: _snapshot, schema_version: _s, machine_version: _m, ...plan } = orca.store.load(planId);
      const changes = changesSinceRevision(plan);
      return JSON.stringify({ ...plan, ...(changes ? { changes_since_previous_version: diffLines(changes) } : {}) }, null, 2);
    },
  });
}
