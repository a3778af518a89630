import { tool } from '@opencode-ai/plugin';
import { drivePlan } from '../engine/drive.js';
import type { Orca } from '../orca.js';
import { resolveGate } from '../hitl/resolve.js';
import { parsePlanId } from '../persistence/plan-id.js';
import { renderDrive } from './render.js';
import { toolError } from './tool-error.js';

export const ASK_PLANNER_DESCRIPTION =
  "Send the user's message to the planner. Creates a plan (omit plan_id) or continues one (pass its plan_id). " +
  'Returns when the planner answers, or when the plan is completed, stopped, rejected or fails; approval and ' +
  'deviation decisions are asked of the human by the plugin, not by you.';

export function askPlannerTool(orca: Orca) {
  return tool({
    description: ASK_PLANNER_DESCRIPTION,
    args: {
      message: tool.schema.string().min(1).describe("The user's message, verbatim."),
      plan_id: tool.schema.string().optional().describe('The plan to continue, as returned by an earlier call.'),
    },
    async execute(args, ctx) {
      let planId: string;
      try {
        if (args.plan_id === undefined) {
          planId = orca.host.create({ message: args.message, callerSessionId: ctx.sessionID }).getSnapshot().context.plan_id;
        } else {
          planId = parsePlanId(args.plan_id);
          const event = { type: 'plan.message' as const, message: args.message, callerSessionId: ctx.sessionID };
          // Only states that wait for the user's next message take it; a running plan is just followed.
          // A plan whose last server was killed is still leased for a few seconds: wait for it.
          if ((await orca.host.openWhenFree(planId, ctx.abort)).getSnapshot().can(event)) orca.host.send(planId, event);
        }
        ctx.metadata({ title: `plan ${planId}`, metadata: { plan_id: planId } });
      } catch (error) {
        return toolError(error);
      }
      try {
        const result = await drivePlan(orca.host, planId, (gate, signal) => resolveGate(orca, gate, ctx, signal), ctx.abort);
        const rendered = renderDrive(result);
        return { title: `plan ${planId}: ${String(rendered.status)}`, output: JSON.stringify(rendered, null, 2), metadata: rendered };
      } catch (error) {
        if (ctx.abort.aborted) {
          // Esc: stop following; the plan keeps its last saved state and resumes with the same plan_id.
          orca.host.release(planId);
          orca.log('info', `plan ${planId}: interrupted by the user, saved state kept`);
          return JSON.stringify({ status: 'interrupted', plan_id: planId, resume: 'Call orca_ask_planner with this plan_id.' });
        }
        return toolError(error, planId);
      }
    },
  });
}
