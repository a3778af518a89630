import type { CommandContext } from './command.js';
import { awaitDecision, postGateDecision } from '../decisions/post-decision.js';
import { println } from './io.js';

/**
 * `orca decide <plan_id> <choice>`: the same plan event the slash commands send (channel "cli"),
 * posted to the plan's inbox. The process holding the plan applies it; a plan held by none
 * applies it when it is next resumed.
 */
export async function decideCommand({ io, project, args, options }: CommandContext, waitMs = 5_000): Promise<number> {
  const decision = postGateDecision(project, { planId: args[0], choice: args[1], text: options.message, step: options.step }, io.now());
  println(io.stdout, `${decision.summary}: posted to ${decision.posted}`);
  if (decision.note) println(io.stdout, `note: ${decision.note}`);

  switch (await awaitDecision(decision, waitMs)) {
    case 'applied':
      println(io.stdout, 'applied by the running server');
      return 0;
    case 'not-running':
      println(io.stdout, 'queued: applies when the plan is resumed (orca_ask_planner with its plan_id)');
      return 0;
    case 'pending':
      println(io.stdout, `queued: the process running the plan has not taken it within ${waitMs / 1000} s; it applies when it does, or when the plan is resumed`);
      return 0;
  }
}
