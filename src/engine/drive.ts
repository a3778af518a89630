import type { PlanEvent } from '../machines/plan.machine.js';
import { openGates, type Gate } from '../hitl/gates.js';
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
    const answer = await resolve(gate, signal);
    if ('waiting' in answer) return { kind: 'waiting', gates, reason: answer.waiting, snapshot };
    const { event } = answer;
    const before = snapshot;
    const after = host.send(planId, event);
    if (after === before && openGates(after).length === gates.length) {
      throw new Error(`The plan did not accept ${event.type} at its ${gate.kind} gate; it stays in ${JSON.stringify(after.value)}.`);
    }
  }
}
