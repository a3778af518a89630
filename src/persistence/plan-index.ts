import { createStore } from '@xstate/store';
import { z } from 'zod';
import { planMachine } from '../machines/plan.machine.js';
import { PLAN_STATUSES } from '../machines/types.js';
import { planFile, type PlanFile, type PlanFields } from './plan-file.js';

/** What listing needs, kept in memory so orca_list_plans never hydrates an actor. */
export const planSummary = z.object({
  plan_id: z.string(),
  goal: z.string(),
  status: z.enum(PLAN_STATUSES),
  state: z.string(),
  step_progress: z.object({ completed: z.number().int().min(0), total: z.number().int().min(0) }),
  waiting_for: planFile.shape.waiting_for,
  /** Something runs in its state (a planner turn, steps): the machine's `busy` tag. */
  busy: z.boolean(),
  /** The session that last drove the plan (Orca's), whose children run its steps. */
  caller_session_id: z.string().nullable(),
  updated_at: z.string(),
});

export type PlanSummary = z.infer<typeof planSummary>;

/** Change it and bump SUMMARY_CACHE_FORMAT (summary-cache.ts): cached summaries were made by it. */
export const summarize = (file: PlanFile): PlanSummary =>
  summarizeLive(file, planMachine.resolveState({ value: file.snapshot.value as never, context: file.snapshot.context as never }));

/** A running plan's summary: its plain fields and the live snapshot they were made from (tags and caller read there). */
export const summarizeLive = (view: PlanFields, live: { hasTag(tag: string): boolean; context: unknown }): PlanSummary => ({
  plan_id: view.plan_id,
  goal: view.goal,
  status: view.status,
  state: view.state,
  step_progress: { completed: view.steps.filter((s) => s.status === 'completed').length, total: view.steps.length },
  waiting_for: view.waiting_for,
  busy: live.hasTag('busy'),
  caller_session_id: (live.context as { caller_session_id?: string | null }).caller_session_id ?? null,
  updated_at: view.updated_at,
});

export function createPlanIndex() {
  return createStore({
    context: { plans: {} as Record<string, PlanSummary> },
    on: {
      upsert: (ctx, event: { summary: PlanSummary }) => ({
        plans: { ...ctx.plans, [event.summary.plan_id]: event.summary },
      }),
      remove: (ctx, event: { planId: string }) => {
        const { [event.planId]: _removed, ...plans } = ctx.plans;
        return { plans };
      },
      reset: (_ctx, event: { summaries: PlanSummary[] }) => ({
        plans: Object.fromEntries(event.summaries.map((s) => [s.plan_id, s])),
      }),
    },
  });
}

export type PlanIndex = ReturnType<typeof createPlanIndex>;

/** Newest first. */
export const listSummaries = (index: PlanIndex) =>
  Object.values(index.getSnapshot().context.plans).sort((a, b) => (a.plan_id < b.plan_id ? 1 : -1));

/** Plans that wait for a human decision, oldest first. */
export const waitingSummaries = (index: PlanIndex) =>
  Object.values(index.getSnapshot().context.plans)
    .filter((p) => p.waiting_for !== null)
    .sort((a, b) => (a.plan_id < b.plan_id ? -1 : 1));

/** Plans a previous process left running or waiting on a human. */
export const interruptedPlans = (summaries: PlanSummary[]) => summaries.filter((p) => p.waiting_for !== null || p.busy);
