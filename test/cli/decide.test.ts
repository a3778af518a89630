import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideCommand } from '../../src/cli/decide.js';
import { inboxDir } from '../../src/persistence/inbox.js';
import { approvalPlan, budgetPlan, failedStepPlan, mergePlan, runCli, tempProject, type Project } from './fixtures.js';
import { twoInterruptedPlan } from '../support/parallel-plans.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const decide = (...argv: string[]) => runCli(['decide', ...argv, '--dir', project.dir]);
const inbox = (planId: string) => {
  const dir = inboxDir(project.store.dir, planId);
  return existsSync(dir) ? readdirSync(dir).map((n) => JSON.parse(readFileSync(`${dir}/${n}`, 'utf8'))) : [];
};
/** A plan in a host that has let go of it, as after the server stopped. */
async function released(make: (host: ReturnType<Project['host']>) => string, maxAttempts?: number, options: Parameters<Project['host']>[0] = {}) {
  const host = project.host({ ...options, ...(maxAttempts ? { maxAttempts } : {}) });
  const planId = make(host);
  await host.dispose();
  return planId;
}

describe('orca decide: refusals', () => {
  it.each([
    [['../x', 'approve'], 2, /^orca: Invalid plan_id "\.\.\/x": expected "plan_"/],
    [['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', 'approve'], 1, /^orca: Plan plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9 does not exist in /],
    [['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9'], 2, /^orca: orca decide needs a decision after the plan_id: one of approve, changes, reject, retry, replan, accept, continue, rerun, done, ontop, resolved, stop\.$/],
    [['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', 'yes'], 2, /^orca: orca decide needs a decision .* \(got "yes"\)\.$/],
    [['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', 'approve', '--step', 's1'], 2, /^orca: --step applies to retry, replan, rerun, done, ontop, resolved and stop only\.$/],
    [['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', 'approve', 'now'], 2, /^orca: orca decide takes at most 2 argument\(s\), got 3/],
  ])('should refuse %j with exit %i and one line', async (argv, exit, message) => {
    const { code, stdout, stderr } = await decide(...argv);
    expect(code).toBe(exit);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(message);
  });

  it('should refuse a decision the plan is not waiting for, and post nothing', async () => {
    const approval = await released(approvalPlan);
    const deviation = await released((h) => failedStepPlan(h, 1));
    const a = await decide(approval, 'retry');
    expect([a.code, a.stderr]).toEqual([1, `orca: Plan ${approval} is not waiting for a decision on a failed step: it waits for approval.\n`]);
    const d = await decide(deviation, 'approve');
    expect([d.code, d.stderr]).toEqual([1, `orca: Plan ${deviation} is not waiting for approval: it waits for a decision on a failed step.\n`]);
    const s = await decide(deviation, 'stop', '--step', 's1');
    expect([s.code, s.stderr]).toEqual([1, `orca: Step "s1" of plan ${deviation} is not waiting for a decision (steps waiting: s2).\n`]);
    expect([...inbox(approval), ...inbox(deviation)]).toEqual([]);
  });

  it.each([[[]], [['--message', '  ']]])('should refuse Request Changes without guidance (%j), like every channel, and post nothing', async (more) => {
    const planId = await released(approvalPlan);
    const { code, stderr } = await decide(planId, 'changes', ...more);
    expect([code, stderr]).toEqual([
      1,
      `orca: Request Changes needs your guidance for the planner: say what to change. Use orca decide ${planId} changes --message "<text>".\n`,
    ]);
    expect(inbox(planId)).toEqual([]);
  });

  it('should refuse Retry once the step has failed max_attempts times, and still take replan', async () => {
    const planId = await released((h) => failedStepPlan(h, 2), 2);
    const retry = await decide(planId, 'retry');
    expect(retry.code).toBe(1);
    expect(retry.stderr).toBe(`orca: Retry is no longer offered for step s2 of plan ${planId} after 2 failed attempts (offered: Replan, Stop). Use replan or stop.\n`);
    expect(inbox(planId)).toEqual([]);
    const replan = await decide(planId, 'replan', '-m', 'split the step');
    expect(replan.code).toBe(0);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'deviation.replan', stepId: 's2', text: 'split the step', channel: 'cli' } }]);
  });

  it('should refuse a second decision while one is queued, saying where it is', async () => {
    const planId = await released(approvalPlan);
    expect((await decide(planId, 'approve')).code).toBe(0);
    const again = await decide(planId, 'reject');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^orca: Plan ${planId} already has a decision waiting to be applied \\(approval\\.approve posted .*\\); to decide differently, delete it from .*${planId}\\.inbox\\.\\n$`));
    expect(inbox(planId)).toHaveLength(1);
  });
});

describe('orca decide: posting', () => {
  it('should queue the same event the slash commands send, and a host resuming the plan applies it', async () => {
    const planId = await released(approvalPlan);
    const { code, stdout, stderr } = await decide(planId, 'changes', '--message', 'use the v2 API');
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toMatch(new RegExp(`^Request Changes of plan ${planId} with "use the v2 API": posted to .*\\.json\\n`));
    expect(stdout).toContain('queued: applies when the plan is resumed (orca_ask_planner with its plan_id)\n');
    const [posted] = inbox(planId);
    expect(posted.event).toEqual({ type: 'approval.request_changes', text: 'use the v2 API', channel: 'cli', at: posted.posted_at });

    const resumed = project.host().open(planId).getSnapshot();
    expect(resumed.value).toBe('changes_requested');
    expect(resumed.context.decisions.at(-1)).toEqual({ gate: 'approval', option: 'Request Changes', channel: 'cli', at: posted.posted_at, text: 'use the v2 API' });
    expect(inbox(planId)).toEqual([]);
  });

  it('should retry a failed step with guidance when the plan is resumed', async () => {
    const planId = await released((h) => failedStepPlan(h, 1));
    expect((await decide(planId, 'retry', '-m', 'mock the clock')).code).toBe(0);
    const s = project.host().open(planId).getSnapshot();
    expect(s.context.steps.find((st) => st.id === 's2')).toMatchObject({ status: 'running', failures: [{ attempt: 1, guidance: 'mock the clock' }] });
    expect(s.context.decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Retry', channel: 'cli', step_id: 's2' });
  });

  it('should wait for a server holding the plan to apply it, and say so', async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    const stopPolling = host.pollInboxes(200);
    try {
      const { code, stdout } = await decide(planId, 'approve', '-m', 'ship it');
      expect(code).toBe(0);
      expect(stdout).toContain('applied by the running server\n');
      expect(host.open(planId).getSnapshot().value).toEqual({ in_progress: 'running' });
      expect(project.store.load(planId).decisions).toMatchObject([{ option: 'Approve', channel: 'cli', text: 'ship it' }]);
    } finally {
      stopPolling();
    }
  });

  it('should leave the decision queued when the process holding the plan does not take it in time', async () => {
    const host = project.host(); // holds the lease, never polls
    const planId = approvalPlan(host);
    let stdout = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: () => {}, env: {}, now: () => new Date() };
    const code = await decideCommand({ io, project: project.dir, args: [planId, 'approve'], options: {} }, 300);
    expect(code).toBe(0);
    expect(stdout).toContain('queued: the process running the plan has not taken it within 0.3 s; it applies when it does, or when the plan is resumed\n');
    host.applyInbox(planId);
    expect(host.open(planId).getSnapshot().value).toEqual({ in_progress: 'running' });
  });
});

describe('orca decide: the dispatch cap and the circuit breaker', () => {
  const capped = (max_dispatches: number) => ({ policy: { max_dispatches } });

  it('should continue a plan paused at its dispatch cap, raising the cap when the plan is resumed', async () => {
    const host = project.host(capped(1));
    const planId = budgetPlan(host);
    await host.dispose();
    expect(project.store.load(planId).waiting_for).toBe('budget');
    const { code, stdout, stderr } = await decide(planId, 'continue', '-m', 'one more');
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toMatch(new RegExp(`^Continue at the dispatch cap \\(1 of 1\\) of plan ${planId} with "one more": posted to `));
    expect(inbox(planId)).toMatchObject([{ event: { type: 'budget.continue', text: 'one more', channel: 'cli' } }]);

    const s = project.host(capped(1)).open(planId).getSnapshot();
    expect(s.context.decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Continue', channel: 'cli', text: 'one more' });
    expect(s.context.steps.find((st) => st.id === 's2')!.status).toBe('running');
    expect([s.context.dispatches, s.context.dispatch_cap]).toEqual([2, 2]);
  });

  it('should stop a plan at its dispatch cap with stop, and refuse continue where there is no cap to raise', async () => {
    const planId = await released((h) => budgetPlan(h), undefined, capped(1));
    expect((await decide(planId, 'stop')).code).toBe(0);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'budget.stop', channel: 'cli' } }]);
    const s = project.host().open(planId).getSnapshot();
    expect([s.value, s.context.outcome]).toEqual(['failed', 'stopped']);

    const approval = await released(approvalPlan);
    const c = await decide(approval, 'continue');
    expect([c.code, c.stderr]).toEqual([1, `orca: Plan ${approval} is not waiting for a decision at the budget gate: it waits for approval.\n`]);
    const st = await decide(approval, 'stop');
    expect(st.stderr).toBe(`orca: Plan ${approval} is not waiting for a decision at the budget gate, a decision on a verification that failed, a decision on an interrupted step, a decision on a step's changes that did not apply or a decision on a failed step: it waits for approval.\n`);
    const named = await decide(approval, 'stop', '--step', 's1');
    expect(named.stderr).toBe(`orca: Plan ${approval} is not waiting for a decision on an interrupted step, a decision on a step's changes that did not apply or a decision on a failed step: it waits for approval.\n`);
    const step = await decide(approval, 'continue', '--step', 's1');
    expect([step.code, step.stderr]).toEqual([2, 'orca: --step applies to retry, replan, rerun, done, ontop, resolved and stop only.\n']);
  });

  it('should answer the dispatch cap first when a failed step waits too, and the step with --step or retry', async () => {
    // Two dispatches: s1 completes, s2 fails, and the cap is reached with s2 waiting.
    const planId = await released((h) => failedStepPlan(h, 1), undefined, capped(2));
    const file = project.store.load(planId);
    expect([file.waiting_for, file.steps.map((s) => s.status)]).toEqual(['budget', ['completed', 'awaiting_decision']]);

    expect((await decide(planId, 'stop')).stdout).toMatch(/^Stop at the dispatch cap \(2 of 2\) of plan /);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'budget.stop' } }]);
    rmSync(inboxDir(project.store.dir, planId), { recursive: true });

    expect((await decide(planId, 'stop', '--step', 's2')).stdout).toMatch(/^Stop for step s2 of plan /);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'deviation.stop', stepId: 's2' } }]);
    rmSync(inboxDir(project.store.dir, planId), { recursive: true });

    expect((await decide(planId, 'retry')).code).toBe(0);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'deviation.retry', stepId: 's2', channel: 'cli' } }]);
  });

  it('should still offer Retry at an open breaker (the CLI is a human) and show why automatic retrying stopped', async () => {
    const planId = await released((h) => failedStepPlan(h, 3));
    const step = project.store.load(planId).steps.find((s) => s.id === 's2')!;
    expect(step.breaker).toMatch(/^circuit breaker: the same error 3 times in a row on step s2; automatic retrying stopped/);
    const { code, stdout } = await decide(planId, 'retry', '-m', 'the clock is mocked wrong');
    expect(code).toBe(0);
    expect(stdout).toContain(`note: ${step.breaker}\n`);
    const s = project.host().open(planId).getSnapshot();
    expect(s.context.decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Retry', channel: 'cli', step_id: 's2' });
    expect(s.context.steps.find((st) => st.id === 's2')).toMatchObject({ status: 'running' });
    expect(s.context.steps.find((st) => st.id === 's2')!.breaker).toBeUndefined();
  });
});

