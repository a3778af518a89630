import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyActorRef } from 'xstate';
import type { PlanHost } from '../../src/host/plan-host.js';
import { gateNote, pausedNote, planFollowers, watchForNotes } from '../../src/notices/plan-notes.js';
import { openGates } from '../../src/machines/gates.js';
import { sessionNotes } from '../../src/notices/session-notes.js';
import { mergePlan, tempProject, twoStepPlan, type Project } from '../cli/fixtures.js';
import { turn } from '../support/turns.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

/** Turns (the planner's, a specialist's) resolve with what they cost beside their value. */
const TURNS = new Set(['consultPlanner', 'runSpecialist']);
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output: TURNS.has(id) ? turn(output) : output }) as never;
const step = (host: PlanHost, planId: string, id: string) => host.open(planId).getSnapshot().children[`step:${id}`] as AnyActorRef;
const succeed = (host: PlanHost, planId: string, id: string) => {
  step(host, planId, id).send(done('openSpecialistSession', { sessionId: `ses_${id}` }));
  step(host, planId, id).send(done('runSpecialist', { type: 'success', summary: `did ${id}`, artifacts: [], key_findings: [] }));
};
/** Observers hear of a change in a microtask after it is recorded. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A plan of session ses_owner waiting for approval, with the notes its session got. */
function setup() {
  const host = project.host();
  const posted: Array<[string, string]> = [];
  const followers = planFollowers();
  watchForNotes(host, { notes: { post: (sessionId, text) => void posted.push([sessionId, text]) }, followers });
  const planId = host.create({ message: 'say hello', callerSessionId: 'ses_owner' }).getSnapshot().context.plan_id;
  host.send(planId, done('openPlannerSession', { sessionId: 'ses_planner' }));
  host.send(planId, done('consultPlanner', twoStepPlan));
  return { host, planId, posted, followers };
}
const by = (channel: 'command' | 'cli' | 'question') => ({ channel, at: new Date().toISOString() });

