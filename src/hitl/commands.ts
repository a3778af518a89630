import type { Orca } from '../orca.js';
import { waitingSummaries } from '../persistence/plan-index.js';
import { isPlanId } from '../persistence/plan-id.js';
import { decisionEvent, openGates, type Gate } from './gates.js';
import { NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './native-question/index.js';

/**
 * Channel 3: slash commands, handled in `command.execute.before` with no model turn. Each takes
 * an optional plan_id (default: the plan waiting for that decision, this session's first) and
 * optional text: guidance for /orca-changes, /orca-retry and /orca-replan, a note otherwise.
 */
export const GATE_COMMANDS = {
  'orca-approve': { gate: 'approval', option: 'Approve', description: 'Approve the plan waiting for approval' },
  'orca-changes': { gate: 'approval', option: 'Request Changes', description: 'Request changes to the waiting plan: /orca-changes [plan_id] <guidance>' },
  'orca-reject': { gate: 'approval', option: 'Reject', description: 'Reject the plan waiting for approval' },
  'orca-retry': { gate: 'deviation', option: 'Retry', description: 'Retry the failed step: /orca-retry [plan_id] [guidance]' },
  'orca-replan': { gate: 'deviation', option: 'Replan', description: 'Replan after the failed step: /orca-replan [plan_id] [guidance]' },
  'orca-stop': { gate: 'deviation', option: 'Stop', description: 'Stop the plan whose step failed' },
} as const;

export type GateCommand = keyof typeof GATE_COMMANDS;
export const isGateCommand = (name: string): name is GateCommand => name in GATE_COMMANDS;

export class CommandError extends Error {
  override name = 'CommandError';
}

/** Parse "[plan_id] [text…]". */
export function parseCommandArguments(raw: string): { planId?: string; text?: string } {
  const trimmed = raw.trim();
  const [first = '', ...rest] = trimmed.split(/\s+/);
  if (first.startsWith('plan_')) {
    if (!isPlanId(first)) throw new CommandError(`"${first}" is not a plan_id: expected plan_ followed by 26 ULID characters (see orca_list_plans).`);
    const text = trimmed.slice(first.length).trim();
    return { planId: first, ...(text ? { text } : {}) };
  }
  return trimmed ? { text: trimmed } : {};
}

/** Apply a gate command; returns the line to show the human. Throws CommandError with what to do. */
export function runGateCommand(orca: Orca, name: GateCommand, rawArguments: string, sessionID: string): string {
  const spec = GATE_COMMANDS[name];
  const { planId: given, text } = parseCommandArguments(rawArguments);
  const planId = given ?? defaultPlan(orca, spec.gate, sessionID, name);
  const snapshot = orca.host.open(planId).getSnapshot();
  const gate = openGates(snapshot).find((g): g is Gate => g.kind === spec.gate);
  if (!gate) {
    throw new CommandError(`Plan ${planId} is not waiting for ${spec.gate === 'approval' ? 'approval' : 'a decision on a failed step'} (it is ${snapshot.value && JSON.stringify(snapshot.value)}).`);
  }
  if (gate.kind === 'deviation' && !gate.options.includes(spec.option as 'Retry')) {
    throw new CommandError(`${spec.option} is no longer offered for step ${gate.stepId} after ${gate.failures} failed attempts: use /orca-replan or /orca-stop.`);
  }
  if (spec.option === 'Request Changes' && !text) throw new CommandError('/orca-changes needs your guidance for the planner: /orca-changes [plan_id] <guidance>.');
  const event = decisionEvent(gate, { option: spec.option, ...(text ? { text } : {}) }, { channel: 'command', at: new Date().toISOString() });
  orca.host.send(planId, event);
  orca.log('info', `plan ${planId}: /${name} → ${spec.option}${text ? ` (${text})` : ''}`);
  const step = gate.kind === 'deviation' ? ` for step ${gate.stepId}` : '';
  return `Orca: ${spec.option}${step} recorded for plan ${planId}${text ? ` with "${text}"` : ''}.`;
}

function defaultPlan(orca: Orca, gate: 'approval' | 'deviation', sessionID: string, name: string): string {
  const waiting = waitingSummaries(orca.host.index).filter((p) => p.waiting_for === gate);
  const mine = waiting.filter((p) => p.caller_session_id === sessionID);
  const candidates = mine.length > 0 ? mine : waiting;
  if (candidates.length === 1) return candidates[0]!.plan_id;
  if (candidates.length === 0) throw new CommandError(`No plan is waiting for ${gate === 'approval' ? 'approval' : 'a decision on a failed step'}.`);
  throw new CommandError(`Several plans wait for this decision: ${candidates.map((p) => p.plan_id).join(', ')}. Use /${name} <plan_id>.`);
}

/**
 * Install the commands (config hook). Their turn runs on the in-process orca-hitl model, which
 * only says back the note command.execute.before puts in the message. Ours replace same-named
 * commands of the user's config: the names belong to this plugin.
 */
export function registerGateCommands(cfg: { command?: Record<string, unknown> | undefined }): void {
  cfg.command ??= {};
  for (const [name, spec] of Object.entries(GATE_COMMANDS)) {
    cfg.command[name] = {
      description: `Orca: ${spec.description}`,
      template: `${NOTE_PREFIX} $ARGUMENTS`,
      agent: QUESTION_AGENT_ID,
      model: `${QUESTION_PROVIDER_ID}/${QUESTION_MODEL_ID}`,
      // The agent is a hidden subagent: without this OpenCode would run the command as a subtask
      // on the session's default agent and model, i.e. a real model request.
      subtask: false,
    };
  }
}
