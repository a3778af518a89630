// The README's first command: `npm run demo` (built plugin + real opencode + scripted model).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/opencode-sandbox.js';

describe('npm run demo', () => {
  it('should run a full plan through a human approval and exit 0', () => {
    // npm test has just built dist/, so run the demo script itself rather than npm run demo's rebuild.
    const run = spawnSync(process.execPath, [join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(projectRoot, 'scripts', 'demo.ts')], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('options: Approve / Request Changes / Reject');
    expect(run.stdout).toContain('Decision at the approval gate: Approve (channel: question)');
    expect(run.stdout).toMatch(/test: completed after 1 attempt\(s\) — .*it was told: greet\(name\) returns/);
    expect(run.stdout).toContain('orca_ask_planner returned: completed');
  }, 120_000);
});