describe('notes for the session of a detached plan (its call returned once it ran)', () => {
  /** Approved in the call's dialog, which then returned: the call detaches it with nothing done yet. */
  function detached() {
    const setUp = setup();
    const unfollow = setUp.followers.follow(setUp.planId);
    setUp.host.send(setUp.planId, { type: 'approval.approve', ...by('question') });
    setUp.followers.detach(setUp.planId, []);
    unfollow();
    return setUp;
  }

  it('should post each step done with what it cost, then the outcome once, and nothing after', async () => {
    const { host, planId, posted, followers } = detached();
    await settle();
    expect(posted).toEqual([]);
    succeed(host, planId, 's1');
    await settle();
    // Each scripted turn: 110 tokens, $0.001 (the planner's and s1's so far).
    expect(posted).toEqual([['ses_owner', `Orca: plan ${planId} · 1/2 done · $0.002 so far; s2 (tester) running\n✓ s1 (coder) done · $0.001 · 110 tokens: did s1`]]);
    succeed(host, planId, 's2');
    await settle();
    expect(posted.slice(1)).toEqual([
      ['ses_owner', `Orca: plan ${planId} · 2/2 done · $0.003 so far\n✓ s2 (tester) done · $0.001 · 110 tokens: did s2`],
      ['ses_owner', expect.stringMatching(completedNote(planId))],
    ]);
    expect(followers.detached(planId)).toBeUndefined();
  });

  it('should count the steps as it tells them when two are seen done at once (a busy process): 1/2, then 2/2', async () => {
    const { host, planId, posted } = detached();
    succeed(host, planId, 's1');
    succeed(host, planId, 's2');
    await settle();
    expect(posted.map(([, text]) => text.split('\n')[0]!.replace(/ · \$.*$/, ''))).toEqual([`Orca: plan ${planId} · 1/2 done`, `Orca: plan ${planId} · 2/2 done`, expect.stringContaining('completed')]);
  });

  it('should leave a gate to the follower in the session (its document and dialog), tell a decision made with orca decide, and nothing while a call follows it again', async () => {
    const { host, planId, posted, followers } = detached();
    step(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
    step(host, planId, 's1').send(done('runSpecialist', { type: 'failure', error: 'the build is red' }));
    await settle();
    expect(posted).toEqual([]); // hitl/session-gate.ts posts the gate's document, then asks
    host.send(planId, { type: 'deviation.retry', stepId: 's1', text: 'use the other API', ...by('cli') });
    await settle();
    expect(posted).toEqual([['ses_owner', `Orca: Retry for step s1 recorded for plan ${planId} with orca decide or the plan viewer ("use the other API").`]]);
    // The user asks Orca to continue the plan: its call follows it and reports its outcome.
    const unfollow = followers.follow(planId);
    succeed(host, planId, 's1');
    succeed(host, planId, 's2');
    await settle();
    unfollow();
    expect(host.open(planId).getSnapshot().value).toBe('completed');
    expect(posted).toHaveLength(1); // the call's result reports the steps and the outcome
    expect(followers.detached(planId)).toBeUndefined();
  });
});

describe('notes for the session that owns a plan nobody follows', () => {
  it('should post the outcome of a plan approved by a slash command, once, when it completes', async () => {
    const { host, planId, posted } = setup();
    host.send(planId, { type: 'approval.approve', ...by('command') });
    await settle();
    expect(posted).toEqual([]); // the command's reply says it runs now
    succeed(host, planId, 's1');
    await settle();
    expect(posted).toEqual([]);
    succeed(host, planId, 's2');
    await settle();
    expect(posted).toEqual([['ses_owner', expect.stringMatching(completedNote(planId))]]);
  });

  it('should tell the session of a decision made with orca decide, then where the plan stopped', async () => {
    const { host, planId, posted } = setup();
    host.send(planId, { type: 'approval.approve', text: 'go', ...by('cli') });
    await settle();
    expect(posted).toEqual([['ses_owner', `Orca: Approve recorded for plan ${planId} with orca decide ("go"). It runs now; its outcome will be posted here.`]]);
    step(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
    step(host, planId, 's1').send(done('runSpecialist', { type: 'failure', error: 'the build is red' }));
    await settle();
    expect(posted[1]).toEqual([
      'ses_owner',
      `Orca: plan ${planId} waits for a decision on a failed step: step s1 (coder) failed: the build is red. ` +
        `Answer with /orca-retry, /orca-replan, /orca-stop, or ask Orca to continue plan ${planId} to get the dialog.`,
    ]);
    host.send(planId, { type: 'deviation.stop', stepId: 's1', ...by('command') });
    await settle();
    expect(posted).toHaveLength(2); // the stop ended the plan: its reply said so
  });

  it('should post nothing for a plan an orca_ask_planner call follows, nor for decisions in the dialog', async () => {
    const { host, planId, posted, followers } = setup();
    const unfollow = followers.follow(planId);
    host.send(planId, { type: 'approval.approve', ...by('cli') });
    succeed(host, planId, 's1');
    succeed(host, planId, 's2');
    await settle();
    expect(posted).toEqual([]);
    unfollow();
    const other = setup();
    other.host.send(other.planId, { type: 'approval.approve', ...by('question') });
    succeed(other.host, other.planId, 's1');
    succeed(other.host, other.planId, 's2');
    await settle();
    expect(other.posted).toEqual([]);
  });

  it('should say where a paused plan was and how to resume it', () => {
    const { host, planId } = setup();
    host.send(planId, { type: 'approval.approve', ...by('question') });
    step(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
    expect(pausedNote(planId, host.open(planId).getSnapshot())).toBe(
      `Orca: plan ${planId} is paused and saved: 0 of 2 steps done, s1 (coder) was running. Nothing runs it until it is resumed: ` +
        `type /orca-resume ${planId} (or ask Orca to continue plan ${planId}) and it goes on from its saved state. orca show ${planId} shows where it stopped.`,
    );
    expect(pausedNote(planId, null)).toMatch(/^Orca: plan \S+ is paused and saved\. Nothing runs it/);
  });

  it('should say in words where a step whose changes did not apply waits, and the commands that answer it', () => {
    const host = project.host({ policy: { workspace: 'worktree' } });
    const planId = mergePlan(host);
    expect(gateNote(openGates(host.open(planId).getSnapshot())[0]!)).toBe(
      `Orca: plan ${planId} waits for a decision on a step's changes that did not apply: step s1 (coder), attempt 1 ` +
        `(conflicts in hello.ts; it changed 3 files +15 −4, 2 not declared; its worktree, to take them by hand: /wt/s1). ` +
        `Answer with /orca-ontop, /orca-resolved, /orca-stop, or ask Orca to continue plan ${planId} to get the dialog.`,
    );
  });

  it('should name the commands a gate takes, with what they need', () => {
    const { host, planId } = setup();
    expect(gateNote(openGates(host.open(planId).getSnapshot())[0]!)).toBe(
      `Orca: plan ${planId} waits for approval (2 steps). Answer with /orca-approve, /orca-changes <guidance>, /orca-reject, or ask Orca to continue plan ${planId} to get the dialog.`,
    );
  });
});

describe('session notes', () => {
  const recorder = () => {
    const sent: string[] = [];
    const ports = {
      post: async (sessionId: string, text: string) => void sent.push(`${sessionId}: ${text}`),
      restore: async (sessionId: string) => void sent.push(`${sessionId}: (model put back)`),
    };
    return { sent, notes: sessionNotes(ports, () => {}) };
  };
  const status = (sessionID: string, type: string) => ({ type: 'session.status', properties: { sessionID, status: { type } } });

  it('should post at once to an idle session, hold a note for a busy one until it is idle, and put the model back after each', async () => {
    const { sent, notes } = recorder();
    notes.post('ses_a', 'one');
    notes.observe(status('ses_a', 'busy'));
    notes.post('ses_a', 'two');
    notes.post('ses_b', 'three');
    await settle();
    expect(sent).toEqual(['ses_a: one', 'ses_b: three', 'ses_a: (model put back)', 'ses_b: (model put back)']);
    notes.observe(status('ses_a', 'idle'));
    await settle();
    expect(sent.slice(4)).toEqual(['ses_a: two', 'ses_a: (model put back)']);
  });

  it("should put the session's model back once a command's turn is over", async () => {
    const { sent, notes } = recorder();
    notes.restoreAfterTurn('ses_a');
    notes.observe(status('ses_a', 'busy'));
    await settle();
    expect(sent).toEqual([]);
    notes.observe(status('ses_a', 'idle'));
    notes.observe({ type: 'session.idle', properties: { sessionID: 'ses_a' } });
    await settle();
    expect(sent).toEqual(['ses_a: (model put back)']);
  });

  it('should log a note that could not be posted, never throw', async () => {
    const logs: string[] = [];
    const notes = sessionNotes({ post: async () => Promise.reject(new Error('session gone')), restore: async () => {} }, (_level, message) => void logs.push(message));
    notes.post('ses_x', 'hello');
    await settle();
    expect(logs).toEqual(['posting the note "hello" for session ses_x failed (session gone)']);
  });
});

describe('notes as the TUI renders them (markdown)', () => {
  it('should make ids and commands code spans and leave other underscores as they are (the 1.18.33 TUI shows a backslash escape as typed)', async () => {
    const { forMarkdown } = await import('../../src/notices/session-notes.js');
    const id = 'plan_01M85M2PM126HH1TCDJ42WDM8B';
    expect(forMarkdown(`Orca: plan ${id} is paused. Ask Orca to continue plan ${id}; orca show ${id} shows it.`)).toBe(
      `Orca: plan \`${id}\` is paused. Ask Orca to continue plan \`${id}\`; \`orca show ${id}\` shows it.`,
    );
    expect(forMarkdown('Answer with /orca-retry, /orca-changes <guidance>, or fix my_file_name.')).toBe(
      'Answer with `/orca-retry`, `/orca-changes <guidance>`, or fix my_file_name.',
    );
  });

  it('should leave a fenced block as it is, ids and all, until its closing fence', async () => {
    const { forMarkdown } = await import('../../src/notices/session-notes.js');
    const id = 'plan_01M85M2PM126HH1TCDJ42WDM8B';
    const note = `Error of ${id}:\n\`\`\`\`\nsee ${id}\n\`\`\`\nstill inside\n\`\`\`\`\nafter ${id}\x1b`;
    expect(forMarkdown(note)).toBe(`Error of \`${id}\`:\n\`\`\`\`\nsee ${id}\n\`\`\`\nstill inside\n\`\`\`\`\nafter \`${id}\`␛`);
  });
});

/** The two-step fixture plan's outcome note (notices/outcome-note.ts), completed with nothing to verify, however long it took. */
function completedNote(planId: string): RegExp {
  const text = [
    `Orca: plan ${planId} completed, 2 of 2 steps done: Add a greeting to the home page`,
    '✓ s1 (coder) done',
    '✓ s2 (tester) done',
    'Verification: none (nothing configured to check: verification.commands, verification.turn).',
    'Total: $0.003 · <time>',
    'No change was measured: no step changed files, or the project is not in a git repository.',
    `Each step's summary and history: orca show ${planId}`,
  ].join('\n');
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('<time>', '\\d+ s')}$`);
}
