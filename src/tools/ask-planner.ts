import { z } from 'zod';
import { drivePlan, type GateResolver } from '../host/drive.js';
import type { Orca } from '../composition-root.js';
import { autoAnswer, resolveGate, type GateResolverDeps } from '../hitl/resolve.js';
import { followInSession } from '../hitl/session-gate.js';
import { pausedNote } from '../notices/plan-notes.js';
import { renderDrive } from './render.js';
import { defineTool } from './define-tool.js';
import { planIdArg, PLAN_ID_EXPECTED } from './plan-id-arg.js';
import { toolError } from './tool-error.js';
import { followProgressTitle } from '../notices/progress-title.js';
import type { PlanActor, PlanSnapshot } from '../host/plan-host.js';
import { openGates, WAITING_WORDS } from '../machines/gates.js';

export const ASK_PLANNER_DESCRIPTION =
  "Send the user's message to the planner. Creates a plan (omit plan_id) or continues one (pass its plan_id). " +
  'Returns when the planner answers, when the plan waits for the human or runs, or when it is completed, stopped, rejected or fails; approval and ' +
  'deviation decisions are asked of the human by the plugin, not by you.';

/** What orca_ask_planner uses of Orca: the plans, their progress title and notes, the follower of plans in their session, and what resolving a gate needs. */
export type AskPlannerOrca = Pick<Orca, 'host' | 'titles' | 'turnFollowers' | 'notes' | 'log' | 'follower'> & GateResolverDeps;

/** What the plugin hands the tool beside Orca. */
export interface AskPlannerOptions {
  /** The plan viewer's URL while it is on. */
  viewerUrl?: () => string | undefined;
  /**
   * `ask_planner_returns`. "early" (default): return as soon as the plan waits for a person
   * (`status: "asking"`) or runs (`status: "running"`), the auto policy answering the gates it covers
   * meanwhile; from then on the plan is followed in the session (hitl/session-gate.ts): each gate's
   * document is posted there with its dialog under it, each step done and the outcome are notes.
   * "outcome": follow the plan to its outcome, asking each gate during the call (documents on pages).
   */
  returns?: 'early' | 'outcome';
}

/** The plan runs with nothing to ask: where an early call returns (the chart's tag). */
const runsOnItsOwn = (snapshot: PlanSnapshot) => snapshot.hasTag('plan.running');

/** Why an early call stopped following its plan. */
const DETACHED = new Error('the plan runs: the call returns and notes follow it');
/** Why an early call's drive stopped at a gate: a person answers it in the session, after the call. */
const ASKED_IN_SESSION = 'asked in the session once the call returns';

export function askPlannerTool(orca: AskPlannerOrca, { viewerUrl, returns = 'early' }: AskPlannerOptions = {}) {
  const early = returns === 'early';
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
            turn: ctx.abort,
            log: (level, message) => orca.log(level, message),
            ...(viewerUrl ? { viewerUrl } : {}),
          })
        : null;
      // While this call follows the plan, its result reports the outcome: nobody else posts it.
      const unfollow = orca.turnFollowers.follow(planId);
      // Early: the drive stops once the chart runs the plan, or at a gate the auto policy does not answer.
      const actor = orca.host.open(planId);
      const following = early ? detachWhenRunning(actor, ctx.abort) : null;
      const resolve: GateResolver = early
        ? async (gate) => autoAnswer(orca, gate) ?? { waiting: ASKED_IN_SESSION }
        : (gate, signal) => resolveGate(orca, gate, ctx, signal);
      /** From here on the plan is followed in its session: notes, and each gate's note and dialog there. */
      const handOver = async () => {
        unfollow(); // before the follower's first change: from now on the notes tell the session
        const snapshot = orca.host.open(planId).getSnapshot();
        await followInSession(orca, planId, snapshot.context.caller_session_id ?? ctx.sessionID);
        return snapshot;
      };
      try {
        const result = await drivePlan(orca.host, planId, resolve, following?.signal ?? ctx.abort);
        // No title update may land after the result: OpenCode completes the part once this returns.
        await progress?.stop();
        if (result.kind === 'waiting' && result.reason === ASKED_IN_SESSION) {
          const rendered = renderAsking(await handOver(), ctx.sessionID);
          return { title: `plan ${planId}: asking`, output: JSON.stringify(rendered, null, 2), metadata: rendered };
        }
        const rendered = renderDrive(result);
        const spent = typeof rendered.spent === 'string' ? ` · ${rendered.spent}` : '';
        return { title: `plan ${planId}: ${String(rendered.status)}${spent}`, output: JSON.stringify(rendered, null, 2), metadata: rendered };
      } catch (error) {
        await progress?.stop();
        if (following?.signal.reason === DETACHED && !ctx.abort.aborted) {
          const rendered = renderRunning(await handOver());
          return { title: `plan ${planId}: running`, output: JSON.stringify(rendered, null, 2), metadata: rendered };
        }
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
        following?.stop();
        unfollow();
      }
    },
  });
}

