import { loadOrcaConfig } from '../config/load.js';
import { isolationSettings } from '../config/options.js';
import { planIdArgument } from '../decisions/requested-plan.js';
import { rewindPlan, settleInterruptedRewinds, type RewindDeps } from '../rewind/rewind-plan.js';
import { recoveredText, rewindText, type RewindHow } from '../rewind/rewind-words.js';
import { workspaceSupport } from '../workspace/index.js';
import type { CommandContext } from './command.js';
import { println } from './io.js';
import { storeOf } from './project.js';

/**
 * `orca undo <plan_id> [--step <id>]… [--yes]`: takes what the plan (or those steps) landed back out
 * of the working tree, all or nothing, leaving the user's other changes, HEAD, the index and branches;
 * without --yes it says what it would do. `orca redo <plan_id> [--yes]` puts the last undo back.
 */
export async function undoCommand(context: CommandContext): Promise<number> {
  return rewind(context, 'undo');
}

export async function redoCommand(context: CommandContext): Promise<number> {
  return rewind(context, 'redo');
}

async function rewind({ io, project, args, options }: CommandContext, direction: 'undo' | 'redo'): Promise<number> {
  const planId = planIdArgument(args[0], direction);
  const deps = await rewindDeps(project);
  // A rewind a crash cut short (this plan's or another's) is settled first, and said.
  for (const recovered of await settleInterruptedRewinds(deps)) println(io.stdout, recoveredText(recovered), '');
  const report = await rewindPlan(deps, { planId, steps: options.steps ?? [], direction, apply: options.yes === true, channel: 'cli' });
  println(io.stdout, rewindText(report, CLI_HOW));
  return report.state === 'refused' || report.state === 'failed' ? 1 : 0;
}

/** What the command line types to go on. */
export const CLI_HOW: RewindHow = {
  confirm: (report) => `orca ${report.context.direction} ${report.planId}${report.context.asked.map((s) => ` --step ${s}`).join('')} --yes does it`,
  redo: (planId) => `orca redo ${planId} --yes`,
  undoSteps: (planId, steps) => `orca undo ${planId}${steps.map((s) => ` --step ${s}`).join('')}`,
};

/** The project's plans, its repository (null without git) and the workspace include list its config names. */
export async function rewindDeps(project: string): Promise<RewindDeps> {
  const support = await workspaceSupport(project);
  const repo = support.ok ? support : (support.repository ?? null);
  return { store: storeOf(project), repo, include: isolationSettings(loadOrcaConfig(project, undefined)).include };
}
