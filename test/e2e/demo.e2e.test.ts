// The README's first command: `npm run demo` (built plugin + real opencode + scripted model).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/opencode-sandbox.js';

// npm test has just built dist/, so run the demo script itself rather than npm run demo's rebuild.
const demo = (args: string[], timeout: number) =>
  spawnSync(process.execPath, [join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(projectRoot, 'scripts', 'demo.ts'), ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout,
  });

describe('npm run demo', () => {
  it('should run a full plan through a human approval and the reviewer gate, and with --keep leave a project that orca show opens as printed', () => {
    const run = demo(['--keep'], 150_000); // beside a full suite's OpenCode servers a run took over 60 s
    const kept = /^Kept the demo project: (.+)$/m.exec(run.stdout)?.[1];
    try {
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

      // --keep: the project outlives the demo, and its last lines are two commands to run from here.
      expect(kept, run.stdout).toBeDefined();
      expect(existsSync(join(kept!, '.opencode', 'plans'))).toBe(true);
      const planId = /^Plan file: .*\/(plan_\w+)\.json /m.exec(run.stdout)![1];
      const show = /^ {2}(node dist\/cli\/main\.js show .+)$/m.exec(run.stdout)?.[1];
      expect(show).toBe(`node dist/cli/main.js show ${planId} --dir ${kept}`);
      expect(run.stdout).toContain(`\n  node dist/cli/main.js ui --dir ${kept}\n`);
      const shown = spawnSync(show!, { cwd: projectRoot, encoding: 'utf8', shell: true, timeout: 30_000 });
      expect(shown.status, `${shown.stdout}\n${shown.stderr}`).toBe(0);
      expect(shown.stdout).toContain(`Plan ${planId}`);
      expect(shown.stdout).toContain('goal     Add greet(name) with documentation and a test');
      expect(shown.stdout).toMatch(/^ {2}status {3}completed$/m);
      expect(shown.stdout).toContain('Steps (3/3 completed)');
    } finally {
      // The demo made the project in a temp dir of its own (…/orca-e2e-XXXX/project): remove that dir.
      if (kept && dirname(dirname(kept)) === tmpdir() && /orca-e2e-/.test(kept)) rmSync(dirname(kept), { recursive: true, force: true });
    }
  }, 180_000);

  it('should refuse an unknown argument with exit code 2 and say what it takes, before starting anything', () => {
    const run = demo(['--kep'], 30_000);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe("demo: Unknown option '--kep' (the demo takes one option, --keep: npm run demo -- --keep).");
  });
});
