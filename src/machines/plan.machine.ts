import { ZERO_USAGE } from './usage.js';
import { DEFAULT_PLAN_POLICY } from './types.js';
import { changesRequested, drafting, pendingApproval } from './plan.drafting.states.js';
import { inProgress } from './plan.running.states.js';
import { planSetup } from './plan.setup.js';

export type { AgendaItemRef, PlanContext, PlanEvent, PlanInput } from './plan.setup.js';
export { stepActorId } from './plan.setup.js';

/**
 * The plan lifecycle (docs/design.md, "Plan lifecycle"; the state names are public): drafting →
 * pending_approval → approved → in_progress → completed | failed, pending_approval →
 * changes_requested → drafting, pending_approval → rejected. Each step of an approved plan is a
 * spawned `step` machine (named, so it restores).
 *
 * Its drafting and approval states are in plan.drafting.states.ts, its running states and gates in
 * plan.running.states.ts, its verification in plan.verification.states.ts; its setup (input, context,
 * events, ports, guards, actions) in plan.setup.ts.
 */

export const PLAN_MACHINE_VERSION = 3;
export const DEFAULT_MAX_ATTEMPTS = 10;
/**
 * Four ready steps at once: a plan's DAG is rarely wider, four concurrent turns are what OpenCode's
 * single server thread and a provider's rate limits take without slowing each turn much (bench P1),
 * and `conflicts` keeps two file-changing steps apart unless both declared disjoint files.
 */
export const DEFAULT_CONCURRENCY = 4;

export const planMachine = planSetup.createMachine({
  id: 'plan',
  context: ({ input }) => ({
    plan_id: input.planId,
    request: input.message,
    goal: null,
    proposal: null,
    revisions: [],
    steps: [],
    concurrency: input.concurrency ?? DEFAULT_CONCURRENCY,
    max_attempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    policy: { ...DEFAULT_PLAN_POLICY, ...input.policy },
    dispatches: 0,
    dispatch_cap: input.policy?.max_dispatches ?? DEFAULT_PLAN_POLICY.max_dispatches,
    usage: ZERO_USAGE,
    cost_cap: input.policy?.max_cost ?? null,
    token_cap: input.policy?.max_tokens ?? null,
    planner_session_id: null,
    caller_session_id: input.callerSessionId ?? null,
    pending_message: input.message,
    answer: null,
    questions: null,
    decisions: [],
    planner_error: null,
    outcome: null,
    ...(input.agendaItem ? { agenda_item: input.agendaItem } : {}),
  }),
  initial: 'drafting',
  on: {
    'usage.recorded': { actions: { type: 'recordUsage', params: ({ event }) => event } },
    'checks.failing_before': { actions: { type: 'recordFailingBefore', params: ({ event }) => event } },
  },
  states: {
    drafting,
    pending_approval: pendingApproval,
    changes_requested: changesRequested,
    approved: {
      always: [
        // A revised plan made only of steps completed before the replan has nothing left to run: it is verified
        // again (a failed verification's Replan too), and completes without it only with nothing to verify.
        { guard: 'allStepsCompletedToVerify', target: 'in_progress.verifying' },
        { guard: 'allStepsCompleted', target: 'completed', actions: { type: 'setOutcome', params: { outcome: 'completed' } } },
        { target: 'in_progress' },
      ],
    },
    in_progress: inProgress,
    completed: { type: 'final', tags: ['outcome.completed'] },
    failed: { type: 'final', tags: ['outcome.stopped'] },
    rejected: { type: 'final', tags: ['outcome.rejected'] },
  },
});

export type PlanMachine = typeof planMachine;
