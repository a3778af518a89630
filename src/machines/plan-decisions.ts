import type { StepEvent } from './step.machine.js';
import { landedBeside } from './step-graph.js';
import type { DecisionRecord, DecisionSource, StepRecord } from './types.js';

/**
 * A decision at one of the plan's gates, from a human or the auto policy: the record the plan
 * keeps of it (`decisions`), and, at a step's gate, the event the plan forwards to that step.
 */

/** A gate's event: who decided and when, the human's words, and the step it is about. */
type GateEvent = DecisionSource & { text?: string; stepId?: string };

/** The record the plan keeps of a decision: which gate, which option, its channel, time, step and words. */
export const decision = (gate: DecisionRecord['gate'], option: string, e: GateEvent): DecisionRecord => ({
  gate,
  option,
  channel: e.channel,
  at: e.at,
  ...(e.stepId ? { step_id: e.stepId } : {}),
  ...(e.text ? { text: e.text } : {}),
});

/** The step machine's event for a decision at a step's gate, with its text as guidance (or, for Mark done, the summary). */
export const forwardAs =
  (type: StepEvent['type']) =>
  ({ event }: { event: GateEvent & { stepId: string } }) => ({
    stepId: event.stepId,
    event: {
      type,
      channel: event.channel,
      at: event.at,
      ...(event.text ? (type === 'step.mark_done' ? { summary: event.text } : { guidance: event.text }) : {}),
    } as StepEvent,
  });

/**
 * Run again on top, forwarded after the plan recorded it (withRunOnTop): the step is told which steps
 * beside it are in its new tree and which of them changed the clashing files first, as its record says.
 */
export const forwardRunOnTop = ({ context, event }: { context: { steps: StepRecord[] }; event: GateEvent & { stepId: string } }) => {
  const { stepId, event: forwarded } = forwardAs('step.rerun_on_top')({ event });
  const step = context.steps.find((s) => s.id === stepId);
  const landed = step?.failures.at(-1)?.landed;
  return { stepId, event: { ...forwarded, on_top_of: step?.on_top_of ?? [], ...(landed ? { landed } : {}) } as StepEvent };
};

/** Retry, forwarded with the steps beside it completed so far: a Retry goes on in its tree, so those done since are not in it. */
export const forwardRetry = ({ context, event }: { context: { steps: StepRecord[] }; event: GateEvent & { stepId: string } }) => {
  const { stepId, event: forwarded } = forwardAs('step.retry')({ event });
  const step = context.steps.find((s) => s.id === stepId);
  return { stepId, event: { ...forwarded, landed_now: step ? landedBeside(context.steps, step) : [] } as StepEvent };
};
