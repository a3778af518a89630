import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandError, parseCommandArguments, registerGateCommands, runGateCommand, type GateCommandDeps } from '../../src/hitl/commands.js';
import { GATE_COMMANDS } from '../../src/decisions/gate-commands.js';
import { planFollowers } from '../../src/notices/plan-notes.js';
import { approvalPlan, budgetPlan, failedStepPlan, mergePlan, tempProject, type Project } from '../cli/fixtures.js';
import { twoInterruptedPlan } from '../support/parallel-plans.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

/** The parts of Orca the commands use: the host, the plans a tool call follows, the session notes and the log. */
function orcaWith(options: Parameters<Project['host']>[0] = {}) {
  const host = project.host(options);
  const logs: string[] = [];
  const notes: Array<[string, string]> = [];
  const orca: GateCommandDeps = {
    host,
    log: (_level: string, message: string) => void logs.push(message),
    turnFollowers: planFollowers(),
    notes: { post: (sessionId: string, text: string) => void notes.push([sessionId, text]) },
  };
  return { orca, host, logs, notes };
}
const capped = (max_dispatches: number) => ({ policy: { max_dispatches } });

describe('slash commands at the dispatch cap', () => {
  it('should continue the plan waiting at its dispatch cap, found without a plan_id', () => {
    const { orca, host } = orcaWith(capped(1));
    const planId = budgetPlan(host);
    expect(runGateCommand(orca, 'orca-continue', 'one more round', 'ses_any')).toBe(
      `Orca: Continue at the dispatch cap (1 of 1) recorded for plan ${planId} with "one more round". It runs now; orca plans and orca show follow it.`,
    );
    const c = host.open(planId).getSnapshot().context;
    expect(c.decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Continue', channel: 'command', text: 'one more round' });
    expect([c.dispatches, c.dispatch_cap]).toEqual([2, 2]);
  });

  it('should stop at the dispatch cap with /orca-stop', () => {
    const { orca, host } = orcaWith(capped(1));
    const planId = budgetPlan(host);
    expect(runGateCommand(orca, 'orca-stop', planId, 'ses_any')).toMatch(
      stoppedNote(`Orca: Stop at the dispatch cap (1 of 1) recorded for plan ${planId}. Now: plan ${planId} stopped`, planId, ['✓ s1 (coder) done', '· s2 (tester) not run'], '$0.002'),
    );
    const s = host.open(planId).getSnapshot();
    expect([s.value, s.context.outcome, s.context.decisions.at(-1)?.gate]).toEqual(['failed', 'stopped', 'budget']);
  });

  it('should stop at a failed step with /orca-stop, and at the dispatch cap when the plan waits at both', () => {
    const one = orcaWith();
    const failed = failedStepPlan(one.host, 1);
    expect(runGateCommand(one.orca, 'orca-stop', failed, 'ses_any')).toMatch(
      stoppedNote(`Orca: Stop for step s2 recorded for plan ${failed}. Now: plan ${failed} stopped`, failed, ['✓ s1 (coder) done', '✗ s2 (tester) stopped · test 1 is red'], '$0.003'),
    );
    expect(one.host.open(failed).getSnapshot().value).toBe('failed');

    const both = orcaWith(capped(2));
    const planId = failedStepPlan(both.host, 1);
    expect(runGateCommand(both.orca, 'orca-stop', planId, 'ses_any')).toMatch(/^Orca: Stop at the dispatch cap \(2 of 2\) recorded/);
    expect(both.host.open(planId).getSnapshot().context.decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Stop' });
  });

  it('should continue a plan paused at its token budget, raising the limit by budget.max_tokens above what was spent', () => {
    // One test turn is 110 tokens: the planner's and s1's cross 150.
    const { orca, host } = orcaWith({ policy: { max_tokens: 150 } });
    const planId = budgetPlan(host);
    expect(runGateCommand(orca, 'orca-continue', planId, 'ses_any')).toBe(`Orca: Continue at the budget gate (220 of 150 tokens) recorded for plan ${planId}. It runs now; orca plans and orca show follow it.`);
    const s = host.open(planId).getSnapshot();
    expect([s.context.token_cap, s.context.dispatch_cap, s.context.steps[1]!.status]).toEqual([370, 100, 'running']);
  });

  it('should stop a plan paused at its cost budget with /orca-stop, before any failed step', () => {
    const { orca, host } = orcaWith({ policy: { max_cost: 0.002 } });
    const planId = budgetPlan(host);
    expect(runGateCommand(orca, 'orca-stop', `${planId} over budget`, 'ses_any')).toMatch(
      stoppedNote(`Orca: Stop at the budget gate ($0.002 of $0.002) recorded for plan ${planId} with "over budget". Now: plan ${planId} stopped`, planId, ['✓ s1 (coder) done', '· s2 (tester) not run'], '$0.002'),
    );
    expect(host.open(planId).getSnapshot().value).toBe('failed');
  });

  it('should say clearly when no plan waits at a dispatch cap', () => {
    const { orca, host } = orcaWith();
    expect(() => runGateCommand(orca, 'orca-continue', '', 'ses_any')).toThrow(new CommandError('No plan is waiting for a decision at the budget gate.'));
    expect(() => runGateCommand(orca, 'orca-stop', '', 'ses_any')).toThrow(
      "No plan is waiting for a decision at the budget gate, a decision on a verification that failed, a decision on an interrupted step, a decision on a step's changes that did not apply or a decision on a failed step.",
    );
    const planId = approvalPlan(host);
    expect(() => runGateCommand(orca, 'orca-continue', planId, 'ses_any')).toThrow(
      `Plan ${planId} is not waiting for a decision at the budget gate: it waits for approval.`,
    );
  });

  it('should let a human retry at an open breaker', () => {
    const { orca, host } = orcaWith();
    const planId = failedStepPlan(host, 3);
    expect(host.open(planId).getSnapshot().context.steps[1]!.breaker).toMatch(/^circuit breaker/);
    expect(runGateCommand(orca, 'orca-retry', `${planId} mock the clock`, 'ses_any')).toBe(`Orca: Retry for step s2 recorded for plan ${planId} with "mock the clock". It runs now; orca plans and orca show follow it.`);
    expect(host.open(planId).getSnapshot().context.steps[1]!.status).toBe('running');
  });

  it('should install /orca-continue beside the other gate commands, each saying what it answers', () => {
    const cfg: { command?: Record<string, any> } = {};
    registerGateCommands(cfg);
    expect(Object.keys(cfg.command!)).toEqual(Object.keys(GATE_COMMANDS));
    expect(cfg.command!['orca-continue'].description).toBe(
      'Orca: Continue the plan paused at its budget gate (dispatch cap, budget.max_cost, budget.max_tokens), raising the limit reached by as much again: /orca-continue [plan_id] [note]',
    );
    expect(cfg.command!['orca-stop'].description).toMatch(/failed or interrupted step, at a step whose changes did not apply, at its budget gate or at its failed verification/);
  });
});

describe('control characters in a reply', () => {
  it('should reach the TUI visibly, not raw: plugin.ts sends the reply through forMarkdown', async () => {
    const { forMarkdown } = await import('../../src/notices/session-notes.js');
    const { orca, host } = orcaWith();
    const planId = failedStepPlan(host, 1);
    const reply = runGateCommand(orca, 'orca-retry', `${planId} go \u009b2J\u202Eevil`, 'ses_any');
    expect(reply).toContain('\u202E'); // the decision records the guidance exactly
    expect(forMarkdown(reply)).toContain('go [U+009B]2J[U+202E]evil');
    expect(forMarkdown(reply)).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  });
});

describe('slash commands at the merge gate', () => {
  const worktree = { policy: { workspace: 'worktree' as const } };

  it('should run the step again on top with /orca-ontop, found without a plan_id, the text as guidance', () => {
    const { orca, host } = orcaWith(worktree);
    const planId = mergePlan(host);
    expect(runGateCommand(orca, 'orca-ontop', 'keep both greetings', 'ses_any')).toBe(
      `Orca: Run again on top for step s1 recorded for plan ${planId} with "keep both greetings". It runs now; orca plans and orca show follow it.`,
    );
    const c = host.open(planId).getSnapshot().context;
    expect(c.decisions.at(-1)).toMatchObject({ gate: 'merge', option: 'Run again on top', channel: 'command', step_id: 's1', text: 'keep both greetings' });
    expect(c.steps.find((s) => s.id === 's1')!.status).toBe('running');
  });

  it('should mark the step done with /orca-resolved, and stop the plan with /orca-stop', () => {
    const { orca, host } = orcaWith(worktree);
    const resolved = mergePlan(host);
    expect(runGateCommand(orca, 'orca-resolved', resolved, 'ses_any')).toMatch(new RegExp(`^Orca: Resolved by hand for step s1 recorded for plan ${resolved}\\.`));
    expect(host.open(resolved).getSnapshot().context.steps.find((s) => s.id === 's1')!.status).toBe('completed');

    const stopped = mergePlan(host);
    expect(runGateCommand(orca, 'orca-stop', stopped, 'ses_any')).toMatch(new RegExp(`^Orca: Stop for step s1 recorded for plan ${stopped}\\.`));
    const s = host.open(stopped).getSnapshot();
    expect([s.context.outcome, s.context.decisions.at(-1)?.gate]).toEqual(['stopped', 'merge']);
  });

  it('should say which plans wait at the merge gate when none does, and install both commands', () => {
    const { orca } = orcaWith(worktree);
    expect(() => runGateCommand(orca, 'orca-ontop', '', 'ses_any')).toThrow(new CommandError("No plan is waiting for a decision on a step's changes that did not apply."));
    const cfg: { command?: Record<string, { description: string }> } = {};
    registerGateCommands(cfg as never);
    expect(cfg.command!['orca-ontop']!.description).toMatch(/^Orca: Run again, on top of your working tree as it is now/);
    expect(cfg.command!['orca-resolved']!.description).toMatch(/^Orca: Mark done the step whose changes did not apply/);
    expect(GATE_COMMANDS['orca-stop'].gates).toContain('merge');
  });
});


describe('slash commands with several steps at one kind of gate', () => {
  it('should answer the step named with --step, the first step waiting without it, and say which', () => {
    const { orca, host } = orcaWith();
    const planId = twoInterruptedPlan(host);
    const reply = runGateCommand(orca, 'orca-rerun', `${planId} --step b the tests were half written`, 'ses_any');
    expect(reply).toMatch(new RegExp(`^Orca: Re-run for step b recorded for plan ${planId} with "the tests were half written"\\. Now: plan ${planId} waits for a decision on an interrupted step: step a \\(coder\\) was interrupted`));
    const steps = () => host.open(planId).getSnapshot().context.steps.map((s) => `${s.id}:${s.status}`);
    expect(steps()).toEqual(['a:awaiting_resume', 'b:running']);
    // Without --step: the first step still waiting, named in the reply.
    expect(runGateCommand(orca, 'orca-done', 'a was finished', 'ses_any')).toMatch(new RegExp(`^Orca: Mark done for step a recorded for plan ${planId} with "a was finished"\\.`));
    expect(host.open(planId).getSnapshot().context.decisions.filter((d) => d.gate === 'resume').map((d) => `${d.option}:${d.step_id}`)).toEqual(['Re-run:b', 'Mark done:a']);
  });

  it('should refuse a step that does not wait, --step without an id, and --step where no step is asked about', () => {
    const { orca, host } = orcaWith();
    const planId = twoInterruptedPlan(host);
    expect(() => runGateCommand(orca, 'orca-rerun', `${planId} --step c`, 'ses_any')).toThrow(
      new CommandError(`Step "c" of plan ${planId} is not waiting for a decision (steps waiting: a, b).`),
    );
    expect(() => runGateCommand(orca, 'orca-rerun', `${planId} --step`, 'ses_any')).toThrow(new CommandError('--step needs the id of the step whose gate to answer, e.g. --step s2.'));
    expect(() => runGateCommand(orca, 'orca-approve', `${planId} --step a`, 'ses_any')).toThrow(
      new CommandError('--step applies to /orca-retry, /orca-replan, /orca-rerun, /orca-done, /orca-ontop, /orca-resolved, /orca-stop only.'),
    );
    expect(host.open(planId).getSnapshot().context.decisions.filter((d) => d.gate === 'resume')).toEqual([]);
  });

  it('should read [plan_id] [--step id] [text] in that order, and leave a text that only mentions --step alone', () => {
    const planId = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    expect(parseCommandArguments(`${planId} --step s2 keep   it`)).toEqual({ planId, stepId: 's2', text: 'keep   it' });
    expect(parseCommandArguments('--step s2')).toEqual({ stepId: 's2' });
    expect(parseCommandArguments(`  ${planId}  `)).toEqual({ planId });
    expect(parseCommandArguments('retry with --step s2 later')).toEqual({ text: 'retry with --step s2 later' });
  });
});

/** A stopped plan's outcome note after a decision's words (notices/outcome-note.ts): its steps, no verification, what it cost, how long (any). */
function stoppedNote(decided: string, planId: string, steps: string[], cost: string): RegExp {
  const lines = [
    `${decided}, 1 of 2 steps done: Add a greeting to the home page`,
    ...steps,
    'Verification: not run (the plan stopped before it).',
    `Total: ${cost} · <time>`,
    'No change was measured: no step changed files, or the project is not in a git repository.',
    `Each step's summary and history: orca show ${planId}`,
  ];
  return new RegExp(`^${lines.join('\n').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('<time>', '.+')}$`);
}
