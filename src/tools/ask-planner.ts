import { z } from 'zod';
import { drivePlan } from '../host/drive.js';
import type { Orca } from '../composition-root.js';
import { resolveGate, type GateResolverDeps } from '../hitl/resolve.js';
import { pausedNote } from '../notices/plan-notes.js';
import { renderDrive } from './render.js';
import { defineTool } from './define-tool.js';
import { planIdArg, PLAN_ID_EXPECTED } from './plan-id-arg.js';
import { toolError } from './tool-error.js';
import { followProgressTitle } from '../notices/progress-title.js';

export const ASK_PLANNER_DESCRIPTION =
  "Send the user's message to the planner. Creates a plan (omit plan_id) or continues one (pass its plan_id). " +
  'Returns when the planner answers, or when the plan is completed, stopped, rejected or fails; approval and ' +
  'deviation decisions are asked of the human by the plugin, not by you.';

/** What orca_ask_planner uses of Orca: the plans, their progress title and notes, and what resolving a gate needs. */
export type AskPlannerOrca = Pick<Orca, 'host' | 'titles' | 'turnFollowers' | 'notes' | 'log'> & GateResolverDeps;

/** What the plugin hands the tool beside Orca: the plan viewer's URL while it is on. */
export interface AskPlannerOptions {
  viewerUrl?: () => string | undefined;
}

export function askPlannerTool(orca: AskPlannerOrca, { viewerUrl }: AskPlannerOptions = {}) {
  return defineTool({
    name: 'orca_ask_planner',
    description: ASK_PLANNER_DESCRIPTION,
    args: {
      message: z.string().regex(/\S/).describe("The user's message, verbatim."),
      plan_id: planIdArg.optional().describe('The plan to continue, as returned by an earlier call.'),
    },
    expected: {
      message: "a non-empty string: the user's message, verbatim",
      plan_id: `${PLAN_ID_EXPECTED}, to continue that plan; omit it to start a new plan`,
    },
    async execute(args, ctx) {
      let planId: string;
      if (args.plan_id === undefined) {
        planId = orca.host.create({ message: args.message, callerSessionId: ctx.sessionID }).getSnapshot().context.plan_id;
      } else {
        planId = args.plan_id;
        const event = { type: 'plan.message' as const, message: args.message, callerSessionId: ctx.sessionID };
        // Only states that wait for the user's next message take it; a running plan is just followed.
        // A plan whose last server was killed is still leased for a few seconds: wait for it.
        if ((await orca.host.openWhenFree(planId, ctx.abort)).getSnapshot().can(event)) orca.host.send(planId, event);
      }
      ctx.metadata({ title: `plan ${planId}`, metadata: { plan_id: planId } });
      // ctx.metadata shows nothing for plugin tools in 1.18.33 (https://github.com/anomalyco/opencode/issues/50313)
      // and the TUI draws only the call's input: the running part's title and input are changed through the server.
      const progress = orca.titles
        ? followProgressTitle({
            host: orca.host,
            titles: orca.titles,
            planId,
            call: { sessionID: ctx.sessionID, messageID: ctx.messageID, tool: 'orca_ask_planner', input: { message: args.message, plan_id: args.plan_id } },
            log: (level, message) => orca.log(level, message),
            ...(viewerUrl ? { viewerUrl } : {}),
          })
        : null;
      // While this call follows the plan, its result reports the outcome: nobody else posts it.
      const unfollow = orca.turnFollowers.follow(planId);
      try {
        const result = await drivePlan(orca.host, planId, (gate, signal) => resolveGate(orca, gate, ctx, signal), ctx.abort);
        // No title update may land after the result: OpenCode completes the part once this returns.
        await progress?.stop();
        const rendered = renderDrive(result);
        const spent = typeof rendered.spent === 'string' ? ` · ${rendered.spent}` : '';
        return { title: `plan ${planId}: ${String(rendered.status)}${spent}`, output: JSON.stringify(rendered, null, 2), metadata: rendered };
      } catch (error) {
        await progress?.stop();
        if (ctx.abort.aborted) {
          // Esc: stop following; the plan keeps its last saved state and resumes with the same plan_id.
          // OpenCode shows only "interrupted" for the turn: a note in the session says what became of the plan.
          const snapshot = orca.host.isLive(planId) ? orca.host.open(planId).getSnapshot() : null;
          await orca.host.release(planId);
          orca.log('info', `plan ${planId}: interrupted by the user, saved state kept`);
          const note = pausedNote(planId, snapshot);
          orca.notes.post(ctx.sessionID, note);
          return JSON.stringify({ status: 'interrupted', plan_id: planId, paused: note.replace(/^Orca: /, ''), resume: 'Call orca_ask_planner with this plan_id.' });
        }
        return toolError(error, planId);
      } finally {
        unfollow();
      }
    },
  });
}
