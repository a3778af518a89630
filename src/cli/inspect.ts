import { inspectPlan } from '../inspect/index.js';
import type { CommandContext } from './command.js';
import { println } from './io.js';
import { planIdArgument } from '../decisions/requested-plan.js';

/** `orca inspect <plan_id> [--port N] [--once]`: replay a plan from disk into the Stately inspector. */
export function inspectCommand({ io, project, args, options }: CommandContext): Promise<number> {
  const planId = planIdArgument(args[0], 'inspect');
  return inspectPlan(planId, {
    dir: project,
    port: options.port ?? 0,
    once: options.once ?? false,
    print: (line) => println(io.stdout, line),
    printError: (line) => println(io.stderr, line),
  });
}
