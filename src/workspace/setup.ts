import { spawn } from 'node:child_process';
import { OrcaError } from '../errors.js';

/** Characters of the setup command's output a failure keeps: the tail, where the error usually is. */
export const SETUP_OUTPUT_LIMIT = 4000;

/** How long to read output after the shell exited. */
const DRAIN_MS = 200;

/** The worktree's setup command (`npm ci`) failed or timed out: the step cannot start there. */
export class WorkspaceSetupError extends OrcaError {
  override readonly name = 'WorkspaceSetupError';
}

export interface SetupRun {
  command: string;
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Runs the setup command with `sh -c` in `cwd`. Rejects with WorkspaceSetupError (with the output's
 * tail) when it fails or outlives `timeoutMs`, and with `signal.reason` when aborted; either way
 * after killing its whole process group.
 */
export function runSetup({ command, cwd, timeoutMs, env, signal }: SetupRun): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const started = performance.now();
    // detached: the shell leads a process group, so a timeout stops what it started too.
    const child = spawn('sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let output = '';
    const keep = (chunk: string) => {
      output += chunk;
      if (output.length > 2 * SETUP_OUTPUT_LIMIT) output = output.slice(-SETUP_OUTPUT_LIMIT);
    };
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);

    let stoppedBy: 'timeout' | 'abort' | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      stoppedBy = why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(stop, Math.min(timeoutMs, 2 ** 31 - 1), 'timeout');
    const onAbort = () => stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    /** True the first time only. */
    const done = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };

    const fail = (how: string) => {
      const tail = output.trimEnd().slice(-SETUP_OUTPUT_LIMIT);
      const what = `The worktree setup command ${JSON.stringify(command)} ${how}`;
      reject(new WorkspaceSetupError(tail ? `${what}:\n${tail}` : `${what}, with no output.`));
    };
    child.once('error', (error) => {
      if (done()) fail(`could not start in ${cwd}: ${error.message}`);
    });
    child.once('exit', (code, killedBy) => {
      const finish = () => {
        if (!done()) return;
        child.stdout.destroy();
        child.stderr.destroy();
        const after = `${Number(((performance.now() - started) / 1000).toFixed(1))} s`;
        if (stoppedBy === 'abort') return reject(signal!.reason);
        if (stoppedBy === 'timeout') return fail(`timed out after ${after}`);
        if (code === 0) return resolve();
        fail(code === null ? `was killed by ${killedBy} after ${after}` : `failed (exit ${code}) after ${after}`);
      };
      // Read the output to its end, but not for long: a process left in the background may hold the pipes open.
      child.once('close', finish);
      setTimeout(finish, DRAIN_MS).unref();
    });
  });
}
