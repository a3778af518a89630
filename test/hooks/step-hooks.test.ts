import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeHookFailure, HOOK_OUTPUT_LIMIT, runStepHooks, StepHookError, type HookRun } from '../../src/hooks/step-hooks.js';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'orca-hooks-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hooks = (phase: HookRun['phase'], commands: string[], more: Partial<HookRun> = {}) =>
  runStepHooks({
    phase,
    commands,
    cwd: dir,
    timeoutMs: 5_000,
    env: { planId: 'plan-1', stepId: 'step-2', agent: 'coder', attempt: 3 },
    ...more,
  });

/** A command that starts a grandchild, writes its pid to `gc.pid`, and waits for it. */
const withGrandchild = (prelude = '') => `${prelude} sh -c 'sleep 30 & echo $! > gc.pid; wait'`;
const grandchildPid = () => Number(readFileSync(join(dir, 'gc.pid'), 'utf8'));

/**
 * process.kill(pid, 0) also succeeds for a zombie, and a container's init may reap orphans a
 * second late, so on Linux a zombie counts as gone.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * A killed process closes its files before the kernel marks it a zombie: under load, /proc can
 * still show it running for a moment after its pipes closed. Dead means gone within `ms`.
 */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

async function untilExists(path: string) {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('runStepHooks', () => {
  it('should run each command in cwd with the ORCA_* variables set', async () => {
    const [result] = await hooks('pre_step', ['printf "%s|%s|%s|%s|%s|%s" "$ORCA_PLAN_ID" "$ORCA_STEP_ID" "$ORCA_AGENT" "$ORCA_ATTEMPT" "$ORCA_HOOK" "$PWD"']);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, output: `plan-1|step-2|coder|3|pre_step|${dir}` });
  });

  it('should capture stdout and stderr together', async () => {
    const [result] = await hooks('post_step', ['echo to-out; echo to-err >&2']);
    expect(result!.output).toContain('to-out\n');
    expect(result!.output).toContain('to-err\n');
  });

  it('should resolve [] without spawning when there are no commands', async () => {
    await expect(hooks('pre_step', [], { cwd: join(dir, 'missing') })).resolves.toEqual([]);
  });

  it('should reject on the first failing pre_step command with its exit code and output, and run no later command', async () => {
    const error = await hooks('pre_step', ['true', 'echo lint broke; exit 2', 'touch later']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepHookError);
    const { message, result, name } = error as StepHookError;
    expect(name).toBe('StepHookError');
    expect(message).toMatch(/^pre_step hook "echo lint broke; exit 2" failed \(exit 2\) after \d+(\.\d)? s:\nlint broke$/);
    expect(result).toMatchObject({ command: 'echo lint broke; exit 2', exitCode: 2, timedOut: false });
    expect(existsSync(join(dir, 'later'))).toBe(false);
  });

  it('should run every post_step command even when one fails, and resolve with all results', async () => {
    const results = await hooks('post_step', ['exit 3', 'echo second']);
    expect(results.map((r) => [r.exitCode, r.output])).toEqual([
      [3, ''],
      [0, 'second\n'],
    ]);
    expect(describeHookFailure(results[0]!, 'post_step')).toMatch(/^post_step hook "exit 3" failed \(exit 3\) after [\d.]+ s, with no output\.$/);
  });

  it('should kill the whole process group at the timeout', async () => {
    const started = Date.now();
    const error = await hooks('pre_step', [withGrandchild('echo starting;')], { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(StepHookError);
    expect((error as StepHookError).result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM' });
    expect((error as Error).message).toMatch(/^pre_step hook ".*" timed out after 0\.\d s:\nstarting$/);
    expect(await goneWithin(grandchildPid(), 2_000)).toBe(true);
  });

  it('should SIGKILL a group that ignores SIGTERM, one second later', async () => {
    const [result] = await hooks('post_step', [withGrandchild(`trap '' TERM;`)], { timeoutMs: 200 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(result!.durationMs).toBeGreaterThanOrEqual(1_100);
    expect(await goneWithin(grandchildPid(), 2_000)).toBe(true);
  });

  it('should keep only the tail of long output, marking the cut', async () => {
    const [result] = await hooks('post_step', [`head -c 9000 /dev/zero | tr '\\0' x; echo END`]);
    const [marker, kept] = result!.output.split('\n', 2) as [string, string];
    expect(marker).toBe('[… 5004 earlier characters cut]');
    expect(result!.output.slice(marker.length + 1)).toHaveLength(HOOK_OUTPUT_LIMIT);
    expect(kept.endsWith('xEND')).toBe(true);
  });

  it('should kill the group and reject with the abort reason', async () => {
    const controller = new AbortController();
    const reason = new Error('plan stopped');
    const running = hooks('post_step', [withGrandchild(), 'touch later'], { signal: controller.signal });
    await untilExists(join(dir, 'gc.pid'));
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(await goneWithin(grandchildPid(), 2_000)).toBe(true);
    expect(existsSync(join(dir, 'later'))).toBe(false);
  });

  it('should not start when already aborted', async () => {
    await expect(hooks('pre_step', ['touch ran'], { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('should fail a pre_step hook whose cwd does not exist', async () => {
    const missing = join(dir, 'missing');
    await expect(hooks('pre_step', ['true'], { cwd: missing })).rejects.toThrow(`pre_step hook "true" could not start:`);
  });

  it('should reject a timeout that is not a positive number', async () => {
    await expect(hooks('pre_step', ['true'], { timeoutMs: 0 })).rejects.toThrow('Expected `timeoutMs` to be a positive number, got 0.');
  });
});
