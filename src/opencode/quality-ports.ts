import { runStructuredTurn, withUsage } from '../dispatch/structured-turn.js';
import { fixPrompt, reviewPrompt } from '../dispatch/review-prompt.js';
import { ReviewOutputSchema, reviewOutputJsonSchema } from '../protocol/review-output.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../protocol/specialist-output.js';
import type { SessionsPort } from './sessions.js';
import { describeHookFailure, hookFailed, runStepHooks, StepHookError } from '../hooks/step-hooks.js';
import type { QualityPorts } from '../machines/ports.js';
import { recoverTurn, type ReconcileRecord } from './reconcile.js';
import { usageOfError } from '../machines/turn.js';
import { ZERO_USAGE, type Usage } from '../machines/usage.js';
import { recordingTurnPort, type OnTurn } from './turn-port.js';

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
  /** Told of every prompt once it is answered, with what it cost (the journal, the usage history). */
  onTurn?: OnTurn;
}

/**
 * The quality gate's side effects: the reviewer's and fixer's turns (structured output, tolerant
 * parsing and correction prompts like every other turn), the idle watch behind the step
 * timeout, and the step hooks.
 */
export function qualityPorts(sessions: SessionsPort, options: QualityPortOptions): QualityPorts {
  /** Run a turn with the tool-loop breaker on its session; its abort reason wins over the turn's own error. */
  async function guarded<T>(
    sessionId: string,
    turn: () => Promise<{ value: T; usage: Usage }>,
  ): Promise<{ value: T; usage: Usage } | { aborted: string; usage: Usage }> {
    const unguard = options.guard(sessionId);
    try {
      const result = await turn();
      const reason = options.abortReason(sessionId);
      return reason ? { aborted: reason, usage: result.usage } : result;
    } catch (error) {
      const reason = options.abortReason(sessionId);
      if (reason) return { aborted: reason, usage: usageOfError(error) ?? ZERO_USAGE };
      throw error;
    } finally {
      unguard();
    }
  }

  return {
    async runReview({ sessionId, thread, work, round, maxRounds, idempotencyKey }, signal) {
      const who = { plan_id: thread.plan_id, step_id: thread.step.id, role: 'reviewer' as const, agent: 'reviewer', session_id: sessionId, idempotency_key: idempotencyKey };
      const value = await guarded(sessionId, () =>
        runStructuredTurn(recordingTurnPort(sessions, who, options.onTurn), {
          schema: ReviewOutputSchema,
          jsonSchema: reviewOutputJsonSchema(),
          prompt: reviewPrompt(thread, work, round, maxRounds),
          signal,
          label: 'reviewer output',
        }),
      );
      if ('aborted' in value) throw withUsage(new Error(`reviewer ${value.aborted}`), value.usage);
      return { value: value.value, usage: value.usage };
    },

    async runFix({ sessionId, agent, thread, errors, round, rerun, idempotencyKey }, signal) {
      const prompt = fixPrompt(thread, errors, round);
      const recovery = { sessions, isRecovering: options.isRecovering ?? (() => false), ...(options.onReconcile ? { onReconcile: options.onReconcile } : {}) };
      const record = { plan_id: thread.plan_id, role: 'fixer' as const, session_id: sessionId, idempotency_key: idempotencyKey };
      // A finished turn taken over after a restart was paid for (and recorded) by the process that ran it.
      const earlier = await recoverTurn(recovery, record, { prompt, schema: SpecialistOutputSchema, rerun, signal });
      if (earlier) return { value: 'value' in earlier ? earlier.value : earlier, usage: ZERO_USAGE };
      const who = { plan_id: thread.plan_id, step_id: thread.step.id, role: 'fixer' as const, agent, session_id: sessionId, idempotency_key: idempotencyKey };
      const value = await guarded(sessionId, () =>
        runStructuredTurn(recordingTurnPort(sessions, who, options.onTurn), {
          schema: SpecialistOutputSchema,
          jsonSchema: specialistOutputJsonSchema(),
          prompt,
          signal,
          label: `${agent} output`,
        }),
      );
      if ('aborted' in value) return { value: { type: 'failure', error: value.aborted }, usage: value.usage };
      return { value: value.value, usage: value.usage };
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
