import { decodeTime } from 'ulid';
import type { AgendaPorts, ExecutionRequest, ExecutionResult, ReconcileResult } from '../ports.js';
import { checkGateCommands } from '../rails.js';
import type { CommandAction, PlanAction, ResumeAction } from '../schema.js';
import { openGates, type Gate } from '../../machines/gates.js';
import type { PlanEvent } from '../../machines/plan.machine.js';
import { listSummaries } from '../../persistence/plan-index.js';
import type { PlanStore } from '../../persistence/plan-store.js';
import { outcomeOf } from '../../host/drive.js';
import type { PlanFollower } from '../../host/follow.js';
import type { PlanHost, PlanSnapshot } from '../../host/plan-host.js';
import { isFinalPlanStatus } from '../../machines/types.js';

/**
 * The agenda's actions that need Orca (docs/design.md, "Items, triggers and actions"): `plan`
 * starts a plan exactly as orca_ask_planner without plan_id would, recording the item firing in it;
 * `resume` continues one as orca_ask_planner with its plan_id would; `command` runs a slash command
 * in a session. The plan stops at pending_approval for a human (or the auto policy, which the
 * follower applies). `reconcile` says what a firing a crash interrupted did, from the plans.
 */

/** Runs a slash command in a session through OpenCode's client, resolving with the reply's text once its turn has ended. */
export type CommandRunner = (input: { sessionId: string; command: string; arguments: string }) => Promise<{ text: string }>;

export interface AgendaActionDeps {
  host: PlanHost;
  store: PlanStore;
  follower: PlanFollower;
  runCommand: CommandRunner;
  /** Whether a session still exists (a plan's caller session parents its planner session). */
  sessionExists: (sessionId: string) => Promise<boolean>;
  /** Whether the auto policy answers this gate (then the firing waits for what it chose). */
  autoAnswers: (gate: Gate) => boolean;
  /** Aborted when Orca stops: a firing waiting for its plan's first stop returns what it has. */
  signal?: AbortSignal;
  /** How long a firing waits for its plan's first stop (the proposal, an answer) before it counts as done (default 60 s). */
  firstStopMs?: number;
}

export const FIRST_STOP_MS = 60_000;

export function agendaActions(deps: AgendaActionDeps): Pick<AgendaPorts, 'execute' | 'reconcile'> {
  const firstStopMs = deps.firstStopMs ?? FIRST_STOP_MS;
  /** An outcome, or a gate only a human answers: where the plan stops for now. */
  const stopped = (s: PlanSnapshot) => outcomeOf(s) !== null || openGates(s).some((g) => !deps.autoAnswers(g));

  async function startPlan(request: ExecutionRequest, action: PlanAction): Promise<ExecutionResult> {
    const caller = request.sessionId && (await deps.sessionExists(request.sessionId).catch(() => false)) ? request.sessionId : null;
    const actor = deps.host.create({
      message: action.message,
      callerSessionId: caller,
      agendaItem: { agenda_id: request.agendaId, firing: request.firing },
    });
    const planId = actor.getSnapshot().context.plan_id;
    deps.follower.follow(planId);
    // Past drafting and approval (approved by the auto policy, running) counts as a stop too.
    const started = (s: PlanSnapshot) => stopped(s) || !(s.matches('drafting') || s.matches('pending_approval'));
    const stop = await firstStop(deps.host, planId, started, firstStopMs, deps.signal);
    return { result: words(stop), planId, ...(caller ? { actualSessionId: caller } : {}) };
  }

  async function resumePlan(action: ResumeAction): Promise<ExecutionResult> {
    const planId = action.plan_id;
    const summary = deps.host.index.getSnapshot().context.plans[planId];
    if (!summary) throw new Error(`${planId} does not exist in this project (orca_list_plans lists the plans)`);
    if (isFinalPlanStatus(summary.status)) return { result: `${planId} is already ${summary.status}: nothing to resume`, planId };
    const actor = await deps.host.openWhenFree(planId);
    let note = '';
    if (action.message !== undefined) {
      const event: PlanEvent = { type: 'plan.message', message: action.message };
      if (actor.getSnapshot().can(event)) deps.host.send(planId, event);
      else note = ` (its message was not delivered: the plan ${waitWords(actor.getSnapshot())})`;
    }
    deps.follower.follow(planId);
    const stop = await firstStop(deps.host, planId, stopped, firstStopMs, deps.signal);
    return { result: `${planId} resumed: ${words(stop)}${note}`, planId };
  }

  async function command(request: ExecutionRequest, action: CommandAction): Promise<ExecutionResult> {
    checkGateCommands(action); // the rails refused it at creation and at this firing already; never trust one check
    const name = action.command.replace(/^\//, '');
    const reply = await deps.runCommand({ sessionId: action.sessionId, command: name, arguments: action.arguments ?? '' });
    const said = reply.text.replace(/\s+/g, ' ').trim();
    return { result: `/${name} ran in ${action.sessionId}${said ? `: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}` : ''}`, actualSessionId: request.sessionId ?? action.sessionId };
  }

  return {
    async execute(request) {
      const { action } = request;
      switch (action.type) {
        case 'plan':
          return startPlan(request, action);
        case 'resume':
          return resumePlan(action);
        case 'command':
          return command(request, action);
      }
    },

    async reconcile(request): Promise<ReconcileResult> {
      const { action, idempotencyKey } = request;
      if (action.type === 'plan') {
        const found = planOfFiring(deps, request);
        if (!found) return { outcome: 'failed', error: `interrupted by a restart before its plan was created (no plan records ${idempotencyKey}); not run again` };
        // A plan that waits at a gate gets its follower back (the auto policy applies); a busy one is listed at start, never re-run silently.
        if (found.waiting_for !== null) deps.follower.follow(found.plan_id);
        const now = found.waiting_for ? `waits for ${found.waiting_for}` : found.status;
        return { outcome: 'executed', result: `${found.plan_id} was created before the restart (${now}); not started again`, planId: found.plan_id };
      }
      if (action.type === 'resume') {
        return { outcome: 'failed', error: `interrupted by a restart while resuming ${action.plan_id}; not resumed again (resume it with orca_ask_planner)` };
      }
      return { outcome: 'failed', error: `interrupted by a restart while /${action.command.replace(/^\//, '')} ran in ${action.sessionId}; whether it finished is unknown, so it is not run again` };
    },
  };
}

