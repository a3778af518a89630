import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalPlan, budgetPlan, failedStepPlan, runCli, runningPlan, tempProject, type Project } from './fixtures.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

describe('orca plans', () => {
  it('should list the plans newest first with status, what each is doing, goal, progress and update time', async () => {
    const host = project.host();
    const older = failedStepPlan(host, 1);
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later ULID
    const newer = approvalPlan(host, 'second');
    await host.dispose();
    const { code, stdout, stderr } = await runCli(['plans', '--dir', project.dir]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PLAN\s+STATUS\s+NOW\s+GOAL\s+DONE\s+TOKENS\s+COST\s+UPDATED$/);
    // One planner turn (110 tokens, $0.001 in the fixtures); the older plan: planner, s1 and s2's turns.
    expect(lines[1]).toMatch(new RegExp(`^${newer}\\s+pending_approval\\s+waiting \\(approval\\)\\s+Add a greeting to the home page\\s+0/2\\s+110\\s+\\$0\\.001\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`));
    expect(lines[2]).toMatch(new RegExp(`^${older}\\s+in_progress\\s+waiting \\(deviation\\)\\s+Add a greeting to the home page\\s+1/2\\s+330\\s+\\$0\\.003\\s`));
    expect(lines).toHaveLength(3);
  });

  it('should list a plan paused at its dispatch cap as waiting for budget', async () => {
    const host = project.host({ policy: { max_dispatches: 1 } });
    const planId = budgetPlan(host);
    await host.dispose();
    const { stdout } = await runCli(['plans', '--dir', project.dir]);
    expect(stdout).toMatch(new RegExp(`^${planId}\\s+in_progress\\s+waiting \\(budget\\)\\s+Add a greeting to the home page\\s+1/2\\s`, 'm'));
  });

  it('should tell a running plan (a process holds it) from a paused one (nothing runs it since its process let go)', async () => {
    const host = project.host();
    const planId = runningPlan(host);
    const row = async () => (await runCli(['plans', '--dir', project.dir])).stdout.split('\n').find((l) => l.startsWith(planId));
    expect(await row()).toMatch(new RegExp(`^${planId}\\s+in_progress\\s+running\\s+`));
    await host.dispose(); // as Esc or a stopped server leaves it
    expect(await row()).toMatch(new RegExp(`^${planId}\\s+in_progress\\s+paused\\s+`));
  });

  it('should truncate long goals to one short line', async () => {
    const host = project.host();
    const planId = host.create({ message: `build ${'a very long goal '.repeat(10)}\nwith a second line` }).getSnapshot().context.plan_id;
    host.flush(planId);
    await host.dispose();
    const { stdout } = await runCli(['plans', '--dir', project.dir]);
    const row = stdout.split('\n').find((l) => l.startsWith(planId))!;
    expect(row).toMatch(/build a very long goal a very long goal .*…\s+0\/0\s/);
    expect(row).not.toContain('second line');
  });

  it('should quarantine a bad plan file as the plugin does, say so on stderr and list the others', async () => {
    const host = project.host();
    const good = approvalPlan(host);
    await host.dispose();
    const bad = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    writeFileSync(join(project.store.dir, `${bad}.json`), '{ not json');
    writeFileSync(join(project.store.dir, 'notes.json'), '{}');
    const { code, stdout, stderr } = await runCli(['plans', '--dir', project.dir]);
    expect(code).toBe(0);
    expect(stdout).toContain(good);
    expect(stdout).not.toContain(bad);
    expect(stderr).toMatch(new RegExp(`^orca: quarantined: Plan ${bad} could not be loaded \\(not valid JSON`, 'm'));
    expect(stderr).toMatch(/^orca: quarantined: notes\.json is not named \{plan_id\}\.json; it was moved to .*\.quarantine/m);
    expect(existsSync(join(project.store.dir, `${bad}.json`))).toBe(false);
    expect(readdirSync(project.store.quarantineDir).filter((n) => n.endsWith('.reason.txt'))).toHaveLength(2);
  });

  it('should say when there are no plans', async () => {
    const { code, stdout } = await runCli(['plans', '--dir', project.dir]);
    expect(code).toBe(0);
    expect(stdout).toBe(`No plans in ${project.store.dir}.\n`);
  });
});
