import type { PlanEvent } from '../machines/plan.machine.js';
import { gateKey, openGates, type Gate } from '../machines/gates.js';
import type { PlanHost, PlanSnapshot } from './plan-host.js';

/** Tags of the states where an orca_ask_planner call returns to its caller. */
export const OUTCOME_TAGS = ['outcome.answer', 'outcome.failure', 'outcome.completed', 'outcome.stopped', 'outcome.rejected'] as const;
export type OutcomeTag = (typeof OUTCOME_TAGS)[number];

export const outcomeOf = (s: PlanSnapshot): OutcomeTag | null => OUTCOME_TAGS.find((t) => s.hasTag(t)) ?? null;

/** A gate's answer: the event to send, or why the plan keeps waiting (dismissed, no channel). */
export type GateAnswer = { event: PlanEvent } | { waiting: string };

/** Asks whoever can answer a gate. */
export type GateResolver = (gate: Gate, signal: AbortSignal) => Promise<GateAnswer>;

export type DriveResult =
  | { kind: 'outcome'; tag: OutcomeTag; snapshot: PlanSnapshot }
  | { kind: 'waiting'; gates: Gate[]; reason: string; snapshot: PlanSnapshot };

/**
 * Follow a plan until it reaches an outcome, answering each gate it stops at through `resolve`.
 * Returns `waiting` when a gate is open that no channel can answer now (the plan stays there,
 * persisted, for a slash command, the CLI or a later call).
 */
export async function drivePlan(host: PlanHost, planId: string, resolve: GateResolver, signal: AbortSignal): Promise<DriveResult> {
  for (;;) {
    const snapshot = await host.waitFor(planId, (s) => outcomeOf(s) !== null || openGates(s).length > 0, signal);
    const tag = outcomeOf(snapshot);
    if (tag) return { kind: 'outcome', tag, snapshot };
    const gates = openGates(snapshot);
    const gate = gates[0]!;
    const answer = await askWhileOpen(host, planId, gate, resolve, signal);
    // Answered elsewhere meanwhile (a slash command, another call): follow the plan from there.
    if (answer === 'closed') continue;
    if ('waiting' in answer) return { kind: 'waiting', gates, reason: answer.waiting, snapshot };
    const { event } = answer;
    const after = host.send(planId, event);
    // Refused: this very gate is still open (another step's gate of the same kind is another gate).
    if (after === snapshot || openGates(after).some((g) => gateKey(g) === gateKey(gate))) {
      const where = 'stepId' in gate ? `the ${gate.kind} gate of step ${gate.stepId}` : `its ${gate.kind} gate`;
      throw new Error(`The plan did not accept ${event.type} at ${where}; it stays in ${JSON.stringify(after.value)}.`);
    }
  }
}

/** Ask through `resolve`, but stop asking (and return 'closed') as soon as the gate is answered by another channel. */
async function askWhileOpen(host: PlanHost, planId: string, gate: Gate, resolve: GateResolver, signal: AbortSignal): Promise<GateAnswer | 'closed'> {
  const key = gateKey(gate);
  const isOpen = (s: PlanSnapshot) => openGates(s).some((g) => gateKey(g) === key);
  const asking = new AbortController();
  const closed = new Error(`gate ${key} was answered elsewhere`);
  const forward = () => asking.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  const actor = host.open(planId);
  const watch = actor.subscribe((s) => {
    if (!isOpen(s)) asking.abort(closed);
  });
  try {
    const answer = await resolve(gate, asking.signal);
    return isOpen(actor.getSnapshot()) ? answer : 'closed';
  } catch (error) {
    if (asking.signal.reason === closed && !signal.aborted) return 'closed';
    throw error;
  } finally {
    watch.unsubscribe();
    signal.removeEventListener('abort', forward);
  }
}
