import { afterEach, describe, expect, it } from 'vitest';
import { runSetup, SETUP_OUTPUT_LIMIT, WorkspaceSetupError } from '../../src/workspace/setup.js';
import { read, tempDirs } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('runSetup', () => {
  it('should run the command with sh in the folder, with the extra environment', async () => {
    const cwd = dirs.make();
    await runSetup({ command: 'echo "$ORCA_STEP_ID" > out.txt', cwd, timeoutMs: 5_000, env: { ORCA_STEP_ID: 'code' } });
    expect(read(cwd, 'out.txt')).toBe('code\n');
  });

  it('should keep only the tail of a long failing output', async () => {
    const failure = await runSetup({ command: 'seq 1 5000; exit 1', cwd: dirs.make(), timeoutMs: 5_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkspaceSetupError);
    const message = (failure as Error).message;
    expect(message).toMatch(/failed \(exit 1\) after [\d.]+ s:\n/);
    expect(message.endsWith('4999\n5000')).toBe(true);
    expect(message.length).toBeLessThan(SETUP_OUTPUT_LIMIT + 200);
  });

  it('should stop a command that outlives its time, and what it started', async () => {
    const started = Date.now();
    await expect(runSetup({ command: 'sleep 30 & sleep 30', cwd: dirs.make(), timeoutMs: 200 })).rejects.toThrow(/"sleep 30 & sleep 30" timed out after [\d.]+ s, with no output\./);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('should reject with the abort reason', async () => {
    const controller = new AbortController();
    const run = runSetup({ command: 'sleep 30', cwd: dirs.make(), timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('step stopped')), 50);
    await expect(run).rejects.toThrow('step stopped');
  });
});
