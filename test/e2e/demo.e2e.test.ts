// The README's first command: `npm run demo` (built plugin + real opencode + scripted model).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/opencode-sandbox.js';

describe('npm run demo', () => {
  it('should run a full plan through a human approval and the reviewer gate, and exit 0', () => {
    // npm test has just built dist/, so run the demo script itself rather than npm run demo's rebuild.
    const run = spawnSync(process.execPath, [join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(projectRoot, 'scripts', 'demo.ts')], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('options: Approve / Request Changes / Reject');
    expect(run.stdout).toContain('Decision at the approval gate: Approve (channel: question)');
    // The reviewer failed impl once; the fixer's result is what the dependent step was told.
    expect(run.stdout).toMatch(/impl: completed after 1 attempt\(s\), 2 review round\(s\), took [\d.]+ m?s — greet\(name\) now returns "Hello, stranger!"/);
    expect(run.stdout).toContain('Quality gate (journal): impl: review round 1 failed, the coder fixed it; review round 2 passed (2 reviewer turn(s))');
    expect(run.stdout).toMatch(/test: completed after 1 attempt\(s\), took [\d.]+ m?s — .*it was told: greet\(name\) now returns "Hello, stranger!"/);
    expect(run.stdout).toContain('orca_ask_planner returned: completed');
    // The path and the counts come from the plan's journal, not from the demo's script.
    expect(run.stdout).toContain('Path through the plan statechart (journal): drafting.opening_session → drafting.consulting → pending_approval → in_progress.running → completed');
    expect(run.stdout).toContain('Model turns Orca started (journal): 3 specialist, 2 reviewer, 1 fixer');
  }, 120_000);
});
