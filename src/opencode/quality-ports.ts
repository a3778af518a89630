import { fixPrompt, reviewPrompt } from '../prompts/review-prompt.js';
import { withUsage } from '../protocol/protocol-turn.js';
import { turnHeader } from '../prompts/turn-header.js';
import { ReviewOutputSchema, reviewOutputJsonSchema } from '../schemas/review-output.js';
import type { SessionsPort } from './sessions.js';
import { describeHookFailure, hookFailed, runStepHooks, StepHookError } from '../hooks/step-hooks.js';
import type { QualityPorts } from '../machines/ports.js';
import { usageOfError } from '../machines/turn.js';
import { ZERO_USAGE } from '../machines/usage.js';
import { attemptOf, specialistTurn } from './session-ports.js';
import { createTurnRunner, TurnAbortedError, type ReconcileRecord, type TurnRunner } from './turn-runner.js';
import type { OnTurn } from './turn-port.js';
import { errorMessage } from '../errors.js';
import { readFileSync } from 'node:fs';

/** The step's whole patch for its reviewer; one that cannot be read leaves the file list alone, said in the log. */
function readPatch(path: string | null, log: QualityPortOptions['log']): string | null {
  if (!path) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    log('warn', `the patch ${path} could not be read for the reviewer: ${errorMessage(error)}`);
    return null;
  }
}

export interface QualityPortOptions {
  /** The project directory: hooks run there. */
  directory: string;
  hookTimeoutMs: number;
  /** Tells when a session last did something (bus events); see opencode/session-monitor.ts. */
  idle: { waitIdle(sessionId: string, idleMs: number, signal: AbortSignal): Promise<void> };
  /** The turn runner every turn goes through; default: one over `sessions` (text protocol, no tool-loop breaker). */
  turns?: TurnRunner;
  log: (level: 'info' | 'warn', message: string) => void;
  /** For the default turn runner: whether a turn was in flight in a restored plan (PlanHost.isRecovering); default never. */
  isRecovering?: (idempotencyKey: string) => boolean;
  /** For the default turn runner: hears what reconciliation decided. */
  onReconcile?: (record: ReconcileRecord) => void;
  /** For the default turn runner: told of every prompt once it is answered, with what it cost. */
  onTurn?: OnTurn;
}

/**
 * The quality gate's side effects: the reviewer's and fixer's turns (through the turn runner, like
 * every other turn, with the tool-loop breaker on their session), the idle watch behind the step
 * timeout, and the step hooks.
 */
export function qualityPorts(sessions: SessionsPort, options: QualityPortOptions): QualityPorts {
  const turns =
    options.turns ??
    createTurnRunner(sessions, {
      isRecovering: options.isRecovering ?? (() => false),
      ...(options.onReconcile ? { onReconcile: options.onReconcile } : {}),
      ...(options.onTurn ? { onTurn: options.onTurn } : {}),
    });

  return {
    async runReview({ sessionId, thread, work, diff, round, maxRounds, idempotencyKey }, signal) {
      try {
        const { value, usage } = await turns.run({
          planId: thread.plan_id,
          stepId: thread.step.id,
          role: 'reviewer',
          sessionId,
          agent: 'reviewer',
          header: turnHeader({ planId: thread.plan_id, agent: 'reviewer', stepId: thread.step.id, ...attemptOf(idempotencyKey), round: `review round ${round}` }),
          prompt: reviewPrompt(thread, work, round, maxRounds, diff ? { diff, patch: readPatch(diff.patch_path, options.log) } : null),
          schema: ReviewOutputSchema,
          jsonSchema: reviewOutputJsonSchema(),
          label: 'reviewer output',
          guard: true,
          idempotencyKey,
          signal,
        });
        return { value, usage };
      } catch (error) {
        if (error instanceof TurnAbortedError) throw withUsage(new Error(`reviewer ${error.reason}`), usageOfError(error) ?? ZERO_USAGE);
        throw error;
      }
    },

    runFix: ({ sessionId, agent, thread, errors, round, rerun, idempotencyKey }, signal) =>
      specialistTurn(turns, { role: 'fixer', sessionId, agent, thread, idempotencyKey, rerun, prompt: fixPrompt(thread, errors, round), round: `fix round ${round}` }, signal),

    async watchIdle({ planId, stepId, sessionId, idleMs }, signal) {
      await options.idle.waitIdle(sessionId, idleMs, signal);
      options.log('warn', `plan ${planId}: step ${stepId}: session ${sessionId} idle for ${Math.round(idleMs / 1000)} s; aborting it (TIMEOUT)`);
      turns.expectAbort(sessionId); // the step fails with TIMEOUT from this watch, not with the aborted turn's error
      await sessions.abort(sessionId).catch((error: unknown) => {
        options.log('warn', `plan ${planId}: aborting idle session ${sessionId} failed: ${errorMessage(error)}`);
      });
      return { idleMs };
    },

    async runStepHooks({ phase, commands, cwd, planId, stepId, agent, attempt }, signal) {
      const results = await runStepHooks({
        phase,
        commands,
        cwd: cwd ?? options.directory,
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
