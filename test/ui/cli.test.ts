import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { approvalPlan, runCli, tempProject, type Project } from '../cli/fixtures.js';
import { request } from './http-client.js';

const bin = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

describe('orca ui', () => {
  it('should print the URL of the viewer on 127.0.0.1, serve the project, and stop cleanly on SIGTERM', async () => {
    if (!existsSync(bin)) throw new Error(`Expected ${bin}; build first with \`npm run build\` (\`npm test\` does).`);
    const host = project.host();
    const planId = approvalPlan(host);
    host.dispose();
    const child = spawn(process.execPath, [bin, 'ui', '--dir', project.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await waitFor(() => /^open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(stdout)?.[1], { timeoutMs: 10_000, description: `the URL on stdout (stderr: ${stderr})` });
      expect(stdout).toMatch(new RegExp(`^Orca plan viewer for ${project.dir}\\n`));
      const page = await request(url);
      expect(page.status).toBe(200);
      const cookie = String(page.headers['set-cookie']).split(';')[0]!;
      const plans = (await request(`${new URL(url).origin}/api/plans`, { headers: { cookie } })).json();
      expect(plans.plans.map((p: { plan_id: string }) => p.plan_id)).toEqual([planId]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });

  it('should refuse a port it cannot listen on, in one line', async () => {
    const { code, stderr } = await runCli(['ui', '--dir', project.dir, '--port', '99999']);
    expect([code, stderr]).toEqual([2, 'orca: --port must be a port number from 0 to 65535, got "99999".\n']);
  });
});
