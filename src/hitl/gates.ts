import type { AnyActorRef } from 'xstate';
import type { PlanEvent } from '../machines/plan.machine.js';
import type { DecisionSource, HitlQuestion, PlanProposal } from '../machines/types.js';
import type { PlanSnapshot } from '../engine/plan-host.js';

/**
 * What a waiting plan needs from a human, read from the snapshot's tags. Every channel (dialog,
 * permission prompt, slash command, CLI, auto policy) answers one of these with the same events.
 */
export type Gate =
  | { kind: 'approval'; planId: string; proposal: PlanProposal }
  | { kind: 'question'; planId: string; questions: HitlQuestion[] }
  | {
      kind: 'deviation';
      planId: string;
      stepId: string;
      agent: string;
      error: string;
      failures: number;
      options: DeviationOption[];
      /** Set when the breaker is open: the auto policy may not retry, a human decides. */
      breaker?: string;
    }
  | {
      kind: 'budget';
      planId: string;
      dispatches: number;
      cap: number;
      /** How many more dispatches Continue allows (policy.max_dispatches). */
      increment: number;
      completed: number;
      total: number;
      options: BudgetOption[];
    };

export type ApprovalOption = 'Approve' | 'Request Changes' | 'Reject';
export type DeviationOption = 'Retry' | 'Replan' | 'Stop';
export type BudgetOption = 'Continue' | 'Stop';

export const APPROVAL_OPTIONS: ApprovalOption[] = ['Approve', 'Request Changes', 'Reject'];
export const BUDGET_OPTIONS: BudgetOption[] = ['Continue', 'Stop'];

/** What a plan waiting at each kind of gate waits for, in words (messages of commands and the CLI). */
export const WAITING_WORDS = {
  approval: 'approval',
  question: "answers to the planner's questions",
  deviation: 'a decision on a failed step',
  budget: 'a decision at the dispatch cap',
} as const satisfies Record<Gate['kind'], string>;

const DEVIATION_EVENTS = { Retry: 'step.retry', Replan: 'step.replan', Stop: 'step.stop' } as const;

/** The gates open in a plan, first the plan's own, then each step waiting in its deviation gate. */
export function openGates(snapshot: PlanSnapshot): Gate[] {
  const c = snapshot.context;
  if (snapshot.hasTag('gate.approval') && c.proposal) return [{ kind: 'approval', planId: c.plan_id, proposal: c.proposal }];
  if (snapshot.hasTag('gate.question') && c.questions) return [{ kind: 'question', planId: c.plan_id, questions: c.questions }];
  const gates: Gate[] = [];
  // The dispatch cap pauses the whole plan: asked before any step's deviation gate.
  if (snapshot.hasTag('gate.budget')) {
    gates.push({
      kind: 'budget',
      planId: c.plan_id,
      dispatches: c.dispatches,
      cap: c.dispatch_cap,
      increment: c.policy.max_dispatches,
      completed: c.steps.filter((st) => st.status === 'completed').length,
      total: c.steps.length,
      options: [...BUDGET_OPTIONS],
    });
  }
  for (const child of Object.values(snapshot.children) as AnyActorRef[]) {
    const s = child?.getSnapshot();
    if (!s?.hasTag?.('gate.deviation')) continue;
    // A human's channel: with the breaker open, the auto policy's Retry is refused but a human's is not.
    const source: DecisionSource = { channel: 'tool', at: new Date(0).toISOString() };
    // Offer exactly what the step machine would accept now: Retry disappears at the attempt limit.
    const options = (Object.keys(DEVIATION_EVENTS) as DeviationOption[]).filter((o) =>
      s.can({ type: DEVIATION_EVENTS[o], ...source }),
    );
    const failures = s.context.failures as Array<{ error: string }>;
    gates.push({
      kind: 'deviation',
      planId: c.plan_id,
      stepId: s.context.stepId,
      agent: s.context.agent,
      error: failures.at(-1)?.error ?? 'unknown error',
      failures: failures.length,
      options,
      ...(s.context.breaker ? { breaker: s.context.breaker as string } : {}),
    });
  }
  return gates;
}

/** The plan event for a human's choice at a gate. */
export function decisionEvent(
  gate: Gate,
  choice: { option: string; text?: string; answers?: string[][] },
  source: DecisionSource,
): PlanEvent {
  const text = choice.text?.trim() ? { text: choice.text.trim() } : {};
  switch (gate.kind) {
    case 'approval':
      if (choice.option === 'Approve') return { type: 'approval.approve', ...text, ...source };
      if (choice.option === 'Reject') return { type: 'approval.reject', ...text, ...source };
      if (choice.option === 'Request Changes') {
        return { type: 'approval.request_changes', text: choice.text?.trim() || 'Please revise the plan.', ...source };
      }
      break;
    case 'question':
      return { type: 'question.answer', answers: choice.answers ?? [[choice.option]], ...source };
    case 'deviation':
      if (choice.option === 'Retry') return { type: 'deviation.retry', stepId: gate.stepId, ...text, ...source };
      if (choice.option === 'Replan') return { type: 'deviation.replan', stepId: gate.stepId, ...text, ...source };
      if (choice.option === 'Stop') return { type: 'deviation.stop', stepId: gate.stepId, ...text, ...source };
      break;
    case 'budget':
      if (choice.option === 'Continue') return { type: 'budget.continue', ...text, ...source };
      if (choice.option === 'Stop') return { type: 'budget.stop', ...text, ...source };
      break;
  }
  throw new Error(`"${choice.option}" is not an option at the ${gate.kind} gate of ${gate.planId}.`);
}
