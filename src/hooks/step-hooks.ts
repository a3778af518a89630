import { spawn } from 'node:child_process';
import { OrcaError } from '../errors.js';

export type HookPhase = 'pre_step' | 'post_step' | 'verification';

export interface HookRun {
  phase: HookPhase;
  commands: string[];
  cwd: string;
  timeoutMs: number;
  env: { planId: string; stepId: string; agent: string; attempt: number };
  signal?: AbortSignal;
}

export interface HookResult {
  command: string;
  /** null when the shell was killed or could not start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** stdout and stderr in arrival order, only the last HOOK_OUTPUT_LIMIT characters. */
  output: string;
  durationMs: number;
}

/** Characters of output kept per command: the tail, where the error usually is. */
export const HOOK_OUTPUT_LIMIT = 4000;
/** Between SIGTERM and SIGKILL to a hook's process group. */
const KILL_GRACE_MS = 1000;
/** How long to read output after the shell exited: a process it put in the background may hold the pipes open. */
const DRAIN_MS = 200;
/** setTimeout fires at once for longer delays; treat them as no timeout. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pre_step hook failed, so the step must not start; the message is the step's error. */
export class StepHookError extends OrcaError {
  override readonly name = 'StepHookError';
  readonly result: HookResult;

  constructor(phase: HookPhase, result: HookResult) {
    super(describeHookFailure(result, phase));
    this.result = result;
  }
}

export const hookFailed = (result: HookResult): boolean => result.timedOut || result.exitCode !== 0;

/** `pre_step hook "npm run lint" failed (exit 2) after 1.2 s:` and the output tail. */
export function describeHookFailure(result: HookResult, phase?: HookPhase): string {
  const hook = `${phase ? `${phase} ` : ''}hook ${JSON.stringify(result.command)}`;
  const after = seconds(result.durationMs);
  const how = result.timedOut
    ? `timed out after ${after}`
    : result.signal
      ? `was killed by ${result.signal} after ${after}`
      : result.exitCode === null
        ? 'could not start'
        : `failed (exit ${result.exitCode}) after ${after}`;
  const output = result.output.trimEnd();
  return output ? `${hook} ${how}:\n${output}` : `${hook} ${how}, with no output.`;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * Run a phase's commands one after another with `sh -c` in `cwd`.
 * pre_step: the first failing command stops the sequence and rejects with StepHookError.
 * post_step: every command runs and every result is returned; the caller reports failures.
 * Both reject with `signal.reason` when aborted, after killing the running command's process group.
 */
export async function runStepHooks(run: HookRun): Promise<HookResult[]> {
  if (!(run.timeoutMs > 0)) throw new TypeError(`Expected \`timeoutMs\` to be a positive number, got ${run.timeoutMs}.`);
  const results: HookResult[] = [];
  for (const command of run.commands) {
    run.signal?.throwIfAborted();
    const result = await runHook(command, run);
    results.push(result);
    if (run.phase === 'pre_step' && hookFailed(result)) throw new StepHookError(run.phase, result);
  }
  return results;
}

type Exit = { code: number | null; signal: string | null; error?: Error };

async function runHook(command: string, { phase, cwd, timeoutMs, env, signal }: HookRun): Promise<HookResult> {
  const started = performance.now();
  const output = outputTail(HOOK_OUTPUT_LIMIT);
  // detached: the shell leads a new process group, so a timeout can kill everything it started.
  const child = spawn('sh', ['-c', command], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ORCA_PLAN_ID: env.planId,
      ORCA_STEP_ID: env.stepId,
      ORCA_AGENT: env.agent,
      ORCA_ATTEMPT: String(env.attempt),
      ORCA_HOOK: phase,
    },
  });
  child.stdout.setEncoding('utf8').on('data', output.push);
  child.stderr.setEncoding('utf8').on('data', output.push);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, sig) => resolve({ code, signal: sig }));
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
  });

  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stopped = new Promise<'timeout' | 'abort'>((resolve) => {
    if (timeoutMs <= MAX_TIMER_MS) timer = setTimeout(resolve, timeoutMs, 'timeout');
    onAbort = () => resolve('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([exited, stopped]);
    const stoppedBy = typeof first === 'string' ? first : undefined;
    if (stoppedBy && child.pid !== undefined) await killGroup(child.pid, closed);
    const exit = await exited;
    await settlesWithin(closed, DRAIN_MS);
    child.stdout.destroy();
    child.stderr.destroy();
    if (stoppedBy === 'abort') throw signal!.reason;
    return {
      command,
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: stoppedBy === 'timeout',
      output: exit.error ? `${exit.error.message} (cwd ${cwd})` : output.text(),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * SIGTERM the group, then SIGKILL whatever is left once the shell and every process holding its
 * output are gone, or after KILL_GRACE_MS at the latest.
 */
async function killGroup(pgid: number, closed: Promise<void>): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  await settlesWithin(closed, KILL_GRACE_MS);
  signalGroup(pgid, 'SIGKILL');
}

/** False when nothing is left in the group to signal. */
function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // macOS answers EPERM, not ESRCH, for a group of zombies: https://github.com/airspeed-velocity/asv/pull/304
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw error;
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Keeps the last `limit` characters; trims in batches so a chatty command stays linear. */
function outputTail(limit: number) {
  let kept = '';
  let cut = 0;
  const trim = () => {
    if (kept.length <= limit) return;
    let drop = kept.length - limit;
    // Do not start on the second half of a surrogate pair.
    if (/[\uDC00-\uDFFF]/.test(kept[drop] ?? '')) drop += 1;
    cut += drop;
    kept = kept.slice(drop);
  };
  return {
    push: (chunk: string) => {
      kept += chunk;
      if (kept.length > 2 * limit) trim();
    },
    text: () => {
      trim();
      return cut > 0 ? `[… ${cut} earlier characters cut]\n${kept}` : kept;
    },
  };
}
