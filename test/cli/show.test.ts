import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalPlan, budgetPlan, failedStepPlan, mergePlan, runCli, runningPlan, s1Diff, tempProject, twoStepPlan, type Project } from './fixtures.js';
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
    expect(stdout).toContain(`  now      waiting for a decision on a failed step: orca decide ${planId} retry | replan | stop`);
    expect(stdout).toContain('Steps (1/2 completed)');
    expect(stdout).toMatch(/ {2}s1 {2}\[coder\] {2}completed, 1 attempt\(s\)(, took [\d.]+ m?s)?\n {6}write hello\.ts\n {6}files: hello\.ts\n {6}session: ses_s1\n/);
    expect(stdout).toContain('      summary: wrote hello.ts\n      artifacts: hello.ts\n      finding: no router needed\n');
    expect(stdout).toMatch(/ {2}s2 {2}\[tester\] {2}awaiting_decision, 2 attempt\(s\)(, took [\d.]+ m?s)?, after s1\n/);
    expect(stdout).toContain(
      '      failed attempt 1 (the specialist reported failure): test 1 is red (guidance: try fix 1)\n      failed attempt 2 (the specialist reported failure): test 2 is red\n',
    );
    // Each turn of the fixtures costs one test turn of one model call: s1 ran once.
    expect(stdout).toContain('      usage: 1 Orca turn, 1 model call, 110 tokens, $0.001 (in 100 · out 10 · reasoning 0 · cache read 0 · cache write 0)\n        specialist 1 Orca turn, 1 model call, 110 tokens, $0.001\n');
    expect(stdout).toContain('Assumptions\n  - node 20\n');
    expect(stdout).toContain('Risks\n  - flaky snapshot\n');
    expect(stdout).toContain('Verification\n  - npm test passes\n');
    expect(stdout).toContain('  2026-01-01 00:00:00Z  approval: Approve via command — "looks good"\n');
    expect(stdout).toContain('  2026-01-01 00:00:00Z  deviation (step s2): Retry via command — "try fix 1"\n');
  });

  it("should show a step's real diff and, at the merge gate, its conflicts, its worktree and how to answer", async () => {
    const host = project.host({ policy: { workspace: 'worktree' } });
    const planId = mergePlan(host);
    await host.dispose();
    const { code, stdout } = await runCli(['show', planId, '--dir', project.dir]);
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(code).toBe(0);
    expect(stdout).toContain(`  now      waiting for a decision on a step's changes that did not apply: orca decide ${planId} ontop | resolved | stop [--message "…"]`);
    expect(stdout).toContain(
      '      changed: 3 files +15 −4, 2 not declared\n' +
        '        hello.ts +12 −4\n' +
        '        notes.md +3 −0 (added, not declared)\n' +
        '        logo.png binary (added, not declared)\n' +
        '        patch: /plans/s1.patch\n' +
        '      did not apply to your working tree: conflicts in 1 file(s)\n' +
        '        hello.ts\n' +
        '          <<<<<<< your tree\n          export const hi = 1;\n          =======\n          export const hi = 2;\n          >>>>>>> step s1\n' +
        '      its worktree (take its changes from here by hand, then resolved): /wt/s1\n',
    );
    expect(stdout).not.toContain('shared tree');
    // The history says it in words: the clash, then (below) the decision taken at the gate.
    expect(stdout).toContain("step s1: attempt 1's changes did not apply (conflicts in hello.ts)");
    const { entryText } = await import('../../src/cli/history.js');
    const decided = { at: 't', kind: 'event' as const, source: 'command', event: { type: 'merge.resolved', stepId: 's1', text: 'took both' } };
    expect(entryText(decided as never)).toBe('Resolved by hand at the merge gate (step s1) by slash command: "took both"');
  });

  it('should say that a diff measured in the shared tree may hold the changes of steps beside it', async () => {
    const host = project.host({ policy: { workspace: 'worktree' } });
    const planId = mergePlan(host);
    await host.dispose();
    const file = JSON.parse(readFileSync(project.store.pathOf(planId), 'utf8'));
    file.steps[0].diff = { ...s1Diff, where: 'shared' };
    writeFileSync(project.store.pathOf(planId), JSON.stringify(file));
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain('        logo.png binary (added, not declared)\n        (shared tree: may include changes of steps running beside it)\n        patch: /plans/s1.patch\n');
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
    expect(history).toMatch(/Z {2}plan created from "say hello"\n/);
    expect(history).toMatch(/Z {2}plan → drafting\.opening_session\n/);
    expect(history).toMatch(/Z {2}the planner's session opened: ses_planner\n/);
    expect(history).toMatch(/Z {2}the planner proposed a plan of 2 step\(s\)\n/);
    expect(history).toMatch(/Z {2}plan → pending_approval\n/);
    expect(history).toMatch(/Z {2}Approve at the approval gate by slash command: "looks good"\n/);
    expect(history).toMatch(/Z {2}step s1 completed: "wrote hello\.ts"\n/);
    expect(history).toMatch(/Z {2}step s2 → awaiting_decision\n/);
    expect(history).toMatch(/Z {2}step s2 failed \(attempt 1\): "test 1 is red"\n/);
    expect(history).not.toContain('xstate.');
    expect(history).not.toContain("chart ended"); // s1's report and final state say it (notices/journal-words.ts isNoise)
  });

  it("should show each turn's cost once, naming the role when it is not the agent's own", async () => {
    const { entryText, historyLines } = await import('../../src/cli/history.js');
    const usage = { turns: 1, model_calls: 3, input: 100, output: 10, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0.001 };
    const at = '2026-01-02T00:00:00.000Z';
    expect(entryText({ at, kind: 'turn', role: 'planner', agent: 'planner', session_id: 'ses_p', correction: false, usage })).toMatch(/^planner turn: 1 Orca turn, 3 model calls, 110 tokens/);
    expect(entryText({ at, kind: 'turn', role: 'specialist', agent: 'coder', step_id: 's1', session_id: 'ses_c', correction: true, usage })).toMatch(
      /^specialist \(coder\) turn, a correction, for step s1: 1 Orca turn, 3 model calls, 110 tokens/,
    );
    const host = project.host();
    const planId = approvalPlan(host);
    await host.dispose();
    const { appendJournal } = await import('../../src/persistence/journal.js');
    appendJournal(project.store.journalPathOf(planId), [{ at, kind: 'event', source: 'child', event: { type: 'usage.recorded', stepId: 's1', usage } }]);
    expect(historyLines(project.store.journalPathOf(planId)).join('\n')).not.toContain('usage');
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
    expect(stdout).toContain(`  2026-01-02 00:00:00Z  after restart: coder session ses_x (${planId}:s1:1): adopted the finished reply — idle\n`);
    expect(stdout).toContain('  now      waiting for approval: orca decide');
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
      '  2026-01-02 00:00:00Z  coder (deep/thinker) switched to the text protocol: structured output refused in session ses_x — APIError: Thinking mode does not support this tool_choice\n',
    );
  });

  it('should show the dispatch cap a plan waits at, with how to answer it', async () => {
    const host = project.host({ policy: { max_dispatches: 1 } });
    const planId = budgetPlan(host);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain('  status   in_progress (state in_progress.budget_exhausted)\n');
    expect(stdout).toContain(`  now      waiting for a decision at the budget gate: 1 of 1 dispatches used; orca decide ${planId} continue | stop [--message "…"]\n`);
  });

  it('should say whether the plan is running (a process holds it) or paused (nothing runs it), and how to resume it', async () => {
    const host = project.host();
    const planId = runningPlan(host);
    const now = async () => (await runCli(['show', planId, '--dir', project.dir])).stdout.split('\n').find((l) => l.startsWith('  now '));
    expect(await now()).toBe('  now      running (an OpenCode server holds it; orca ui or this command shows its progress)');
    await host.dispose();
    expect(await now()).toBe(`  now      paused: nothing runs it until it is resumed. Ask Orca in OpenCode to continue plan ${planId}; it goes on from its saved state.`);
  });

  it('should show review rounds and how long each step took, from the journal', async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 1);
    await host.dispose();
    const { appendJournal } = await import('../../src/persistence/journal.js');
    appendJournal(project.store.journalPathOf(planId), [
      { at: '2030-01-01T00:00:00.000Z', kind: 'state', actor: 'step:s9', state: 'opening_session' },
      { at: '2030-01-01T00:01:05.000Z', kind: 'state', actor: 'step:s9', state: 'completed' },
    ]);
    const { stepDurations, duration } = await import('../../src/cli/history.js');
    expect(stepDurations(project.store.journalPathOf(planId)).get('s9')).toBe(65_000);
    expect([duration(850), duration(4_240), duration(65_000), duration(7_500_000)]).toEqual(['850 ms', '4.2 s', '1 min 5 s', '2 h 5 min']);
  });

  it("should show why a step's breaker stopped automatic retrying", async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 3);
    await host.dispose();
    const { stdout } = await runCli(['show', planId, '--dir', project.dir]);
    expect(stdout).toContain(
      '      failed attempt 3 (the specialist reported failure): test 3 is red\n      circuit breaker: the same error 3 times in a row on step s2; automatic retrying stopped, a human decides\n',
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
