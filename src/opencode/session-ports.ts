import { existsSync } from 'node:fs';
import { OrcaError } from '../errors.js';
import { stepPrompt } from '../prompts/step-prompt.js';
import { attemptOfKey, turnHeader } from '../prompts/turn-header.js';
import { PlannerOutputSchema, plannerOutputJsonSchema } from '../schemas/planner-output.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../schemas/specialist-output.js';
import type { SessionsPort } from './sessions.js';
import type { SessionPorts } from '../machines/ports.js';
import { usageOfError, type Turn } from '../machines/turn.js';
import type { InterruptedTurn, SpecialistResult, ThreadedContext } from '../machines/types.js';
import { ZERO_USAGE } from '../machines/usage.js';
import { createTurnRunner, TurnAbortedError, type TurnRunner, type TurnRunnerOptions } from './turn-runner.js';

export type { ReconcileRecord } from './turn-runner.js';

export interface SessionPortOptions extends TurnRunnerOptions {
  /** The turn runner every turn goes through; default: one built from `sessions` and these options. */
  turns?: TurnRunner;
}

/** `{attempt}` from an idempotency key `plan:step:attempt[…]`, for the turn header. */
export const attemptOf = (idempotencyKey: string) => {
  const n = attemptOfKey(idempotencyKey);
  return n === undefined ? {} : { attempt: n };
};

/**
 * The machines' side effects, done in OpenCode child sessions of the calling session. Every model
 * turn goes through the turn runner; each port resolves with its result and what the turn cost.
 */
export function opencodePorts(sessions: SessionsPort, options: SessionPortOptions = {}): SessionPorts {
  const { onReconcile, isRecovering = () => true } = options;
  const turns = options.turns ?? createTurnRunner(sessions, options);

  return {
    async openPlannerSession({ planId, callerSessionId }) {
      return { sessionId: (await sessions.create({ parentID: callerSessionId, title: `Orca planner · ${planId}`, metadata: { orca: { plan_id: planId, role: 'planner' } } })).id };
    },

    // A planner turn restarted after a crash is simply asked again: it changes nothing outside the plan.
    async consultPlanner({ planId, sessionId, message }, signal) {
      const { value, usage } = await turns.run({
        planId,
        role: 'planner',
        sessionId,
        agent: 'planner',
        header: turnHeader({ planId, agent: 'planner' }),
        prompt: message,
        schema: PlannerOutputSchema,
        jsonSchema: plannerOutputJsonSchema(),
        label: 'planner output',
        signal,
      });
      return { value, usage };
    },

    async openSpecialistSession({ planId, stepId, agent, attempt, idempotencyKey, parentSessionId, directory }) {
      // Restarted after a crash between creating the session and recording it: reuse that session.
      if (parentSessionId && isRecovering(idempotencyKey)) {
        const existing = (await sessions.children(parentSessionId)).find(
          (c) => (c.metadata as { orca?: { idempotency_key?: string } } | undefined)?.orca?.idempotency_key === idempotencyKey,
        );
        if (existing) {
          onReconcile?.({ plan_id: planId, role: agent === 'reviewer' ? 'reviewer' : 'specialist', session_id: existing.id, idempotency_key: idempotencyKey, decision: 'reused_session' });
          return { sessionId: existing.id };
        }
      }
      // OpenCode answers a session in a folder that does not exist with "Unexpected server error" on every prompt.
      if (directory && !existsSync(directory))
        throw new OrcaError(`The step's working folder ${directory} does not exist, so its ${agent} session cannot start there: run the step again (Retry), or set "isolation": { "mode": "none" } to work in the project directory.`);
      const session = await sessions.create({
        parentID: parentSessionId,
        title: `Orca ${agent} · ${stepId} attempt ${attempt}`,
        metadata: { orca: { plan_id: planId, step_id: stepId, agent, attempt, idempotency_key: idempotencyKey } },
        // In the step's worktree: OpenCode runs the session in that directory's instance from now on.
        ...(directory ? { directory } : {}),
      });
      return { sessionId: session.id };
    },

    runSpecialist: ({ sessionId, agent, thread, idempotencyKey, rerun }, signal) =>
      specialistTurn(turns, { role: 'specialist', sessionId, agent, thread, idempotencyKey, rerun, prompt: stepPrompt(thread) }, signal),
  };
}

/**
 * A specialist's turn on its step, first (`specialist`) or after a failed review (`fixer`, with its
 * round in the header): the specialist output protocol, the tool-loop breaker on the session, and a
 * restored turn's interruption handed to the step machine (its resume gate).
 */
export async function specialistTurn(
  turns: TurnRunner,
  spec: { role: 'specialist' | 'fixer'; sessionId: string; agent: string; thread: ThreadedContext; idempotencyKey: string; rerun: boolean; prompt: string; round?: string },
  signal: AbortSignal,
): Promise<Turn<SpecialistResult | InterruptedTurn>> {
  const { role, sessionId, agent, thread, idempotencyKey, rerun, prompt, round } = spec;
  try {
    const outcome = await turns.run({
      planId: thread.plan_id,
      stepId: thread.step.id,
      role,
      sessionId,
      agent,
      header: turnHeader({ planId: thread.plan_id, agent, stepId: thread.step.id, ...attemptOf(idempotencyKey), ...(round ? { round } : {}) }),
      prompt,
      schema: SpecialistOutputSchema,
      jsonSchema: specialistOutputJsonSchema(),
      label: `${agent} output`,
      guard: true,
      idempotencyKey,
      rerun,
      signal,
    });
    // Restored, no result left, and it changes files: the step machine asks before running it again.
    if ('interrupted' in outcome) return { value: outcome.interrupted, usage: outcome.usage };
    return { value: outcome.value, usage: outcome.usage };
  } catch (error) {
    // The tool-loop breaker stopped the specialist: a failed attempt, not a broken port.
    if (error instanceof TurnAbortedError) return { value: { type: 'failure', error: error.reason }, usage: usageOfError(error) ?? ZERO_USAGE };
    throw error;
  }
}
