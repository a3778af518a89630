import { readPlanSnapshot } from '../host/restore.js';
import { GATE_COMMANDS, type GateCommand } from './gate-commands.js';
import { decide, DecisionError, whereOf, type DecisionRefusal } from './decide.js';
import type { Gate } from '../machines/gates.js';
import { inboxDir, postDecision, type InboxDecision } from '../persistence/inbox.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { PlanStore } from '../persistence/plan-store.js';
import { quote } from '../text/quote.js';
import { RefusedError, UsageError } from '../request-errors.js';
import { loadPlan, planIdArgument } from './requested-plan.js';
import { answersGate, queuedEvents, waitForRunningServer, type ServerOutcome } from './running-server.js';

/** The decisions `orca decide` (and the plan viewer's buttons) take: approve, changes, reject, retry, replan, continue, rerun, done, ontop, resolved, stop. */
export const DECISION_CHOICES = Object.keys(GATE_COMMANDS).map((name) => name.replace(/^orca-/, ''));

export interface GateDecisionRequest {
  planId: string | undefined;
  /** One of DECISION_CHOICES. */
  choice: string | undefined;
  /** Guidance (changes), a summary (done) or a note. */
  text?: string | undefined;
  /** The step a retry, replan, rerun, done, ontop, resolved or stop answers, when several wait. */
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

/** How to ask again, per refusal, in the words of the CLI. */
const CLI_HINTS: Partial<Record<DecisionRefusal, (planId: string, choice: string) => string>> = {
  needs_text: (planId, choice) => ` Use orca decide ${planId} ${choice} --message "<text>".`,
  not_offered: (_planId, choice) => (choice === 'ontop' ? ' Use resolved or stop.' : ' Use replan or stop.'),
};

/**
 * Check a decision against the plan's restored snapshot, exactly as a slash command is checked
 * (decisions/decide.ts), and post it to the plan's inbox (channel "cli"): the one path of `orca decide`
 * and the plan viewer. The process holding the plan applies it, or the plan applies it when it is
 * next resumed. Throws UsageError for a malformed request, RefusedError when the plan does not
 * take it; posts nothing then.
 */
export function postGateDecision(project: string, { planId: rawId, choice, text: rawText, step }: GateDecisionRequest, now: Date): PostedDecision {
  const planId = planIdArgument(rawId, 'decide');
  if (choice === undefined || !DECISION_CHOICES.includes(choice)) {
    throw new UsageError(`orca decide needs a decision after the plan_id: one of ${DECISION_CHOICES.join(', ')}${choice ? ` (got ${quote(choice)})` : ''}.`);
  }
  const spec = GATE_COMMANDS[`orca-${choice}` as GateCommand];
  if (step !== undefined && !(spec.gates as readonly string[]).some((g) => g === 'deviation' || g === 'resume' || g === 'merge')) {
    throw new UsageError('--step applies to retry, replan, rerun, done, ontop, resolved and stop only.');
  }
  const store = PlanStore.forProject(project);
  const plan = loadPlan(store, planId);
  const text = rawText?.trim();
  let decided;
  try {
    decided = readPlanSnapshot(plan, (snapshot) =>
      decide(snapshot, { kinds: spec.gates, option: spec.option, ...(text ? { text } : {}), ...(step !== undefined ? { stepId: step } : {}) }, { channel: 'cli', at: now.toISOString() }),
    );
  } catch (error) {
    if (!(error instanceof DecisionError)) throw error;
    throw new RefusedError(`${error.message}${CLI_HINTS[error.refusal]?.(planId, choice) ?? ''}`);
  }
  const { gate } = decided;
  // One decision per gate: another step's gate (two steps interrupted by one crash) is another gate.
  const queued = queuedEvents(store.dir, planId).filter((q) => answersGate(q, gate));
  if (queued.length > 0) {
    throw new RefusedError(
      `Plan ${planId} already has a decision waiting to be applied${whereOf(gate)} (${queued.map((q) => q.words).join(', ')}); to decide differently, delete it from ${inboxDir(store.dir, planId)}.`,
    );
  }
  const event = decided.event as InboxDecision['event'];
  const posted = postDecision(store.dir, planId, event, now);
  return {
    plan,
    store,
    gate,
    option: spec.option,
    event,
    posted,
    summary: `${spec.option}${whereOf(gate)} of plan ${planId}${text ? ` with ${quote(text)}` : ''}`,
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
