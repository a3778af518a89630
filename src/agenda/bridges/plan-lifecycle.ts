import type { PlanFields } from '../../persistence/plan-file.js';
import type { PlanSummary } from '../../persistence/plan-index.js';
import type { PlanChange } from '../../host/observers.js';
import type { PlanHost } from '../../host/plan-host.js';
import { errorMessage } from '../../errors.js';
import { isFinalPlanStatus } from '../../machines/types.js';

/**
 * Orca's lifecycle on the agenda's bus (docs/design.md, "The bus"): plan.created, plan.approved,
 * plan.completed, plan.failed, plan.rejected, step.completed, step.failed and gate.waiting, each
 * with its plan_id as subject, read off the recorded changes of plans. A pure diff of what the
 * observer remembers of a plan against its new file; the observer publishes off the write path.
 */

export interface LifecycleEvent {
  kind: 'plan.created' | 'plan.approved' | 'plan.completed' | 'plan.failed' | 'plan.rejected' | 'step.completed' | 'step.failed' | 'gate.waiting';
  subject: string;
  message: string;
}

/** What the observer keeps of a plan between its changes. */
export interface PlanMemory {
  status: PlanSummary['status'];
  waiting_for: PlanSummary['waiting_for'];
  steps: Record<string, { status: string; failures: number }>;
}

const stepsOf = (file: PlanFields): PlanMemory['steps'] =>
  Object.fromEntries(file.steps.map((s) => [s.id, { status: s.status, failures: s.failures.length }]));

/**
 * The events one change of a plan makes, and what to remember of it. `known` is undefined the
 * first time this process sees the plan: a new plan (`before` undefined) is created, a plan
 * restored from disk is taken as it is (its past was published by the process that ran it).
 */
export function lifecycleEvents(change: Pick<PlanChange, 'before' | 'after' | 'file'>, known: PlanMemory | undefined): { events: LifecycleEvent[]; memory: PlanMemory } {
  const { after, file } = change;
  const id = after.plan_id;
  const memory: PlanMemory = { status: after.status, waiting_for: after.waiting_for, steps: stepsOf(file) };
  const events: LifecycleEvent[] = [];
  const say = (kind: LifecycleEvent['kind'], message: string) => events.push({ kind, subject: id, message });
  const goal = after.goal.length > 120 ? `${after.goal.slice(0, 119)}…` : after.goal;
  if (!known && change.before) return { events, memory };
  const previous: { status: string | null; waiting_for: string | null; steps: PlanMemory['steps'] } = known ?? { status: null, waiting_for: null, steps: {} };
  if (!known) say('plan.created', `${id} created: ${goal}`);
  for (const step of file.steps) {
    const was = previous.steps[step.id];
    if (step.status === 'completed' && was?.status !== 'completed') say('step.completed', `${id} step ${step.id} (${step.agent}) completed: ${step.output?.summary ?? ''}`.trim());
    if (step.failures.length > (was?.failures ?? 0)) say('step.failed', `${id} step ${step.id} (${step.agent}) failed: ${step.failures.at(-1)!.error}`);
  }
  if (after.status !== previous.status) {
    if (previous.status === 'pending_approval' && ['approved', 'in_progress', 'completed'].includes(after.status)) say('plan.approved', `${id} approved: ${goal}`);
    if (after.status === 'completed') say('plan.completed', `${id} completed: ${goal}`);
    if (after.status === 'failed') say('plan.failed', `${id} stopped: ${goal}`);
    if (after.status === 'rejected') say('plan.rejected', `${id} rejected: ${goal}`);
  }
  if (after.waiting_for !== null && after.waiting_for !== previous.waiting_for) say('gate.waiting', `${id} waits for ${after.waiting_for}: ${goal}`);
  return { events, memory };
}

/**
 * Publish each plan's lifecycle events as its changes are recorded. The observer is guarded by
 * the host and publishes in a later macrotask, so the agenda's fsync never sits in a plan's write path.
 */
export function publishLifecycle(
  host: Pick<PlanHost, 'observe'>,
  publish: (event: LifecycleEvent, depth: number) => void,
  depthOf: (file: PlanFields) => number,
  log: (level: 'warn', message: string) => void,
): () => void {
  const memory = new Map<string, PlanMemory>();
  return host.observe('the agenda lifecycle events', (change) => {
    const { events, memory: next } = lifecycleEvents(change, memory.get(change.planId));
    if (isFinalPlanStatus(next.status)) memory.delete(change.planId);
    else memory.set(change.planId, next);
    if (events.length === 0) return;
    setImmediate(() => {
      let depth = 0;
      try {
        depth = depthOf(change.file);
      } catch (error) {
        log('warn', `agenda: the cascade depth of ${change.planId} is unknown (${errorMessage(error)}); 0 is used`);
      }
      for (const event of events) {
        try {
          publish(event, depth);
        } catch (error) {
          log('warn', `agenda: ${event.kind}:${event.subject} was not published: ${errorMessage(error)}`);
        }
      }
    });
  });
}