describe('orca decide: the merge gate', () => {
  const worktree = { policy: { workspace: 'worktree' as const } };

  it('should post Run again on top with ontop and Resolved by hand with resolved, for the step named or the first waiting', async () => {
    const planId = await released(mergePlan, undefined, worktree);
    const onTop = await decide(planId, 'ontop', '--step', 's1', '-m', 'keep both greetings');
    expect(onTop.stdout).toMatch(new RegExp(`^Run again on top for step s1 of plan ${planId} with "keep both greetings": posted to `));
    expect(inbox(planId)).toMatchObject([{ event: { type: 'merge.rerun', stepId: 's1', text: 'keep both greetings', channel: 'cli' } }]);

    const other = await released(mergePlan, undefined, worktree);
    expect((await decide(other, 'resolved')).stdout).toMatch(/^Resolved by hand for step s1 of plan /);
    expect(inbox(other)).toMatchObject([{ event: { type: 'merge.resolved', stepId: 's1', channel: 'cli' } }]);
    const s = project.host(worktree).open(other).getSnapshot();
    expect(s.context.steps.find((st) => st.id === 's1')!.status).toBe('completed');
    expect(s.context.decisions.at(-1)).toMatchObject({ gate: 'merge', option: 'Resolved by hand', channel: 'cli', step_id: 's1' });
  });

  it('should refuse ontop past the attempt limit, pointing at resolved or stop, and a step that is not waiting', async () => {
    const planId = await released(mergePlan, 1, worktree);
    const refused = await decide(planId, 'ontop');
    expect([refused.code, refused.stderr]).toEqual([
      1,
      `orca: Run again on top is no longer offered for step s1 of plan ${planId} at attempt 1 (offered: Resolved by hand, Stop). Use resolved or stop.\n`,
    ]);
    const wrong = await decide(planId, 'stop', '--step', 's2');
    expect(wrong.stderr).toBe(`orca: Step "s2" of plan ${planId} is not waiting for a decision (steps waiting: s1).\n`);
    expect(inbox(planId)).toEqual([]);
  });
});


