import { tool } from '@opencode-ai/plugin';
import type { Orca } from '../orca.js';
import { parsePlanId } from '../persistence/plan-id.js';
import { toolError } from './tool-error.js';

export function describePlanTool(orca: Orca) {
  return tool({
    description:
      'Describe one plan: goal, steps with their agents and dependencies, assumptions, risks, verification ' +
      'criteria, and the execution state with each finished step\'s output.',
    args: { plan_id: tool.schema.string().describe('The plan, as listed by orca_list_plans.') },
    async execute(args) {
      try {
        const planId = parsePlanId(args.plan_id);
        if (orca.host.isLive(planId)) orca.host.flush(planId);
        const { snapshot: _snapshot, schema_version: _s, machine_version: _m, ...plan } = orca.store.load(planId);
        return JSON.stringify(plan, null, 2);
      } catch (error) {
        return toolError(error);
      }
    },
  });
}
