import { describeHookFailure, hookFailed, runStepHooks, type HookResult } from '../hooks/step-hooks.js';
import type { VerifyPlanInput, VerifyPorts } from '../machines/ports.js';
import { errorMessage } from '../errors.js';
import { usageOfError } from '../machines/turn.js';
import type { VerificationCheck } from '../machines/types.js';
import { ZERO_USAGE } from '../machines/usage.js';
import { verifyPrompt } from '../prompts/verify-prompt.js';
import { turnHeader } from '../prompts/turn-header.js';
import { VerificationOutputSchema, verificationOutputJsonSchema } from '../schemas/verification-output.js';
import type { SessionsPort } from './sessions.js';
import { TurnAbortedError, type TurnRunner } from './turn-runner.js';

/** The agent whose turn carries out a plan's verification list in the user's project: the hidden verifier (reads, runs commands, edits nothing). */
export const VERIFIER_AGENT = 'verifier';

export interface VerifyPortOptions {
  /** The project directory: the commands and the turn run there. */
  directory: string;
  /** Each configured command is killed after this long. */
  commandTimeoutMs: number;
  /**
   * What the user's tree holds now (a git snapshot), and the files changed since such a state; absent
   * without git (nothing is measured then).
   */
  tree?: { state(signal: AbortSignal): Promise<string>; changedSince(state: string, signal: AbortSignal): Promise<string[]> };
  /**
   * The configured checks run on another tree (the plan's base, in a slot: workspace/base-checks.ts);
   * absent without git worktrees (a failure is then not compared with the plan's base).
   */
  baseChecks?: { of(commit: string, commands: readonly string[], planId: string, signal: AbortSignal): Promise<Array<{ command: string; passed: boolean; output: string }>> };
  log: (level: 'info' | 'warn', message: string) => void;
}

/**
 * The plan's verification in the user's project once every step landed: the configured commands
 * (each a check), then a turn of the tester for the plan's own list (a check). Passed when every
 * check passed; what it changed in the tree is measured and reported, never hidden.
 */
export function verifyPort(sessions: SessionsPort, turns: TurnRunner, options: VerifyPortOptions): VerifyPorts {
  return {
    async verifyPlan(input, signal) {
      const before = options.tree ? await options.tree.state(signal) : null;
      const checks: VerificationCheck[] = await withBase(await runChecks(input.commands, options.directory, options.commandTimeoutMs, input.planId, signal), input, signal);
      let usage = ZERO_USAGE;
      if (input.turn && input.verification.length > 0) {
        const session = await sessions.create({
          parentID: input.parentSessionId,
          title: `Orca verification · ${input.planId}`,
          metadata: { orca: { plan_id: input.planId, agent: VERIFIER_AGENT, idempotency_key: input.idempotencyKey } },
        });
        try {
          const outcome = await turns.run({
            planId: input.planId,
            role: 'verifier',
            sessionId: session.id,
            agent: VERIFIER_AGENT,
            header: turnHeader({ planId: input.planId, agent: VERIFIER_AGENT, round: 'verification' }),
            prompt: verifyPrompt(input),
            schema: VerificationOutputSchema,
            jsonSchema: verificationOutputJsonSchema(),
            label: 'verification output',
            guard: true,
            idempotencyKey: input.idempotencyKey,
            rerun: true,
            signal,
          });
          if ('interrupted' in outcome) throw new Error('the verifying turn was interrupted');
          usage = outcome.usage;
          const value = outcome.value;
          const output = value.type === 'success' ? [value.summary, ...(value.key_findings ?? []).map((k) => `- ${k}`)].join('\n') : [value.error, value.cause ?? ''].filter(Boolean).join('\n');
          checks.push({ kind: 'turn', name: "the plan's verification list", passed: value.type === 'success', output });
        } catch (error) {
          // The tool-loop breaker stopped the turn: a failed check, not a broken port.
          if (!(error instanceof TurnAbortedError)) throw error;
          usage = usageOfError(error) ?? ZERO_USAGE;
          checks.push({ kind: 'turn', name: "the plan's verification list", passed: false, output: error.reason });
        }
      }
      const changed = before !== null && options.tree ? await options.tree.changedSince(before, signal) : [];
      if (changed.length > 0) options.log('warn', `plan ${input.planId}: its verification changed ${changed.length} file(s) in the project: ${changed.join(', ')}`);
      const rerun = checks.some((c) => c.before) && input.base ? { base: input.base } : {};
      return {
        value: { passed: checks.every((c) => c.passed), where: options.directory, checks, changed, at: new Date().toISOString(), ...rerun },
        usage,
      };
    },
  };

  /**
   * Each failed command with how it did on the plan's base (`before`): a failure there the same way is
   * not the plan's (machines/verification.ts). Without a base or a way to run there, as it is; a run
   * there that fails itself is said in the log and leaves the check as it is (a new failure).
   */
  async function withBase(checks: VerificationCheck[], input: VerifyPlanInput, signal: AbortSignal): Promise<VerificationCheck[]> {
    const failed = checks.filter((c) => !c.passed).map((c) => c.name);
    if (failed.length === 0 || !input.base || !options.baseChecks) return checks;
    try {
      const before = await options.baseChecks.of(input.base, failed, input.planId, signal);
      return checks.map((c) => {
        const there = before.find((b) => b.command === c.name);
        return !c.passed && there ? { ...c, before: { passed: there.passed, output: there.output } } : c;
      });
    } catch (error) {
      if (signal.aborted) throw error;
      options.log('warn', `plan ${input.planId}: the failed checks could not run on the plan's base, so nothing tells an old failure from a new one: ${errorMessage(error)}`);
      return checks;
    }
  }
}

/** The configured commands run one after another in `cwd`, each a check (the plan's verification, and on its base). */
export async function runChecks(commands: readonly string[], cwd: string, timeoutMs: number, planId: string, signal: AbortSignal): Promise<VerificationCheck[]> {
  const results = await runStepHooks({ phase: 'verification', commands: [...commands], cwd, timeoutMs, env: { planId, stepId: '', agent: '', attempt: 0 }, signal });
  return results.map(commandCheck);
}

/** A configured command as a check: its exit and its output's tail. */
function commandCheck(result: HookResult): VerificationCheck {
  const passed = !hookFailed(result);
  const output = passed ? `passed (exit 0) after ${(result.durationMs / 1000).toFixed(1)} s${result.output.trim() ? `:\n${result.output.trimEnd()}` : ''}` : describeHookFailure(result);
  return { kind: 'command', name: result.command, passed, output };
}
