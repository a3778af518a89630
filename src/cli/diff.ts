import { loadPlan, planIdArgument } from '../decisions/requested-plan.js';
import { landedSections } from '../rewind/landed-diff.js';
import { landedDiffLines } from '../rewind/rewind-words.js';
import type { CommandContext } from './command.js';
import { println } from './io.js';
import { storeOf } from './project.js';

/**
 * `orca diff <plan_id> [--step <id>]`: what the plan (or the step) landed in the working tree, as a
 * unified diff, coloured on a terminal; into a pipe or a file the patches byte for byte.
 */
export function diffCommand({ io, project, args, options }: CommandContext): number {
  const planId = planIdArgument(args[0], 'diff');
  const plan = loadPlan(storeOf(project), planId);
  const lines = landedDiffLines(planId, landedSections(plan, options.step));
  if (io.styled) io.styled(lines);
  else println(io.stdout, ...lines.map(([text]) => text));
  return 0;
}
