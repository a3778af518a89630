import type { PlanFile } from '../persistence/plan-file.js';
import { activityOf, type PlanActivity } from '../persistence/plan-activity.js';
import { summarize } from '../persistence/plan-index.js';
import type { PlanRead } from './plan-source.js';
import { progressOf, type Progress } from './progress.js';
import { usageOf, type RecordedUsage } from './usage.js';

/** One row of the plans table. */
export interface PlanListItem {
  plan_id: string;
  goal: string;
  status: PlanFile['status'];
  state: string;
  waiting_for: PlanFile['waiting_for'];
  /** What it is doing: waiting at a gate, running (a process holds it), paused (nothing runs it), idle. */
  activity: PlanActivity;
  progress: Progress;
  usage?: RecordedUsage;
  created_at: string;
  updated_at: string;
}

/** A plan file that does not validate: listed with the reason, left where it is. */
export interface UnreadablePlan {
  plan_id: string;
  reason: string;
}

export interface PlanListView {
  project: string;
  plans: PlanListItem[];
  unreadable: UnreadablePlan[];
}

export function planListItem({ file, raw }: PlanRead, held: (planId: string) => boolean = () => false): PlanListItem {
  const usage = usageOf(raw.usage);
  return {
    plan_id: file.plan_id,
    goal: file.goal,
    status: file.status,
    state: file.state,
    waiting_for: file.waiting_for,
    activity: activityOf(summarize(file), held(file.plan_id)),
    progress: progressOf(file),
    ...(usage ? { usage } : {}),
    created_at: file.created_at,
    updated_at: file.updated_at,
  };
}

/** Newest first (plan ids are ULIDs, which sort by creation time); `held`: whether a process holds a plan's lease. */
export function planListView(
  project: string,
  plans: readonly PlanRead[],
  unreadable: readonly UnreadablePlan[] = [],
  held: (planId: string) => boolean = () => false,
): PlanListView {
  return {
    project,
    plans: plans.map((plan) => planListItem(plan, held)).sort((a, b) => (a.plan_id < b.plan_id ? 1 : -1)),
    unreadable: [...unreadable].sort((a, b) => (a.plan_id < b.plan_id ? 1 : -1)),
  };
}