describe('orca decide: several steps at one kind of gate', () => {
  it("should take one decision per step's gate while they wait to be applied, refuse a second for the same step, and apply both", async () => {
    const planId = await released(twoInterruptedPlan);
    expect(project.store.load(planId).steps.map((s) => s.status)).toEqual(['awaiting_resume', 'awaiting_resume']);
    expect((await decide(planId, 'rerun', '--step', 'a')).code).toBe(0);
    // Another step's gate is another gate: its decision is taken too.
    const b = await decide(planId, 'rerun', '--step', 'b');
    expect([b.code, b.stderr]).toEqual([0, '']);
    expect(b.stdout).toMatch(new RegExp(`^Re-run for step b of plan ${planId}: posted to `));
    // The same step's gate already has one.
    const again = await decide(planId, 'stop', '--step', 'a');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^orca: Plan ${planId} already has a decision waiting to be applied for step a \\(resume\\.rerun posted [^,]*\\); to decide differently`));
    expect(inbox(planId).map((d) => `${d.event.type}:${d.event.stepId}`)).toEqual(['resume.rerun:a', 'resume.rerun:b']);

    const s = project.host().open(planId).getSnapshot();
    expect(s.context.steps.map((st) => `${st.id}:${st.status}`)).toEqual(['a:running', 'b:running']);
    expect(s.context.decisions.filter((d) => d.gate === 'resume').map((d) => `${d.option}:${d.step_id}:${d.channel}`)).toEqual(['Re-run:a:cli', 'Re-run:b:cli']);
  });
});
