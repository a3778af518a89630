import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { idlePlanPorts } from '../../src/machines/ports.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { opencodeBinary, projectRoot } from '../support/opencode-sandbox.js';

const probe = fileURLToPath(new URL('./exit-probe.ts', import.meta.url));

let projectDir: string;
let planId: string;
beforeAll(async () => {
  projectDir = mkdtempSync(join(tmpdir(), 'orca-exit-'));
  const host = new PlanHost({ store: PlanStore.forProject(projectDir), ports: idlePlanPorts });
  planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
  await Promise.resolve();
  await host.dispose();
});
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));

/** Runs the probe; resolves with its output and how long it lived after printing "stopped". */
function runProbe(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; output: string; lingeredMs: number }>((resolve, reject) => {
    const child = spawn(command, [...args, probe, projectDir, planId], { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stoppedAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      output += String(chunk);
      if (!stoppedAt && output.includes('stopped')) stoppedAt = Date.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    // The websocket inspector of @statelyai/inspect would keep a process alive for good: give up after 8 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, lingeredMs: stoppedAt ? Date.now() - stoppedAt : Infinity });
    });
  });
}

describe('after stop()', () => {
  it('should let a Node process exit by itself', async () => {
    const { code, output, lingeredMs } = await runProbe(process.execPath, ['--import', 'tsx']);
    expect(output).toContain('stopped 0');
    expect(code).toBe(0);
    expect(lingeredMs).toBeLessThan(1_000);
  }, 15_000);

  // OpenCode runs the plugin in its embedded Bun; its binary acts as `bun` with BUN_BE_BUN=1.
  it.skipIf(!existsSync(join(projectRoot, 'node_modules', `opencode-${process.platform}-${process.arch}`)))(
    'should let a Bun process (OpenCode’s runtime) exit by itself',
    async () => {
      const { code, output, lingeredMs } = await runProbe(opencodeBinary(), [], { BUN_BE_BUN: '1' });
      expect(output).toContain('stopped 0');
      expect(code).toBe(0);
      expect(lingeredMs).toBeLessThan(1_000);
    },
    15_000,
  );
});