/** A signal that aborts with DETACHED once the plan runs on its own (or with the call's own abort). */
function detachWhenRunning(actor: PlanActor, abort: AbortSignal): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const forward = () => controller.abort(abort.reason);
  abort.addEventListener('abort', forward, { once: true });
  const check = (s: PlanSnapshot) => {
    if (!controller.signal.aborted && runsOnItsOwn(s)) controller.abort(DETACHED);
  };
  const watch = actor.subscribe(check);
  check(actor.getSnapshot());
  return {
    signal: controller.signal,
    stop() {
      watch.unsubscribe();
      abort.removeEventListener('abort', forward);
    },
  };
}

/**
 * The result of an early call whose plan runs: nothing is done yet. It says so to the model in words
 * it cannot mistake for an outcome, and where the rest will come from. Not the viewer's URL: its
 * token opens the decision buttons, and a tool result goes to the model's provider.
 */
export function renderRunning(snapshot: PlanSnapshot): Record<string, unknown> {
  const c = snapshot.context;
  return {
    status: 'running',
    plan_id: c.plan_id,
    goal: c.goal,
    steps: c.steps.map((s) => ({ id: s.id, agent: s.agent, description: s.description, status: s.status, ...(s.output ? { summary: s.output.summary } : {}) })),
    progress:
      'Approved and running in the background. Orca posts a note in this session when each step is done, when the plan stops for a decision (with its dialog), and when it ends (no model turn).',
    instructions:
      'Tell the user the plan runs and that its progress and outcome will appear here. Report no result: the steps above without a summary have not run yet. ' +
      'For where it stands now call orca_describe_plan. The user pauses it with /orca-pause and resumes it with /orca-resume.',
  };
}

/**
 * The result of an early call whose plan waits for a person: the plugin posts what to read in the
 * session and asks there; the model says so and nothing else (it would only repeat the plan, or answer for the human).
 */
export function renderAsking(snapshot: PlanSnapshot, callerSessionId: string): Record<string, unknown> {
  const c = snapshot.context;
  const gate = openGates(snapshot)[0];
  const where = c.caller_session_id && c.caller_session_id !== callerSessionId ? `the session that started it (${c.caller_session_id})` : 'this session';
  return {
    status: 'asking',
    plan_id: c.plan_id,
    ...(c.goal ? { goal: c.goal } : {}),
    waiting_for: gate ? WAITING_WORDS[gate.kind] : 'a decision',
    ...(gate?.kind === 'approval' ? { steps: gate.proposal.steps.length } : {}),
    shown: `Orca posts everything the user needs for this decision in ${where}, as a note, and asks them in a dialog under it (no model turn).`,
    instructions:
      'Tell the user in one short sentence that the plan waits for their decision below. Do not repeat, summarise or judge the plan, and do not decide for them. ' +
      'The outcome and each step will be posted in the session; forward a later message about this plan with its plan_id.',
  };
}
