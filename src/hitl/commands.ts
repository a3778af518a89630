import { waitingSummaries } from '../persistence/plan-index.js';
import { isPlanId } from '../persistence/plan-id.js';
import { answers, GATE_COMMANDS, type CommandGate, type GateCommand } from '../decisions/gate-commands.js';
import { decide, DecisionError, waitingWords, whereOf, type DecisionRefusal } from '../decisions/decide.js';
import { NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './native-question/index.js';
import { quote } from '../text/quote.js';
import { afterDecision, type PlanFollowers } from '../notices/plan-notes.js';
import type { SessionNotes } from '../notices/session-notes.js';
import type { PlanHost } from '../host/plan-host.js';
import { OrcaError } from '../errors.js';

export class CommandError extends OrcaError {
  override name = 'CommandError';
}

/** Parse "[plan_id] [text…]". */
export function parseCommandArguments(raw: string): { planId?: string; text?: string } {
  const trimmed = raw.trim();
  const [first = ''] = trimmed.split(/\s+/);
  if (first.startsWith('plan_')) {
    if (!isPlanId(first)) throw new CommandError(`${quote(first)} is not a plan_id: expected plan_ followed by 26 ULID characters (see orca_list_plans).`);
    const text = trimmed.slice(first.length).trim();
    return { planId: first, ...(text ? { text } : {}) };
  }
  return trimmed ? { text: trimmed } : {};
}

/** How to ask again, per refusal, in the words of the slash commands. */
const COMMAND_HINTS: Partial<Record<DecisionRefusal, (name: GateCommand) => string>> = {
  needs_text: (name) => ` Use /${name} [plan_id] <text>.`,
  not_offered: (name) => (name === 'orca-ontop' ? ' Use /orca-resolved or /orca-stop.' : ' Use /orca-replan or /orca-stop.'),
};

/** What a gate command uses: the plans held here, the plans a tool call follows, the session notes, the log. */
export interface GateCommandDeps {
  host: Pick<PlanHost, 'open' | 'send' | 'index'>;
  turnFollowers: Pick<PlanFollowers, 'has'>;
  notes: Pick<SessionNotes, 'post'>;
  log(level: 'info', message: string): void;
}

/** Apply a gate command; returns the line to show the human. Throws CommandError with what to do. */
export function runGateCommand(orca: GateCommandDeps, name: GateCommand, rawArguments: string, sessionID: string): string {
  const spec = GATE_COMMANDS[name];
  const { planId: given, text } = parseCommandArguments(rawArguments);
  const planId = given ?? defaultPlan(orca, spec.gates, sessionID, name);
  let decided;
  try {
    decided = decide(orca.host.open(planId).getSnapshot(), { kinds: spec.gates, option: spec.option, ...(text ? { text } : {}) }, { channel: 'command', at: new Date().toISOString() });
  } catch (error) {
    if (!(error instanceof DecisionError)) throw error;
    throw new CommandError(`${error.message}${COMMAND_HINTS[error.refusal]?.(name) ?? ''}`);
  }
  const { gate, event } = decided;
  const snapshot = orca.host.send(planId, event);
  orca.log('info', `plan ${planId}: /${name} → ${spec.option}${text ? ` (${text})` : ''}`);
  const recorded = `${spec.option}${whereOf(gate)} recorded for plan ${planId}`;
  const owner = snapshot.context.caller_session_id;
  const followed = orca.turnFollowers.has(planId);
  // The session that owns the plan hears of a decision made in another one (its outcome follows there).
  const elsewhere = owner && owner !== sessionID && !followed;
  if (elsewhere) {
    const from = `by /${name} in another session${text ? ` (${quote(text)})` : ''}`;
    orca.notes.post(owner, `Orca: ${recorded} ${from}. ${afterDecision(snapshot, { followed, reportedIn: 'here' })}`);
  }
  const reportedIn = elsewhere ? `in the session that started it (${owner})` : owner ? 'in this session' : undefined;
  return `Orca: ${recorded}${text ? ` with ${quote(text)}` : ''}. ${afterDecision(snapshot, { followed, ...(reportedIn ? { reportedIn } : {}) })}`;
}

function defaultPlan(orca: Pick<GateCommandDeps, 'host'>, gates: readonly CommandGate[], sessionID: string, name: string): string {
  const waiting = waitingSummaries(orca.host.index).filter((p) => answers(gates, p.waiting_for));
  const mine = waiting.filter((p) => p.caller_session_id === sessionID);
  const candidates = mine.length > 0 ? mine : waiting;
  if (candidates.length === 1) return candidates[0]!.plan_id;
  if (candidates.length === 0) throw new CommandError(`No plan is waiting for ${waitingWords(gates)}.`);
  throw new CommandError(`Several plans wait for this decision: ${candidates.map((p) => p.plan_id).join(', ')}. Use /${name} <plan_id>.`);
}

/**
 * Install the commands (config hook). Their turn runs on the in-process orca-hitl model, which
 * only says back the note command.execute.before puts in the message. Ours replace same-named
 * commands of the user's config: the names belong to this plugin.
 */
export function registerGateCommands(cfg: { command?: Record<string, unknown> | undefined }): void {
  for (const [name, spec] of Object.entries(GATE_COMMANDS)) registerNoteCommand(cfg, name, spec.description);
}

/** One command answered by the plugin in command.execute.before and said back by orca-hitl: no model turn. */
export function registerNoteCommand(cfg: { command?: Record<string, unknown> | undefined }, name: string, description: string): void {
  cfg.command ??= {};
  cfg.command[name] = {
    description: `Orca: ${description}`,
    template: `${NOTE_PREFIX} $ARGUMENTS`,
    agent: QUESTION_AGENT_ID,
    model: `${QUESTION_PROVIDER_ID}/${QUESTION_MODEL_ID}`,
    // The agent is a hidden subagent: without this OpenCode would run the command as a subtask
    // on the session's default agent and model, i.e. a real model request.
    subtask: false,
  };
}
