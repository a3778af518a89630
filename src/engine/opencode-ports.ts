import type { PlannerOutput as MachinePlannerOutput, SpecialistResult } from '../machines/types.js';
import { runStructuredTurn, type TurnPort } from '../dispatch/structured-turn.js';
import { stepPrompt } from '../dispatch/step-prompt.js';
import { PlannerOutputSchema, plannerOutputJsonSchema } from '../protocol/planner-output.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../protocol/specialist-output.js';
import type { SessionsPort } from '../opencode/sessions.js';
import type { PlanPorts } from './wire.js';

/** The machines' side effects, done in OpenCode child sessions of the calling session. */
export function opencodePorts(sessions: SessionsPort): PlanPorts {
  const turnPort = (sessionID: string, agent: string): TurnPort => ({
    prompt: (text, { jsonSchema, signal }) =>
      sessions.prompt({ sessionID, agent, text, jsonSchema, ...(signal ? { signal } : {}) }),
  });

  return {
    async openPlannerSession({ planId, callerSessionId }) {
      return { sessionId: (await sessions.create({ parentID: callerSessionId, title: `Orca planner · ${planId}`, metadata: { orca: { plan_id: planId, role: 'planner' } } })).id };
    },

    async consultPlanner({ sessionId, message }, signal) {
      const { value } = await runStructuredTurn(turnPort(sessionId, 'planner'), {
        schema: PlannerOutputSchema,
        jsonSchema: plannerOutputJsonSchema(),
        prompt: message,
        signal,
        label: 'planner output',
      });
      return value as MachinePlannerOutput;
    },

    async openSpecialistSession({ planId, stepId, agent, attempt, idempotencyKey, parentSessionId }) {
      const session = await sessions.create({
        parentID: parentSessionId,
        title: `Orca ${agent} · ${stepId} attempt ${attempt}`,
        metadata: { orca: { plan_id: planId, step_id: stepId, attempt, idempotency_key: idempotencyKey } },
      });
      return { sessionId: session.id };
    },

    async runSpecialist({ sessionId, agent, thread }, signal) {
      const { value } = await runStructuredTurn(turnPort(sessionId, agent), {
        schema: SpecialistOutputSchema,
        jsonSchema: specialistOutputJsonSchema(),
        prompt: stepPrompt(thread),
        signal,
        label: `${agent} output`,
      });
      return value as SpecialistResult;
    },
  };
}
