import type { GateResolver } from '../host/drive.js';
import type { PlanFollower } from '../host/follow.js';
import type { PlanHost } from '../host/plan-host.js';
import { decisionEvent, WAITING_WORDS, type Gate } from '../machines/gates.js';
import { commandsFor } from '../decisions/gate-commands.js';
import type { PlanFollowers } from '../notices/plan-notes.js';
import type { SessionNotes } from '../notices/session-notes.js';
import { forecastText } from '../usage/forecast.js';
import { askDecision } from './decision-dialog.js';
import { gateNote } from './gate-note.js';
import { autoAnswer, forecastOf, titleOf, type GateResolverDeps } from './resolve.js';

/**
 * Gates asked in the session that started the plan while that session is free
 * (`ask_planner_returns: "early"`, the default; docs/gates.md "Your session stays free"): the gate's
 * document is posted there as a note the TUI renders and the session keeps, then the dialog under it
 * asks only the decision. Nothing here decides: the auto policy is the configured one, the options
 * and the check are the machine's (openGates, refusalOf), and the answer is sent as the gate's event.
 */

/** What asking in a session uses: the auto policy and the dialog (GateResolverDeps), and the session's notes. */
export interface SessionGateDeps extends GateResolverDeps {
  notes: Pick<SessionNotes, 'say' | 'post'>;
}

/**
 * The resolver of a plan followed in `sessionId`: the auto policy where it answers; else the gate's
 * note, then its dialog. Esc on the dialog, a dialog that cannot open, or a note that cannot be
 * posted leave the plan at its gate, saved, with a note on how to answer, until the gate is answered
 * elsewhere (a command, `orca decide`, the viewer) or the follow stops (`signal`); the drive loop
 * (drivePlan) then goes on. Silence never answers.
 */
export function sessionGateResolver(deps: SessionGateDeps, sessionId: string): GateResolver {
  return async (gate, signal) => {
    const forecast = forecastOf(deps, gate);
    const auto = autoAnswer(deps, gate, forecast);
    if (auto) return auto;
    const where = gate.kind === 'approval' ? deps.workspaceNotice?.() : null;
    const posted = await deps.notes.say(sessionId, gateNote(gate, { ...(forecast ? { forecast: forecastText(forecast) } : {}), ...(where ? { where } : {}) }));
    signal.throwIfAborted(); // answered elsewhere while the note waited for the session
    if (!posted) {
      deps.log('warn', `plan ${gate.planId}: its ${gate.kind} document could not be posted in session ${sessionId}; no dialog without it`);
      return untilAnsweredElsewhere(signal);
    }
    const decided = await askDecision(deps.asker, gate, { callerSessionId: sessionId, title: titleOf(gate), signal });
    if (decided.kind === 'chosen') return { event: decisionEvent(gate, decided.choice, { channel: 'question', at: new Date().toISOString() }) };
    if (decided.kind === 'unavailable') deps.log('warn', `plan ${gate.planId}: ${decided.reason}; the ${gate.kind} gate waits for a command`);
    else deps.log('info', `plan ${gate.planId}: the ${gate.kind} dialog was ${decided.kind === 'dismissed' ? 'dismissed' : `answered with what it does not take (${decided.message})`}; the plan waits at its gate`);
    deps.notes.post(sessionId, waitingNote(gate, decided.kind === 'refused' ? decided.message : undefined));
    return untilAnsweredElsewhere(signal);
  };
}

/** The dialog is gone and the plan still waits: how to answer it now. */
export function waitingNote(gate: Gate, refused?: string): string {
  const commands = gate.kind === 'question' ? '' : `answer with ${commandsFor(gate).join(', ')}, or `;
  return `Orca: ${refused ? `${refused} ` : 'The dialog was closed: '}plan ${gate.planId} still waits for ${WAITING_WORDS[gate.kind]}. To go on, ${commands}type /orca-resume to be asked again.`;
}

/** Settles only by rejecting, once the gate closes (answered elsewhere) or the follow stops. */
const untilAnsweredElsewhere = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** What following a plan in its session uses: the plans, the follower, who follows what, and what asking needs. */
export interface SessionFollowDeps extends SessionGateDeps {
  host: Pick<PlanHost, 'open'>;
  follower: Pick<PlanFollower, 'follow' | 'unfollow'>;
  turnFollowers: Pick<PlanFollowers, 'detach'>;
}

/**
 * From now on the plan is followed in `sessionId` with no Orca turn open: each step done and its
 * outcome become notes (PlanFollowers.detach, notices/plan-notes.ts), each gate its note and dialog.
 * A follow already running is stopped first, so its open gate is asked again (/orca-resume, or a
 * new orca_ask_planner call about it).
 */
export async function followInSession(deps: SessionFollowDeps, planId: string, sessionId: string): Promise<void> {
  await deps.follower.unfollow(planId);
  const done = deps.host.open(planId).getSnapshot().context.steps.filter((s) => s.output).map((s) => s.id);
  deps.turnFollowers.detach(planId, done);
  deps.follower.follow(planId, sessionGateResolver(deps, sessionId));
}