/** The plan whose file records this firing, looked for among the plans created since the item (or the firing's due time). */
function planOfFiring(deps: Pick<AgendaActionDeps, 'host' | 'store'>, request: ExecutionRequest) {
  const since = Math.max(decodeTime(request.agendaId.slice('agn_'.length)), request.dueAt ? Date.parse(request.dueAt) : 0) - 60_000;
  for (const summary of listSummaries(deps.host.index)) {
    if (decodeTime(summary.plan_id.slice('plan_'.length)) < since) break; // newest first: the rest are older
    try {
      const item = deps.store.load(summary.plan_id).agenda_item;
      if (item?.agenda_id === request.agendaId && item.firing === request.firing) return summary;
    } catch {
      // a file that does not load is quarantined by load, and records nothing we can use
    }
  }
  return null;
}

/** The plan's snapshot once `predicate` holds, or as it is after `ms` or when Orca stops (still working). */
async function firstStop(host: PlanHost, planId: string, predicate: (s: PlanSnapshot) => boolean, ms: number, stopping?: AbortSignal): Promise<PlanSnapshot> {
  const timeout = AbortSignal.timeout(ms);
  const signal = stopping ? AbortSignal.any([timeout, stopping]) : timeout;
  try {
    return await host.waitFor(planId, predicate, signal);
  } catch (error) {
    if (!signal.aborted || !host.isLive(planId)) throw error;
    return host.open(planId).getSnapshot();
  }
}

function waitWords(s: PlanSnapshot): string {
  const gate = openGates(s)[0];
  return gate ? `waits for ${gate.kind === 'approval' ? 'approval' : gate.kind}` : `is ${String(typeof s.value === 'string' ? s.value : Object.keys(s.value)[0])}`;
}

/** One line for the log, the toast and the agenda tool's list: where the plan is now. A planner failure fails the firing. */
function words(s: PlanSnapshot): string {
  const c = s.context;
  const id = c.plan_id;
  const gate = openGates(s)[0];
  if (gate?.kind === 'approval') {
    return `${id} proposed "${short(c.goal ?? c.request)}" (${c.steps.length} step(s)): waits for approval (/orca-approve, orca decide ${id} approve, or resume it)`;
  }
  if (gate?.kind === 'question') return `${id}: the planner asks a question; resume the plan to answer it`;
  if (gate) return `${id} waits for ${gate.kind}`;
  const last = c.decisions.at(-1);
  switch (outcomeOf(s)) {
    case 'outcome.failure':
      throw new Error(`${id}: the planner failed: ${c.planner_error ?? 'unknown error'} (resume it with orca_ask_planner and its plan_id)`);
    case 'outcome.answer':
      return `${id}: the planner answered: ${short(c.answer ?? '', 200)}`;
    case 'outcome.completed':
      return `${id} completed`;
    case 'outcome.rejected':
      return `${id} rejected${last?.text ? ` (${last.text})` : ''}`;
    case 'outcome.stopped':
      return `${id} stopped`;
    default:
      if (s.matches('drafting')) return `${id} created; the planner is still drafting (orca_list_plans follows it)`;
      return `${id} approved${last?.text ? ` (${last.text})` : ''}; running`;
  }
}

const short = (text: string, max = 80) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
