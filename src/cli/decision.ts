import { GATE_COMMANDS, type CommandGate, type GateCommand } from '../hitl/commands.js';
import { decisionEvent, type Gate } from '../hitl/gates.js';
import { inboxDir, postDecision, type InboxDecision } from '../persistence/inbox.js';
import type { PlanFile } from '../persistence/plan-file.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { RefusedError, UsageError } from './errors.js';
import { gateOfFile } from './file-gate.js';
import { loadPlan, planIdArgument, storeOf } from './project.js';
import { queuedDecisions, waitForRunningServer, type ServerOutcome } from './running-server.js';

/** The decisions `orca decide` (and the plan viewer's buttons) take: approve, changes, reject, retry, replan, continue, stop. */
export const DECISION_CHOICES = Object.keys(GATE_COMMANDS).map((name) => name.replace(/^orca-/, ''));

export interface DecisionRequest {
  planId: string | undefined;
  /** One of DECISION_CHOICES. */
  choice: string | undefined;
  /** Guidance (required for changes) or a note. */
  text?: string | undefined;
  /** The failed step a retry, replan or stop answers, when several wait. */
  step?: string | undefined;
}

export interface PostedDecision {
  plan: PlanFile;
  store: PlanStore;
  gate: Gate;
  /** The gate's option, e.g. "Request Changes". */
  option: string;
  event: InboxDecision['event'];
  /** The inbox file written. */
  posted: string;
  /** "Retry for step s2 of plan plan_… with "…"". */
  summary: string;
  /** Set when a human retries past an open breaker: what they are overriding. */
  note?: string;
}

/**
 * Validate a decision against the plan FILE and post it to the plan's inbox (channel "cli"), the
 * one path of `orca decide` and the plan viewer. Throws UsageError for a malformed request and
 * RefusedError when the plan does not wait for it; posts nothing then.
 */
export function postGateDecision(project: string, { planId: rawId, choice, text: rawText, step }: DecisionRequest, now: Date): PostedDecision {
  const planId = planIdArgument(rawId, 'decide');
  if (choice === undefined || !DECISION_CHOICES.includes(choice)) {
    throw new UsageError(`orca decide needs a decision after the plan_id: one of ${DECISION_CHOICES.join(', ')}${choice ? ` (got "${choice}")` : ''}.`);
  }
  const spec = GATE_COMMANDS[`orca-${choice}` as GateCommand];
  const text = rawText?.trim();
  if (spec.option === 'Request Changes' && !text) {
    throw new UsageError(`changes needs your guidance for the planner: orca decide ${planId} changes --message "<guidance>".`);
  }
  const gates: readonly CommandGate[] = spec.gates;
  if (step !== undefined && !gates.includes('deviation')) throw new UsageError(`--step applies to retry, replan and stop only.`);

  const store = storeOf(project);
  const plan = loadPlan(store, planId);
  const gate = gateOfFile(plan, gates, step);
  if (gate.kind === 'deviation' && !(gate.options as readonly string[]).includes(spec.option)) {
    throw new RefusedError(`Plan ${planId}, step ${gate.stepId}: Retry is no longer offered after ${gate.failures} failed attempts: use replan or stop.`);
  }
  const queued = queuedDecisions(store.dir, planId);
  if (queued.length > 0) {
    throw new RefusedError(
      `Plan ${planId} already has a decision waiting to be applied (${queued.join(', ')}); to decide differently, delete it from ${inboxDir(store.dir, planId)}.`,
    );
  }
  const event = decisionEvent(gate, { option: spec.option, ...(text ? { text } : {}) }, { channel: 'cli', at: now.toISOString() }) as InboxDecision['event'];
  const posted = postDecision(store.dir, planId, event, now);
  const where = gate.kind === 'deviation' ? ` for step ${gate.stepId}` : gate.kind === 'budget' ? ` at the dispatch cap (${gate.dispatches} of ${gate.cap})` : '';
  return {
    plan,
    store,
    gate,
    option: spec.option,
    event,
    posted,
    summary: `${spec.option}${where} of plan ${planId}${text ? ` with "${text}"` : ''}`,
    // A human may retry past the breaker (the auto policy may not); say what they are overriding.
    ...(gate.kind === 'deviation' && gate.breaker && spec.option === 'Retry' ? { note: gate.breaker } : {}),
  };
}

/**
 * After posting: wait (up to `waitMs`) for a process holding the plan to apply it. A decision the
 * holder dropped (the plan no longer waits for it) is a RefusedError.
 */
export async function awaitDecision(decision: PostedDecision, waitMs: number): Promise<Exclude<ServerOutcome, 'dropped'>> {
  const outcome = await waitForRunningServer(decision.store, decision.plan, decision.event, decision.posted, waitMs);
  if (outcome === 'dropped') {
    const id = decision.plan.plan_id;
    throw new RefusedError(`The running server dropped the decision: plan ${id} no longer waits for it (orca show ${id}).`);
  }
  return outcome;
}
