import type { PlanFollower } from '../host/follow.js';
import { outcomeOf } from '../host/drive.js';
import type { PlanHost } from '../host/plan-host.js';
import { openGates, WAITING_WORDS } from '../machines/gates.js';
import { listSummaries, type PlanSummary } from '../persistence/plan-index.js';
import { pausedNote, planNote, type PlanFollowers } from '../notices/plan-notes.js';
import { CommandError, parseCommandArguments } from './commands.js';
import { followInSession, type SessionFollowDeps } from './session-gate.js';

/**
 * Pausing and resuming a plan from the session that started it, with no model turn: the session is
 * free while its plan runs (`ask_planner_returns: "early"`), so Esc has no call to interrupt.
 * /orca-pause stops the plan's actor here as Esc on a call does (it keeps its last saved state);
 * /orca-resume runs it again from that state, or asks again the gate it waits at, followed in the
 * session: notes, and each gate's note and dialog (hitl/session-gate.ts). Neither decides anything
 * for the plan: a paused plan resumes exactly where it was.
 */
export const PLAN_COMMANDS = {
  'orca-pause': 'Pause a running plan of this session; it keeps its saved state until /orca-resume: /orca-pause [plan_id]',
  'orca-resume': 'Resume a paused plan of this session, or be asked again at the gate it waits at: /orca-resume [plan_id]',
} as const;

export type PlanCommand = keyof typeof PLAN_COMMANDS;
export const isPlanCommand = (name: string): name is PlanCommand => name in PLAN_COMMANDS;

/** What the commands use: the plans here, who follows them, and what following one in its session needs. */
export interface PlanCommandDeps extends SessionFollowDeps {
  host: Pick<PlanHost, 'open' | 'openWhenFree' | 'isLive' | 'release' | 'index'>;
  follower: Pick<PlanFollower, 'follow' | 'unfollow' | 'isFollowing'>;
  turnFollowers: Pick<PlanFollowers, 'detach' | 'has' | 'settle'>;
}

/** Run /orca-pause or /orca-resume; returns the line to show. Throws CommandError with what to do. */
export async function runPlanCommand(orca: PlanCommandDeps, name: PlanCommand, rawArguments: string, sessionID: string): Promise<string> {
  const { planId: given } = parseCommandArguments(rawArguments);
  return name === 'orca-pause' ? pause(orca, given ?? onlyPlan(orca, sessionID, 'pause'), sessionID) : resume(orca, given ?? onlyPlan(orca, sessionID, 'resume'), sessionID);
}

async function pause(orca: PlanCommandDeps, planId: string, sessionID: string): Promise<string> {
  if (orca.turnFollowers.has(planId)) throw new CommandError(`An Orca turn follows plan ${planId}: press Esc there to pause it.`);
  if (!orca.host.isLive(planId)) throw new CommandError(`Plan ${planId} does not run here: nothing to pause (orca plans says where it is).`);
  const snapshot = orca.host.open(planId).getSnapshot();
  if (outcomeOf(snapshot) !== null) throw new CommandError(`Plan ${planId} has ended: nothing to pause. ${planNote(snapshot)!.replace(/^Orca: /, 'Now: ')}`);
  await orca.follower.unfollow(planId);
  orca.turnFollowers.settle(planId);
  await orca.host.release(planId);
  orca.log('info', `plan ${planId}: paused with /orca-pause in session ${sessionID}`);
  return pausedNote(planId, snapshot);
}

async function resume(orca: PlanCommandDeps, planId: string, sessionID: string): Promise<string> {
  if (orca.turnFollowers.has(planId)) throw new CommandError(`An Orca turn follows plan ${planId} already.`);
  const snapshot = (await orca.host.openWhenFree(planId)).getSnapshot();
  const ended = outcomeOf(snapshot);
  if (ended !== null && ended !== 'outcome.answer') throw new CommandError(`Plan ${planId} has ended: nothing to resume. ${planNote(snapshot)!.replace(/^Orca: /, 'Now: ')}`);
  if (ended === 'outcome.answer') throw new CommandError(`The planner answered plan ${planId}; to go on with it, ask Orca with its plan_id.`);
  const owner = snapshot.context.caller_session_id ?? sessionID;
  await followInSession(orca, planId, owner);
  orca.log('info', `plan ${planId}: resumed with /orca-resume in session ${sessionID}`);
  const c = snapshot.context;
  const gate = openGates(snapshot)[0];
  const progress = c.steps.length && gate?.kind !== 'approval' ? `: ${c.steps.filter((s) => s.output).length} of ${c.steps.length} steps done` : '';
  const now = gate ? `It waits for ${WAITING_WORDS[gate.kind]}: what to read and the dialog follow` : 'It runs; a note follows each step done and its end';
  const where = owner === sessionID ? 'here' : `in the session that started it (${owner})`;
  return `Orca: plan ${planId} resumed${progress}. ${now} ${where}. /orca-pause pauses it again.`;
}

/** This session's one plan the command applies to, else what to type. */
function onlyPlan(orca: PlanCommandDeps, sessionID: string, verb: 'pause' | 'resume'): string {
  const unfinished = (p: PlanSummary) => p.waiting_for !== null || p.busy;
  const fits = (p: PlanSummary) =>
    verb === 'pause' ? orca.host.isLive(p.plan_id) : !orca.host.isLive(p.plan_id) || p.waiting_for !== null || !orca.follower.isFollowing(p.plan_id);
  const mine = listSummaries(orca.host.index).filter((p) => p.caller_session_id === sessionID && unfinished(p) && !orca.turnFollowers.has(p.plan_id) && fits(p));
  if (mine.length === 1) return mine[0]!.plan_id;
  const what = verb === 'pause' ? 'running here' : 'paused or waiting';
  if (mine.length === 0) throw new CommandError(`No plan of this session is ${what}. Name one: /orca-${verb} <plan_id> (orca plans lists them).`);
  throw new CommandError(`Several plans of this session are ${what}: ${mine.map((p) => p.plan_id).join(', ')}. Use /orca-${verb} <plan_id>.`);
}
