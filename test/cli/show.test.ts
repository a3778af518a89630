import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalPlan, budgetPlan, failedStepPlan, runCli, tempProject, twoStepPlan, type Project } from './fixtures.js';
import { turn } from '../support/turns.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

describe('orca show', () => {
  it('should show goal, state, steps with outputs and failures, the plan details and decisions', async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 2);
    await host.dispose();
    const { code, stdout, stderr } = await runCli(['show', planId, '--dir', project.dir]);
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Plan ${planId}\n`);
    expect(stdout).toContain('  goal     Add a greeting to the home page\n');
    expect(stdout).toContain('  status   in_progress (state in_progress.running)\n');
    expect(stdout).toContain(`  waiting  for a decision on a failed step: orca decide ${planId} retry | replan | stop`);
    expect(stdout).toContain('Steps (1/2 completed)');
    expect(stdout).toContain('  s1  [coder]  completed, 1 attempt(s)\n      write hello.ts\n      files: hello.ts\n      session: ses_s1\n');
    expect(stdout).toContain('      summary: wrote hello.ts\n      artifacts: hello.ts\n      finding: no router needed\n');
    expect(stdout).toContain('  s2  [tester]  awaiting_decision, 2 attempt(s), after s1\n');
    expect(stdout).toContain('      failed attempt 1: test 1 is red (guidance: try fix 1)\n      failed attempt 2: test 2 is red\n');
    expect(stdout).toContain('Assumptions\n  - node 20\n');
    expect(stdout).toContain('Risks\n  - flaky snapshot\n');
    expect(stdout).toContain('Verification\n  - npm test passes\n');
    expect(stdout).toContain('  2026-01-01 00:00:00Z  approval: Approve via command — "looks good"\n');
    expect(stdout).toContain('  2026-01-01 00:00:00Z  deviation (step s2): Retry via command — "try fix 1"\n');
  });

  it('should show every change of a revised plan against the version before it', async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    host.send(planId, { type: 'approval.request_changes', text: 'add docs', channel: 'command', at: '2026-01-01T00:00:00.000Z' });
    host.send(planId, {
      type: 'xstate.done.actor.revisePlan',
      output: turn({
        ...twoStepPlan,
        steps: [twoStepPlan.steps[0]!, { ...twoStepPlan.steps[1]!, description: 'test hello.ts and its docs' }, { id: 'docs', agent: 'document-writer', description: 'document hello' }],
      }),
    } as never);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain(
      [
        'Changes since version 1 (this is version 2)',
        '  + docs (document-writer): document hello',
        '  ~ s2 description: test hello.ts → test hello.ts and its docs',
      ].join('\n'),
    );
  });

  it('should show the history from the journal: events with their source, states entered', async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 1);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    const history = stdout.slice(stdout.indexOf('History ('));
    expect(history).toMatch(/^History \(\d+ entries\)\n/);
    expect(history).toMatch(/Z {2}event {6}xstate\.init from init\n/);
    expect(history).toMatch(/Z {2}state {6}plan → drafting\.opening_session\n/);
    expect(history).toMatch(/Z {2}state {6}plan → pending_approval\n/);
    expect(history).toMatch(/Z {2}event {6}approval\.approve from command: "looks good"\n/);
    expect(history).toMatch(/Z {2}state {6}step:s2 → awaiting_decision\n/);
    expect(history).toMatch(/Z {2}event {6}step\.failed from child: step s2, attempt 1, "test 1 is red"\n/);
  });

  it('should show reconcile entries of the journal', async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    await host.dispose();
    const { appendJournal } = await import('../../src/persistence/journal.js');
    appendJournal(project.store.journalPathOf(planId), [
      { at: '2026-01-02T00:00:00.000Z', kind: 'reconcile', role: 'coder', session_id: 'ses_x', idempotency_key: `${planId}:s1:1`, decision: 'adopted the finished reply', detail: 'idle' },
    ]);
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain(`  2026-01-02 00:00:00Z  reconcile  coder session ses_x (${planId}:s1:1): adopted the finished reply — idle\n`);
    expect(stdout).toContain('  waiting  for approval: orca decide');
    expect(stdout).toContain('Decisions\n  (none)\n');
  });

  it("should show when an agent's model refused structured output and the plan switched it to text", async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    await host.dispose();
    const { appendJournal } = await import('../../src/persistence/journal.js');
    appendJournal(project.store.journalPathOf(planId), [
      { at: '2026-01-02T00:00:00.000Z', kind: 'protocol', agent: 'coder', model: 'deep/thinker', protocol: 'text', reason: 'APIError: Thinking mode does not support this tool_choice', session_id: 'ses_x' },
    ]);
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain(
      '  2026-01-02 00:00:00Z  protocol   coder (deep/thinker) uses the text protocol from now on: structured output refused in session ses_x — APIError: Thinking mode does not support this tool_choice\n',
    );
  });

  it('should show the dispatch cap a plan waits at, with how to answer it', async () => {
    const host = project.host({ policy: { max_dispatches: 1 } });
    const planId = budgetPlan(host);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain('  status   in_progress (state in_progress.budget_exhausted)\n');
    expect(stdout).toContain(`  waiting  for a decision at the budget gate: 1 of 1 dispatches used; orca decide ${planId} continue | stop [--message "…"]\n`);
  });

  it("should show why a step's breaker stopped automatic retrying", async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 3);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain(
      '      failed attempt 3: test 3 is red\n      circuit breaker: the same error 3 times in a row on step s2; automatic retrying stopped, a human decides\n',
    );
    expect(stdout).toContain(`retry | replan | stop`);
  });

  it.each([
    [['show', '../x'], 2, /^orca: Invalid plan_id "\.\.\/x": expected "plan_" followed by 26 ULID characters .* as listed by orca plans\.\n$/],
    [['show'], 2, /^orca: orca show needs 1 argument\(s\)/],
    [['show', 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9'], 1, /^orca: Plan plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9 does not exist in .*\.opencode\/plans \(orca plans lists the plans\)\.\n$/],
  ])('should refuse %j with one line and exit %i', async (argv, exit, message) => {
    const { code, stdout, stderr } = await runCli([...argv, '--dir', project.dir]);
    expect(code).toBe(exit);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
