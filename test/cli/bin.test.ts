import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalPlan, tempProject, twoStepPlan, type Project } from './fixtures.js';
import { ONE_TURN } from '../support/turns.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'dist', 'cli', 'main.js');

/** The built CLI must be built from the current src/cli (`npm test` builds first). */
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`Expected ${bin}; build first with \`npm run build\` (\`npm test\` does).`);
  const stale = readdirSync(join(root, 'src', 'cli')).filter((name) => {
    const out = join(root, 'dist', 'cli', name.replace(/\.ts$/, '.js'));
    return !existsSync(out) || statSync(out).mtimeMs < statSync(join(root, 'src', 'cli', name)).mtimeMs;
  });
  if (stale.length > 0) throw new Error(`Expected dist/cli to be built from the current src/cli (run \`npm run build\`); stale: ${stale.join(', ')}`);
});

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const orca = (...argv: string[]) => spawnSync(process.execPath, [bin, ...argv], { cwd: project.dir, encoding: 'utf8', timeout: 20_000 });

describe('the built orca bin', () => {
  it('should be the package\'s only bin, start with a shebang, and print the usage', () => {
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin).toEqual({ orca: './dist/cli/main.js' });
    expect(readFileSync(bin, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    const { status, stdout } = orca('--help');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^orca: plans of the opencode-orca-statecharts plugin/);
  });

  it('should work on the current directory and exit with the documented codes', async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    await host.dispose();
    const plans = orca('plans');
    expect([plans.status, plans.stderr]).toEqual([0, '']);
    expect(plans.stdout).toContain(planId);
    expect(orca('decide', '../x', 'approve')).toMatchObject({ status: 2, stdout: '', stderr: expect.stringMatching(/^orca: Invalid plan_id "\.\.\/x"[^\n]*\n$/) });
    expect(orca('decide', planId, 'stop')).toMatchObject({ status: 1, stderr: expect.stringMatching(/^orca: Plan .* is not waiting for .*a decision on a failed step[^\n]*\n$/) });
    const approve = orca('decide', planId, 'approve');
    expect(approve.status).toBe(0);
    expect(approve.stdout).toContain('queued: applies when the plan is resumed');
    // The plan was never resumed, so its queued decision is not in the journal yet: the replay ends where the file is.
    const inspect = orca('inspect', planId, '--once');
    expect([inspect.status, inspect.stderr]).toEqual([0, '']);
    expect(inspect.stdout).toContain('The replay ends in the saved state pending_approval.');
  });

  it('should have its decision applied by another process that holds the plan and polls its inbox', async () => {
    // Stands in for an OpenCode server running the plan: a PlanHost in its own process, as the plugin wires it.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { PlanHost } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'host', 'plan-host.js')).href)};
         import { PlanStore } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'persistence', 'plan-store.js')).href)};
         import { idlePlanPorts } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'machines', 'ports.js')).href)};
         const host = new PlanHost({ store: PlanStore.forProject(process.cwd()), ports: idlePlanPorts });
         const id = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
         host.send(id, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 's' } });
         host.send(id, { type: 'xstate.done.actor.consultPlanner', output: ${JSON.stringify({ value: twoStepPlan, usage: ONE_TURN })} });
         host.flush(id);
         host.pollInboxes();
         console.log(id);
         setInterval(() => {}, 1000);`,
      ],
      { cwd: project.dir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const planId = await new Promise<string>((resolve) => holder.stdout!.once('data', (d) => resolve(String(d).trim())));
      const started = Date.now();
      const decided = orca('decide', planId, 'approve', '-m', 'from another terminal');
      expect(decided.status).toBe(0);
      expect(decided.stdout).toContain('applied by the running server\n');
      expect(Date.now() - started).toBeLessThan(5_000);
      const plan = JSON.parse(readFileSync(join(project.store.dir, `${planId}.json`), 'utf8'));
      expect(plan.status).toBe('in_progress');
      expect(plan.decisions).toMatchObject([{ gate: 'approval', option: 'Approve', channel: 'cli', text: 'from another terminal' }]);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
