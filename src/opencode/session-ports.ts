import { runStructuredTurn, withUsage, type TurnPort } from '../dispatch/structured-turn.js';
import { stepPrompt } from '../dispatch/step-prompt.js';
import { PlannerOutputSchema, plannerOutputJsonSchema } from '../protocol/planner-output.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../protocol/specialist-output.js';
import type { SessionsPort } from './sessions.js';
import type { SessionMonitor } from './session-monitor.js';
import type { SessionPorts } from '../machines/ports.js';
import { recoverTurn, type ReconcileRecord } from './reconcile.js';
import { recordingTurnPort, type OnTurn } from './turn-port.js';
import { ZERO_USAGE } from '../machines/usage.js';
import { usageOfError } from '../machines/turn.js';

export type { ReconcileRecord } from './reconcile.js';

/** The machines' side effects, done in OpenCode child sessions of the calling session. */
export function opencodePorts(sessions: SessionsPort, { onReconcile, onTurn, monitor, isRecovering = () => true }: {
    onReconcile?: (record: ReconcileRecord) => void;
    /** Told of every prompt once it is answered, with what it cost (the journal, the usage history). */
    onTurn?: OnTurn;
    /**
     * Whether the side effect with this idempotency key may have started before (PlanHost.isRecovering:
     * it was in flight in a restored snapshot). Only then are OpenCode's sessions searched for what
     * it left; a fresh dispatch skips those calls. Default: always search.
     */
    isRecovering?: (idempotencyKey: string) => boolean;
    /** Guards specialist sessions against tool loops; its abort reason becomes the step's error. */
    monitor?: SessionMonitor;
  } = {}): SessionPorts {
  const recovery = { sessions, isRecovering, ...(onReconcile ? { onReconcile } : {}) };


  return {
    async openPlannerSession({ planId, callerSessionId }) {
      return { sessionId: (await sessions.create({ parentID: callerSessionId, title: `Orca planner · ${planId}`, metadata: { orca: { plan_id: planId, role: 'planner' } } })).id };
    },

    // A planner turn restarted after a crash is simply asked again: it changes nothing outside the
    // plan, and OpenCode 1.18 cannot list the messages of a structured-output session to reuse it.
    async consultPlanner({ planId, sessionId, message }, signal) {
      const { value, usage } = await runStructuredTurn(
        recordingTurnPort(sessions, { plan_id: planId, role: 'planner', agent: 'planner', session_id: sessionId }, onTurn),
        { schema: PlannerOutputSchema, jsonSchema: plannerOutputJsonSchema(), prompt: message, signal, label: 'planner output' },
      );
      return { value, usage };
    },

    async openSpecialistSession({ planId, stepId, agent, attempt, idempotencyKey, parentSessionId }) {
      // Restarted after a crash between creating the session and recording it: reuse that session.
      if (parentSessionId && isRecovering(idempotencyKey)) {
        const existing = (await sessions.children(parentSessionId)).find(
          (c) => (c.metadata as { orca?: { idempotency_key?: string } } | undefined)?.orca?.idempotency_key === idempotencyKey,
        );
        if (existing) {
          onReconcile?.({ plan_id: planId, role: 'specialist', session_id: existing.id, idempotency_key: idempotencyKey, decision: 'reused_session' });
          return { sessionId: existing.id };
        }
      }
      const session = await sessions.create({
        parentID: parentSessionId,
        title: `Orca ${agent} · ${stepId} attempt ${attempt}`,
        metadata: { orca: { plan_id: planId, step_id: stepId, attempt, idempotency_key: idempotencyKey } },
      });
      return { sessionId: session.id };
    },

    async runSpecialist({ sessionId, agent, thread, idempotencyKey, rerun }, signal) {
      const prompt = stepPrompt(thread);
      const record = { plan_id: thread.plan_id, role: 'specialist' as const, session_id: sessionId, idempotency_key: idempotencyKey };
      const unguard = monitor?.guard(sessionId);
      const brokenLoop = () => monitor?.abortReason(sessionId);
      // A session the breaker aborted gets no correction prompt: its turn ends here.
      const port = recordingTurnPort(
        sessions,
        { plan_id: thread.plan_id, step_id: thread.step.id, role: 'specialist', agent, session_id: sessionId, idempotency_key: idempotencyKey },
        onTurn,
      );
      const guardedPort: TurnPort = {
        async prompt(text, options) {
          const reply = await port.prompt(text, options);
          const reason = brokenLoop();
          if (reason) throw withUsage(new Error(reason), reply.usage ?? ZERO_USAGE);
          return reply;
        },
      };
      try {
        // A finished turn taken over after a restart was paid for (and recorded) by the process that ran it.
        const earlier = await recoverTurn(recovery, record, { prompt, schema: SpecialistOutputSchema, rerun, signal });
        if (earlier) return { value: 'value' in earlier ? earlier.value : earlier, usage: ZERO_USAGE };
        const { value, usage } = await runStructuredTurn(guardedPort, {
          schema: SpecialistOutputSchema,
          jsonSchema: specialistOutputJsonSchema(),
          prompt,
          signal,
          label: `${agent} output`,
        });
        return { value, usage };
      } catch (error) {
        const reason = brokenLoop();
        if (reason) return { value: { type: 'failure', error: reason }, usage: usageOfError(error) ?? ZERO_USAGE };
        throw error;
      } finally {
        unguard?.();
      }
    },
  };
}
