import { GATE_COMMANDS, waitingWords, type CommandGate, type GateCommand } from '../hitl/commands.js';
import { decisionEvent } from '../hitl/gates.js';
import { inboxDir, postDecision, type InboxDecision } from '../persistence/inbox.js';
import type { CommandContext } from './command.js';
import { RefusedError, UsageError } from './errors.js';
import { gateOfFile } from './file-gate.js';
import { println } from './io.js';
import { loadPlan, planIdArgument, storeOf } from './project.js';
import { queuedDecisions, waitForRunningServer } from './running-server.js';
import { quote } from '../text/quote.js';

const CHOICES = Object.keys(GATE_COMMANDS).map((name) => name.replace(/^orca-/, ''));

/**
 * `orca decide <plan_id> <choice>`: the same plan event the slash commands send (channel "cli"),
 * posted to the plan's inbox. The process holding the plan applies it; a plan held by none
 * applies it when it is next resumed.
 */
export async function decideCommand({ io, project, args, options }: CommandContext, waitMs = 5_000): Promise<number> {
  const planId = planIdArgument(args[0], 'decide');
  const choice = args[1];
  if (choice === undefined || !CHOICES.includes(choice)) {
    throw new UsageError(`orca decide needs a decision after the plan_id: one of ${CHOICES.join(', ')}${choice ? ` (got ${quote(choice)})` : ''}.`);
  }
  const spec = GATE_COMMANDS[`orca-${choice}` as GateCommand];
  const text = options.message?.trim();
  if (spec.option === 'Request Changes' && !text) {
    throw new UsageError(`changes needs your guidance for the planner: orca decide ${planId} changes --message "<guidance>".`);
  }
  const gates: readonly CommandGate[] = spec.gates;
  if (options.step !== undefined && !gates.includes('deviation')) throw new UsageError(`--step applies to retry, replan and stop only.`);

  const store = storeOf(project);
  const plan = loadPlan(store, planId);
  const gate = gateOfFile(plan, gates, options.step);
  if (gate.kind === 'deviation' && !(gate.options as readonly string[]).includes(spec.option)) {
    throw new RefusedError(`Plan ${planId}, step ${gate.stepId}: Retry is no longer offered after ${gate.failures} failed attempts: use replan or stop.`);
  }
  const queued = queuedDecisions(store.dir, planId);
  if (queued.length > 0) {
    throw new RefusedError(
      `Plan ${planId} already has a decision waiting to be applied (${queued.join(', ')}); to decide differently, delete it from ${inboxDir(store.dir, planId)}.`,
    );
  }
  const now = io.now();
  const event = decisionEvent(gate, { option: spec.option, ...(text ? { text } : {}) }, { channel: 'cli', at: now.toISOString() });
  const posted = postDecision(store.dir, planId, event as InboxDecision['event'], now);
  const where = gate.kind === 'deviation' ? ` for step ${gate.stepId}` : gate.kind === 'budget' ? ` at the dispatch cap (${gate.dispatches} of ${gate.cap})` : '';
  println(io.stdout, `${spec.option}${where} of plan ${planId}${text ? ` with "${text}"` : ''}: posted to ${posted}`);
  // A human may retry past the breaker (the auto policy may not); say what they are overriding.
  if (gate.kind === 'deviation' && gate.breaker && spec.option === 'Retry') println(io.stdout, `note: ${gate.breaker}`);

  const outcome = await waitForRunningServer(store, plan, event, posted, waitMs);
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

