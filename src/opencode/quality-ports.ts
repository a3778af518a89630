import { runStructuredTurn, type TurnPort } from '../dispatch/structured-turn.js';
import { fixPrompt, reviewPrompt } from '../dispatch/review-prompt.js';
import { ReviewOutputSchema, reviewOutputJsonSchema } from '../protocol/review-output.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../protocol/specialist-output.js';
import type { SessionsPort } from './sessions.js';
import { describeHookFailure, hookFailed, runStepHooks, StepHookError } from '../hooks/step-hooks.js';
import type { QualityPorts } from '../machines/ports.js';
import { recoverTurn, type ReconcileRecord } from './reconcile.js';

export interface QualityPortOptions {
  /** The project directory: hooks run there. */
  directory: string;
  hookTimeoutMs: number;
  /** Tells when a session last did something (bus events); see opencode/session-monitor.ts. */
  idle: { waitIdle(sessionId: string, idleMs: number, signal: AbortSignal): Promise<void> };
  /** Watch a session for tool loops while a turn runs in it (returns the unguard). */
  guard: (sessionId: string) => () => void;
  /** Why the monitor aborted a session (a tool loop), if it did. */
  abortReason: (sessionId: string) => string | undefined;
  log: (level: 'info' | 'warn', message: string) => void;
  /** Whether a turn was in flight in a restored plan (PlanHost.isRecovering); default never. */
  isRecovering?: (idempotencyKey: string) => boolean;
  onReconcile?: (record: ReconcileRecord) => void;
}

/**
 * The quality gate's side effects: the reviewer's and fixer's turns (structured output, tolerant
 * parsing and correction prompts like every other turn), the idle watch behind the step
 * timeout, and the step hooks.
 */
export function qualityPorts(sessions: SessionsPort, options: QualityPortOptions): QualityPorts {
  const turnPort = (sessionID: string, agent: string): TurnPort => ({
    prompt: (text, { jsonSchema, signal }) => sessions.prompt({ sessionID, agent, text, jsonSchema, ...(signal ? { signal } : {}) }),
  });

  /** Run a turn with the tool-loop breaker on its session; its abort reason wins over the turn's own error. */
  async function guarded<T>(sessionId: string, turn: () => Promise<{ value: T }>): Promise<{ value: T } | { aborted: string }> {
    const unguard = options.guard(sessionId);
    try {
      const result = await turn();
      const reason = options.abortReason(sessionId);
      return reason ? { aborted: reason } : result;
    } catch (error) {
      const reason = options.abortReason(sessionId);
      if (reason) return { aborted: reason };
      throw error;
    } finally {
      unguard();
    }
  }

  return {
    async runReview({ sessionId, thread, work, round, maxRounds }, signal) {
      const value = await guarded(sessionId, () =>
        runStructuredTurn(turnPort(sessionId, 'reviewer'), {
          schema: ReviewOutputSchema,
          jsonSchema: reviewOutputJsonSchema(),
          prompt: reviewPrompt(thread, work, round, maxRounds),
          signal,
          label: 'reviewer output',
        }),
      );
      if ('aborted' in value) throw new Error(`reviewer ${value.aborted}`);
      return value.value;
    },

    async runFix({ sessionId, agent, thread, errors, round, rerun, idempotencyKey }, signal) {
      const prompt = fixPrompt(thread, errors, round);
      const recovery = { sessions, isRecovering: options.isRecovering ?? (() => false), ...(options.onReconcile ? { onReconcile: options.onReconcile } : {}) };
      const record = { plan_id: thread.plan_id, role: 'fixer' as const, session_id: sessionId, idempotency_key: idempotencyKey };
      const earlier = await recoverTurn(recovery, record, { prompt, schema: SpecialistOutputSchema, rerun, signal });
      if (earlier) return 'value' in earlier ? earlier.value : earlier;
      const value = await guarded(sessionId, () =>
        runStructuredTurn(turnPort(sessionId, agent), {
          schema: SpecialistOutputSchema,
          jsonSchema: specialistOutputJsonSchema(),
          prompt,
          signal,
          label: `${agent} output`,
        }),
      );
      if ('aborted' in value) return { type: 'failure', error: value.aborted };
      return value.value;
    },

    async watchIdle({ planId, stepId, sessionId, idleMs }, signal) {
      await options.idle.waitIdle(sessionId, idleMs, signal);
      options.log('warn', `plan ${planId}: step ${stepId}: session ${sessionId} idle for ${Math.round(idleMs / 1000)} s; aborting it (TIMEOUT)`);
      await sessions.abort(sessionId).catch((error: unknown) => {
        options.log('warn', `plan ${planId}: aborting idle session ${sessionId} failed: ${(error as Error).message}`);
      });
      return { idleMs };
    },

    async runStepHooks({ phase, commands, planId, stepId, agent, attempt }, signal) {
      const results = await runStepHooks({
        phase,
        commands,
        cwd: options.directory,
        timeoutMs: options.hookTimeoutMs,
        env: { planId, stepId, agent, attempt },
        signal,
      }).catch((error: unknown) => {
        if (error instanceof StepHookError) options.log('warn', `plan ${planId}: step ${stepId} blocked: ${error.message}`);
        throw error;
      });
      const failures = results.filter(hookFailed).map((r) => describeHookFailure(r, phase));
      for (const failure of failures) options.log('warn', `plan ${planId}: step ${stepId}: ${failure}`);
      return { failures };
    },
  };
}
