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

/** Parse "[plan_id] [--step step_id] [text…]": the step names which step's gate, when several steps wait. */
export function parseCommandArguments(raw: string): { planId?: string; stepId?: string; text?: string } {
  let rest = raw.trim();
  const word = () => rest.split(/\s+/)[0] ?? '';
  const take = () => {
    const taken = word();
    rest = rest.slice(taken.length).trim();
    return taken;
  };
  let planId: string | undefined;
  if (word().startsWith('plan_')) {
    planId = take();
    if (!isPlanId(planId)) throw new CommandError(`${quote(planId)} is not a plan_id: expected plan_ followed by 26 ULID characters (see orca_list_plans).`);
  }
  let stepId: string | undefined;
  if (word() === '--step') {
    take();
    stepId = take();
    if (!stepId) throw new CommandError('--step needs the id of the step whose gate to answer, e.g. --step s2.');
  }
  return { ...(planId ? { planId } : {}), ...(stepId ? { stepId } : {}), ...(rest ? { text: rest } : {}) };
}

/** The gates about one step: a command for them may name the step (--step). */
const isStepGate = (kind: CommandGate) => kind === 'deviation' || kind === 'resume' || kind === 'merge';
const STEP_COMMANDS = Object.entries(GATE_COMMANDS)
  .filter(([, spec]) => (spec.gates as readonly CommandGate[]).some(isStepGate))
  .map(([name]) => `/${name}`);

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
  const { planId: given, stepId, text } = parseCommandArguments(rawArguments);
  if (stepId !== undefined && !spec.gates.some(isStepGate)) throw new CommandError(`--step applies to ${STEP_COMMANDS.join(', ')} only.`);
  const planId = given ?? defaultPlan(orca, spec.gates, sessionID, name);
  let decided;
  try {
    const request = { kinds: spec.gates, option: spec.option, ...(text ? { text } : {}), ...(stepId !== undefined ? { stepId } : {}) };
    decided = decide(orca.host.open(planId).getSnapshot(), request, { channel: 'command', at: new Date().toISOString() });
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
