import { readPlanSnapshot } from '../engine/restore.js';
import { GATE_COMMANDS, whereOf, type GateCommand } from '../hitl/commands.js';
import { decide, DecisionError, type DecisionRefusal } from '../hitl/decide.js';
import type { Gate } from '../machines/gates.js';
import type { PlanEvent } from '../machines/plan.machine.js';
import { inboxDir, postDecision, type InboxDecision } from '../persistence/inbox.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { quote } from '../text/quote.js';
import type { CommandContext } from './command.js';
import { RefusedError, UsageError } from './errors.js';
import { println } from './io.js';
import { loadPlan, planIdArgument, storeOf } from './project.js';
import { queuedDecisions, waitForRunningServer } from './running-server.js';

export const DECIDE_CHOICES = Object.keys(GATE_COMMANDS).map((name) => name.replace(/^orca-/, ''));

/** How to ask again, per refusal, in the words of the CLI. */
const CLI_HINTS: Partial<Record<DecisionRefusal, (planId: string, choice: string) => string>> = {
  needs_text: (planId, choice) => ` Use orca decide ${planId} ${choice} --message "<text>".`,
  not_offered: () => ' Use replan or stop.',
};

/**
 * Check a decision against the plan's restored snapshot, exactly as a slash command is checked
 * (hitl/decide.ts), and post it to the plan's inbox; the process holding the plan applies it, or
 * the plan applies it when it is next resumed. Shared by `orca decide` and the plan viewer.
 */
export function postPlanDecision(
  store: PlanStore,
  planId: string,
  request: { choice: string; text?: string; step?: string },
  now: Date,
): { gate: Gate; event: PlanEvent; posted: string } {
  if (!DECIDE_CHOICES.includes(request.choice)) {
    throw new UsageError(`orca decide needs a decision after the plan_id: one of ${DECIDE_CHOICES.join(', ')} (got ${quote(request.choice)}).`);
  }
  const spec = GATE_COMMANDS[`orca-${request.choice}` as GateCommand];
  if (request.step !== undefined && !(spec.gates as readonly string[]).includes('deviation')) throw new UsageError('--step applies to retry, replan and stop only.');
  const plan = loadPlan(store, planId);
  const text = request.text?.trim();
  let decided;
  try {
    decided = readPlanSnapshot(plan, (snapshot) =>
      decide(snapshot, { kinds: spec.gates, option: spec.option, ...(text ? { text } : {}), ...(request.step !== undefined ? { stepId: request.step } : {}) }, { channel: 'cli', at: now.toISOString() }),
    );
  } catch (error) {
    if (!(error instanceof DecisionError)) throw error;
    throw new RefusedError(`${error.message}${CLI_HINTS[error.refusal]?.(planId, request.choice) ?? ''}`);
  }
  const queued = queuedDecisions(store.dir, planId);
  if (queued.length > 0) {
    throw new RefusedError(
      `Plan ${planId} already has a decision waiting to be applied (${queued.join(', ')}); to decide differently, delete it from ${inboxDir(store.dir, planId)}.`,
    );
  }
  const posted = postDecision(store.dir, planId, decided.event as InboxDecision['event'], now);
  return { ...decided, posted };
}

/** `orca decide <plan_id> <choice>`: the same plan event the slash commands send (channel "cli"). */
export async function decideCommand({ io, project, args, options }: CommandContext, waitMs = 5_000): Promise<number> {
  const planId = planIdArgument(args[0], 'decide');
  const choice = args[1];
  if (choice === undefined) throw new UsageError(`orca decide needs a decision after the plan_id: one of ${DECIDE_CHOICES.join(', ')}.`);
  const store = storeOf(project);
  const text = options.message?.trim();
  const { gate, event, posted } = postPlanDecision(store, planId, { choice, ...(text ? { text } : {}), ...(options.step !== undefined ? { step: options.step } : {}) }, io.now());
  const option = GATE_COMMANDS[`orca-${choice}` as GateCommand].option;
  println(io.stdout, `${option}${whereOf(gate)} of plan ${planId}${text ? ` with ${quote(text)}` : ''}: posted to ${posted}`);
  // A human may retry past the breaker (the auto policy may not); say what they are overriding.
  if (gate.kind === 'deviation' && gate.breaker && option === 'Retry') println(io.stdout, `note: ${gate.breaker}`);

  const outcome = await waitForRunningServer(store, loadPlan(store, planId), event, posted, waitMs);
  switch (outcome) {
    case 'applied':
      println(io.stdout, 'applied by the running server');
      return 0;
    case 'not-running':
      println(io.stdout, 'queued: applies when the plan is resumed (orca_ask_planner with its plan_id)');
      return 0;
    case 'pending':
      println(io.stdout, `queued: the process running the plan has not taken it within ${waitMs / 1000} s; it applies when it does, or when the plan is resumed`);
      return 0;
    case 'dropped':
      throw new RefusedError(`The running server dropped the decision: plan ${planId} no longer waits for it (orca show ${planId}).`);
  }
}
