import type { Orca } from '../composition-root.js';
import { waitingSummaries } from '../persistence/plan-index.js';
import { isPlanId } from '../persistence/plan-id.js';
import type { Gate, GateKind } from '../machines/gates.js';
import { decide, DecisionError, waitingWords, type DecisionRefusal } from './decide.js';
import { NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './native-question/index.js';
import { quote } from '../text/quote.js';
import { totalTokens } from '../machines/usage.js';
import { formatCost, formatTokens } from '../usage/format.js';

/**
 * Channel 3: slash commands, handled in `command.execute.before` with no model turn. Each takes
 * an optional plan_id (default: the plan waiting for that decision, this session's first) and
 * optional text: guidance for /orca-changes, /orca-retry and /orca-replan, a note otherwise.
 * `gates` lists where a command applies, in the order the gates are asked: /orca-stop answers
 * the budget gate when the plan waits there, else the failed step.
 */
export const GATE_COMMANDS = {
  'orca-approve': { gates: ['approval'], option: 'Approve', description: 'Approve the plan waiting for approval' },
  'orca-changes': { gates: ['approval'], option: 'Request Changes', description: 'Request changes to the waiting plan: /orca-changes [plan_id] <guidance>' },
  'orca-reject': { gates: ['approval'], option: 'Reject', description: 'Reject the plan waiting for approval' },
  'orca-retry': { gates: ['deviation'], option: 'Retry', description: 'Retry the failed step: /orca-retry [plan_id] [guidance]' },
  'orca-replan': { gates: ['deviation'], option: 'Replan', description: 'Replan after the failed step: /orca-replan [plan_id] [guidance]' },
  'orca-continue': {
    gates: ['budget'],
    option: 'Continue',
    description:
      'Continue the plan paused at its budget gate (dispatch cap, budget.max_cost, budget.max_tokens), raising the limit reached by as much again: /orca-continue [plan_id] [note]',
  },
  'orca-rerun': {
    gates: ['resume'],
    option: 'Re-run',
    description: 'Run again the step a restart found interrupted (it may repeat changes it made): /orca-rerun [plan_id] [note]',
  },
  'orca-done': {
    gates: ['resume'],
    option: 'Mark done',
    description: 'Mark the interrupted step done, your words as its summary: /orca-done [plan_id] <what it did>',
  },
  'orca-stop': {
    gates: ['budget', 'resume', 'deviation'],
    option: 'Stop',
    description: 'Stop the plan waiting at a failed or interrupted step or at its budget gate: /orca-stop [plan_id] [note]',
  },
} as const satisfies Record<string, { gates: readonly CommandGate[]; option: string; description: string }>;

/** The gates a human answers with a command (planner questions are answered in the dialog). */
export type CommandGate = Extract<GateKind, 'approval' | 'deviation' | 'budget' | 'resume'>;

const answers = (gates: readonly CommandGate[], kind: string | null): kind is CommandGate => (gates as readonly string[]).includes(kind ?? '');

export type GateCommand = keyof typeof GATE_COMMANDS;
export const isGateCommand = (name: string): name is GateCommand => name in GATE_COMMANDS;

export class CommandError extends Error {
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
  not_offered: () => ' Use /orca-replan or /orca-stop.',
};

/** Apply a gate command; returns the line to show the human. Throws CommandError with what to do. */
export function runGateCommand(orca: Orca, name: GateCommand, rawArguments: string, sessionID: string): string {
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
  orca.host.send(planId, event);
  orca.log('info', `plan ${planId}: /${name} → ${spec.option}${text ? ` (${text})` : ''}`);
  return `Orca: ${spec.option}${whereOf(gate)} recorded for plan ${planId}${text ? ` with ${quote(text)}` : ''}.`;
}

/** " for step s1", " at the dispatch cap (3 of 3)", " at the budget gate ($0.52 of $0.50)" or nothing: where a decision applies. */
export function whereOf(gate: Gate): string {
  if (gate.kind === 'deviation' || gate.kind === 'resume') return ` for step ${gate.stepId}`;
  if (gate.kind !== 'budget') return '';
  if (gate.crossed.length === 1 && gate.crossed[0] === 'dispatches') return ` at the dispatch cap (${gate.dispatches} of ${gate.cap})`;
  const limits = gate.crossed.map((limit) =>
    limit === 'dispatches'
      ? `${gate.dispatches} of ${gate.cap} dispatches`
      : limit === 'cost'
        ? `${formatCost(gate.usage.cost)} of ${formatCost(gate.cost_cap ?? 0)}`
        : `${formatTokens(totalTokens(gate.usage))} of ${formatTokens(gate.token_cap ?? 0)} tokens`,
  );
  return ` at the budget gate (${limits.join(', ')})`;
}

function defaultPlan(orca: Orca, gates: readonly CommandGate[], sessionID: string, name: string): string {
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
