import { decisionEvent, openGates, TEXT_NEEDED, WAITING_WORDS, type Gate, type GateKind, type PlanSnapshot } from '../machines/gates.js';
import type { PlanEvent } from '../machines/plan.machine.js';
import type { DecisionSource } from '../machines/types.js';
import { quote } from '../text/quote.js';
import { totalTokens } from '../machines/usage.js';
import { formatCost, formatTokens } from '../usage/format.js';
import { OrcaError } from '../errors.js';

/** Why a decision was refused: the channel adds how to ask again in its own words. */
export type DecisionRefusal = 'not_waiting' | 'no_such_step' | 'not_offered' | 'needs_text';

export class DecisionError extends OrcaError {
  override name = 'DecisionError';
  constructor(
    readonly refusal: DecisionRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface DecisionRequest {
  /** The gates this decision may answer, e.g. ['budget', 'deviation'] for Stop. */
  kinds: readonly GateKind[];
  option: string;
  text?: string;
  /** The step a decision at a step's gate (failed, interrupted, not applied) is for (default: the first one waiting). */
  stepId?: string;
}

/** The gates that are about one step: a decision naming a step answers only these. */
const STEP_GATES: readonly GateKind[] = ['deviation', 'resume', 'merge'];
type StepGate = Extract<Gate, { kind: 'deviation' | 'resume' | 'merge' }>;
const isStepGate = (gate: Gate): gate is StepGate => STEP_GATES.includes(gate.kind);

/** What the plan waits for, in words: "approval or a decision on a failed step". */
export const waitingWords = (kinds: readonly GateKind[]) => {
  const words = kinds.map((k) => WAITING_WORDS[k]);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? 'nothing');
};

/** " for step s1", " at the dispatch cap (3 of 3)", " at the budget gate ($0.52 of $0.50)" or nothing: where a decision applies. */
export function whereOf(gate: Gate): string {
  if (isStepGate(gate)) return ` for step ${gate.stepId}`;
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

/**
 * A decision made outside the dialog (slash command, CLI, the plan viewer), checked against the
 * plan's snapshot exactly as the machine would take it: the gate must be open, the option offered
 * to this channel now, and Request Changes must carry the human's guidance. Returns the event to
 * send; throws DecisionError saying what is wrong.
 */
export function decide(snapshot: PlanSnapshot, request: DecisionRequest, source: DecisionSource): { gate: Gate; event: PlanEvent } {
  const planId = snapshot.context.plan_id;
  const kinds = request.stepId !== undefined ? request.kinds.filter((k) => STEP_GATES.includes(k)) : request.kinds;
  const open = openGates(snapshot);
  const candidates = open.filter((g) => kinds.includes(g.kind));
  // The dispatch cap is asked before a failed step: openGates lists it first.
  const gate = request.stepId === undefined ? candidates[0] : candidates.find((g) => isStepGate(g) && g.stepId === request.stepId);
  if (!gate) {
    const stepGates = candidates.filter(isStepGate);
    if (request.stepId !== undefined && stepGates.length > 0) {
      const waiting = stepGates.map((g) => g.stepId);
      throw new DecisionError('no_such_step', `Step ${quote(request.stepId)} of plan ${planId} is not waiting for a decision (steps waiting: ${waiting.join(', ')}).`);
    }
    const now = open.length > 0 ? `waits for ${waitingWords([...new Set(open.map((g) => g.kind))])}` : 'waits for nothing';
    throw new DecisionError('not_waiting', `Plan ${planId} is not waiting for ${waitingWords(kinds)}: it ${now}.`);
  }
  const refused = refusalOf(gate, request, source.channel);
  if (refused) throw refused;
  const event = decisionEvent(gate, { option: request.option, ...(request.text?.trim() ? { text: request.text } : {}) }, source);
  return { gate, event };
}

/** Why this choice may not be made at this gate on this channel, or null: the one check every channel makes. */
export function refusalOf(gate: Gate, choice: { option: string; text?: string }, channel: DecisionSource['channel']): DecisionError | null {
  if (gate.kind === 'question') return null; // the planner's own questions take any answer
  const offered: readonly string[] = channel === 'auto' ? gate.autoOptions : gate.options;
  if (!offered.includes(choice.option)) return new DecisionError('not_offered', notOffered(gate, choice.option, offered));
  const needed = TEXT_NEEDED[choice.option];
  if (needed && !choice.text?.trim()) return new DecisionError('needs_text', `${choice.option} needs ${needed}.`);
  return null;
}

function notOffered(gate: Gate, option: string, offered: readonly string[]): string {
  const where = gate.kind === 'deviation' ? `step ${gate.stepId} of plan ${gate.planId}` : `the ${gate.kind} gate of plan ${gate.planId}`;
  if (gate.kind === 'deviation' && option === 'Retry') {
    return `Retry is no longer offered for ${where} after ${gate.failures} failed attempts (offered: ${offered.join(', ')}).`;
  }
  if (gate.kind === 'merge' && option === 'Run again on top') {
    return `Run again on top is no longer offered for step ${gate.stepId} of plan ${gate.planId} at attempt ${gate.attempt} (offered: ${offered.join(', ')}).`;
  }
  return `${quote(option)} is not offered at ${where} (offered: ${offered.join(', ')}).`;
}
