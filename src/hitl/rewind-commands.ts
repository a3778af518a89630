import { isFinalPlanStatus } from '../machines/types.js';
import { isPlanId } from '../persistence/plan-id.js';
import { listSummaries } from '../persistence/plan-index.js';
import type { PlanIndex } from '../persistence/plan-index.js';
import { landedSections } from '../rewind/landed-diff.js';
import { rewindPlan, type RewindDeps } from '../rewind/rewind-plan.js';
import { landedDiffLines, rewindText, type RewindHow } from '../rewind/rewind-words.js';
import { quote } from '../text/quote.js';
import { CommandError } from './commands.js';

/**
 * What a plan did, from the session, with no model turn: /orca-diff posts what it landed as a diff,
 * /orca-undo takes it back out of the working tree (a dry run unless --yes), /orca-redo puts the last
 * undo back: the same as `orca diff|undo|redo` (src/rewind/), channel "command".
 */
export const REWIND_COMMANDS = {
  'orca-diff': "Show what a plan (or one step) landed in your working tree, as a diff: /orca-diff [plan_id] [--step <id>]",
  'orca-undo': 'Take what a plan that ended landed back out of your working tree (a dry run unless --yes): /orca-undo [plan_id] [--step <id>]... [--yes]',
  'orca-redo': 'Put back what the last /orca-undo of a plan took out (a dry run unless --yes): /orca-redo [plan_id] [--yes]',
} as const;

export type RewindCommand = keyof typeof REWIND_COMMANDS;
export const isRewindCommand = (name: string): name is RewindCommand => name in REWIND_COMMANDS;

export interface RewindCommandDeps {
  rewind: RewindDeps;
  host: { index: PlanIndex };
}

/** Lines of a diff a note shows; the rest is named with the command that prints it all. */
const MAX_DIFF_LINES = 400;

/** Run /orca-diff, /orca-undo or /orca-redo; returns the note. Throws CommandError with what to type. */
export async function runRewindCommand(orca: RewindCommandDeps, name: RewindCommand, rawArguments: string, sessionID: string): Promise<string> {
  const args = parseRewindArguments(name, rawArguments);
  const planId = args.planId ?? lastEndedPlan(orca, sessionID, name);
  if (name === 'orca-diff') {
    const lines = landedDiffLines(planId, landedSections(orca.rewind.store.load(planId), args.steps[0]));
    const shown = lines.slice(0, MAX_DIFF_LINES).map(([text]) => text);
    const more = lines.length > MAX_DIFF_LINES ? `\n\n… ${lines.length - MAX_DIFF_LINES} more lines: orca diff ${planId} prints them all.` : '';
    return `Orca: what plan ${planId} landed in your working tree${args.steps[0] ? ` (step ${args.steps[0]})` : ''}:\n\n\`\`\`diff\n${shown.join('\n')}\n\`\`\`${more}`;
  }
  const direction = name === 'orca-undo' ? 'undo' : 'redo';
  const report = await rewindPlan(orca.rewind, { planId, steps: args.steps, direction, apply: args.yes, channel: 'command' });
  return `Orca: ${rewindText(report, commandHow(args.planId !== undefined))}`;
}

/**
 * What the session types to go on: the plan named as the user named it (a plan left unnamed is the
 * session's last ended one, and stays unnamed: the line stays short enough for the TUI at 80 columns).
 */
function commandHow(named: boolean): RewindHow {
  const plan = (planId: string) => (named ? ` ${planId}` : '');
  return {
    confirm: (report) => `type /orca-${report.context.direction}${plan(report.planId)}${report.context.asked.map((s) => ` --step ${s}`).join('')} --yes to do it`,
    redo: (planId) => `/orca-redo${plan(planId)} --yes`,
    undoSteps: (planId, steps) => `/orca-undo${plan(planId)}${steps.map((s) => ` --step ${s}`).join('')}`,
  };
}

/** `[plan_id] [--step <id>]... [--yes]`, in any order after the plan. */
export function parseRewindArguments(name: RewindCommand, raw: string): { planId?: string; steps: string[]; yes: boolean } {
  const words = raw.trim().split(/\s+/).filter(Boolean);
  let planId: string | undefined;
  const steps: string[] = [];
  let yes = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('plan_') && planId === undefined) {
      if (!isPlanId(word)) throw new CommandError(`${quote(word)} is not a plan_id: expected plan_ followed by 26 ULID characters (orca plans lists them).`);
      planId = word;
    } else if (word === '--step' && name !== 'orca-redo') {
      const step = words[++i];
      if (!step) throw new CommandError('--step needs the id of a step, e.g. --step s2.');
      steps.push(step);
    } else if (word === '--yes' && name !== 'orca-diff') yes = true;
    else throw new CommandError(`/${name} does not take ${quote(word)}: ${REWIND_COMMANDS[name].replace(/^.*: /, '')}`);
  }
  if (name === 'orca-diff' && steps.length > 1) throw new CommandError('/orca-diff shows one step at a time: one --step.');
  return { ...(planId ? { planId } : {}), steps, yes };
}

/** The plan of this session that ended last, when none is named. */
function lastEndedPlan(orca: RewindCommandDeps, sessionID: string, name: RewindCommand): string {
  const ended = listSummaries(orca.host.index)
    .filter((p) => p.caller_session_id === sessionID && isFinalPlanStatus(p.status))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  if (ended[0]) return ended[0].plan_id;
  throw new CommandError(`No plan of this session has ended. Name one: /${name} <plan_id> (orca plans lists them).`);
}
