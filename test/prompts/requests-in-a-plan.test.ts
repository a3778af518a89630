import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, waitFor, type Actor } from 'xstate';
import { applyAgents } from '../../src/agents/apply.js';
import type { DriveResult } from '../../src/host/drive.js';
import { wirePlanMachine } from '../../src/host/wire.js';
import { idlePlanPorts, type MergeStepInput, type MeasureStepInput } from '../../src/machines/ports.js';
import type { MergeOutcome, PlannerOutput, StepDiff, StepRecord } from '../../src/machines/types.js';
import { qualityPorts } from '../../src/opencode/quality-ports.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { createTurnRunner } from '../../src/opencode/turn-runner.js';
import { renderDrive } from '../../src/tools/render.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { turn } from '../support/turns.js';

// The first requests of the turns a plan makes when things go wrong, as the model reads them (the
// agent's system prompt in a step's worktree, then the turn's first prompt), made by the real plan and
// step charts, the real session and quality ports, and fake sessions and worktrees. Issue 35.2: what
// each is told must be true. Two coders change src/cli.js at once; s2's first review fails (one
// review round), Retry goes on in the same worktree, its changes then clash with s1's that landed
// meanwhile, and Run again on top starts it from the user's tree; a document writer runs beside
// them; a tester depends on both. The snapshots are in ./__snapshots__/requests/, one file a request.

const plan: PlannerOutput = {
  type: 'plan',
  goal: 'Give the CLI --verbose and --help',
  steps: [
    { id: 's1', agent: 'coder', description: 'Add a --verbose flag to parseArgs in src/cli.js', files: ['src/cli.js'], success: 'cli --verbose x sets opts.verbose' },
    { id: 's2', agent: 'coder', description: 'Rewrite parseArgs in src/cli.js as a switch and add --help', files: ['src/cli.js'], success: 'cli --help prints the usage line' },
    { id: 's3', agent: 'document-writer', description: 'Document the flags in README.md', files: ['README.md'], success: 'README lists every flag' },
    { id: 's4', agent: 'tester', description: 'Test the usage line', files: ['test/cli.test.js'], depends_on: ['s1', 's2'], success: 'npm test passes' },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

const reviewError = {
  category: 'Logic',
  file: 'src/cli.js',
  line: 12,
  issue: '--help prints the usage line but then goes on parsing',
  expected: 'exit after printing the usage line',
  fix: 'return after printing the usage line',
};

/** What each turn answers, by the header line of its first prompt: `step <id> (<agent>) · attempt <n>`. */
function answer(text: string): unknown {
  const [, step, agent, attempt] = /· step (\S+) \((\S+)\) · attempt (\d+)/.exec(text) ?? [];
  const key = `${step}.${attempt}`;
  if (agent === 'reviewer') return key === 's2.1' ? { type: 'fail', errors: [reviewError] } : { type: 'pass', summary: 'ok' };
  const results: Record<string, { summary: string; key_findings?: string[] }> = {
    's1.1': { summary: 'Added --verbose to parseArgs', key_findings: ['The usage line is now "usage: cli [--verbose] <file>"'] },
    's2.1': { summary: 'Rewrote parseArgs as a switch with --help', key_findings: ['The usage line is now "usage: cli [--help] <file>"'] },
    's2.2': { summary: 'parseArgs returns after --help' },
    's2.3': { summary: "Rewrote parseArgs as a switch on top of s1's --verbose", key_findings: ['The usage line is now "usage: cli [--verbose] [--help] <file>"'] },
    's3.1': { summary: 'Documented --verbose and --help in README.md' },
    's4.1': { summary: 'Tested the usage line' },
  };
  const result = results[key];
  if (!result) throw new Error(`no answer scripted for ${agent} ${key}`);
  return { type: 'success', artifacts: [], ...result };
}

/** What git would measure in each step's worktree, and the one landing that clashes (s2's second attempt, after s1 landed). */
const CHANGED: Record<string, StepDiff['files']> = {
  s1: [{ path: 'src/cli.js', status: 'modified', added: 6, removed: 2 }],
  s2: [{ path: 'src/cli.js', status: 'modified', added: 14, removed: 9 }],
  s3: [{ path: 'README.md', status: 'modified', added: 4, removed: 1 }],
  s4: [{ path: 'test/cli.test.js', status: 'added', added: 20, removed: 0 }],
};
const HUNK = ['<<<<<<< your working tree', '    if (arg === "--verbose") opts.verbose = true;', '=======', '    switch (arg) { case "--help": return usage(); }', '>>>>>>> step s2'].join('\n');

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'orca-requests-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function ports() {
  const fake = fakeSessions((_agent, text) => answer(text));
  const turns = createTurnRunner(fake.port, { isRecovering: () => false });
  const sessions = opencodePorts(fake.port, { turns, isRecovering: () => false });
  const quality = qualityPorts(fake.port, { directory: root, hookTimeoutMs: 1000, idle: { waitIdle: async () => {} }, log: () => {}, turns });
  const measure = async ({ stepId, attempt, workspace }: MeasureStepInput): Promise<StepDiff> => {
    const patch = join(root, `${stepId}.${attempt}.patch`);
    writeFileSync(patch, `--- a/${CHANGED[stepId]![0]!.path}\n+++ b/${CHANGED[stepId]![0]!.path}\n@@ -1 +1 @@\n-old ${stepId}\n+new ${stepId}\n`);
    return { files: CHANGED[stepId]!, undeclared: [], patch_path: patch, base: workspace.base, result: `${stepId}.${attempt}`, where: 'worktree' };
  };
  const merge = async (input: MergeStepInput): Promise<MergeOutcome> => {
    const diff = input.measured ?? (await measure(input));
    if (input.stepId === 's2' && input.attempt === 2) return { type: 'conflict', diff, conflicts: [{ path: 'src/cli.js', hunks: [HUNK] }] };
    return { type: 'merged', diff };
  };
  const wired = wirePlanMachine({
    ...idlePlanPorts,
    openPlannerSession: async () => ({ sessionId: 'ses_planner' }),
    consultPlanner: async () => turn(plan),
    openSpecialistSession: sessions.openSpecialistSession,
    runSpecialist: sessions.runSpecialist,
    runReview: quality.runReview,
    runFix: quality.runFix,
    runStepHooks: async () => ({ failures: [] }),
    openWorkspace: async ({ stepId, attempt }) => {
      const dir = join(root, 'slots', `${stepId}.${attempt}`);
      mkdirSync(dir, { recursive: true });
      return { kind: 'worktree', dir, root: dir, base: `base-${stepId}-${attempt}` };
    },
    measureStep: measure,
    mergeStep: merge,
  });
  return { fake, wired };
}

const by = { channel: 'tool' as const, at: '2026-01-01T00:00:00.000Z' };
const step = (actor: Actor<ReturnType<typeof wirePlanMachine>>, id: string): StepRecord => actor.getSnapshot().context.steps.find((s) => s.id === id)!;
const SYSTEM = applyAgents({}, {}, { worktree: true });

describe('the requests of a plan whose parallel coders clash, retried and run again on top (issue 35.2)', () => {
  const requests = new Map<string, string>();
  let result: DriveResult;

  beforeAll(async () => {
    const { fake, wired } = ports();
    const actor = createActor(wired, { input: { planId: 'plan_X', message: 'give the CLI --verbose and --help', policy: { workspace: 'worktree', review_rounds: 1 } } });
    actor.start();
    await waitFor(actor, (s) => s.matches('pending_approval'));
    actor.send({ type: 'approval.approve', ...by });
    await waitFor(actor, () => step(actor, 's2').status === 'awaiting_decision' && step(actor, 's1').status === 'completed' && step(actor, 's3').status === 'completed');
    actor.send({ type: 'deviation.retry', stepId: 's2', ...by });
    await waitFor(actor, () => step(actor, 's2').status === 'awaiting_merge');
    actor.send({ type: 'merge.rerun', stepId: 's2', ...by });
    const done = await waitFor(actor, (s) => s.hasTag('outcome.completed'));
    result = { kind: 'outcome', tag: 'outcome.completed', snapshot: done } as never;
    for (const p of fake.prompts) {
      const header = p.text.split('\n')[0]!;
      const [, stepId, agent, attempt] = /· step (\S+) \((\S+)\) · attempt (\d+)/.exec(header)!;
      const name = `${stepId}.${attempt}.${agent === 'reviewer' ? 'reviewer' : agent}`;
      if (!requests.has(name)) requests.set(name, `${SYSTEM[agent as 'coder'].prompt}\n\n---\n\n${p.text}`);
    }
  });

  const request = (name: string) => {
    const text = requests.get(name);
    if (!text) throw new Error(`no request ${name}; made: ${[...requests.keys()].join(', ')}`);
    return text;
  };

  it("tells each of two parallel coders that the other changes src/cli.js too, and what happens where both change the same lines", async () => {
    const text = request('s2.1.coder');
    expect(text).toContain('- s1 (coder): Add a --verbose flag to parseArgs in src/cli.js [also changes src/cli.js]');
    expect(text).toContain('the change that lands second does not apply and waits for a decision: in those files, change only what your step needs.');
    expect(request('s1.1.coder')).toContain('- s2 (coder): Rewrite parseArgs in src/cli.js as a switch and add --help [also changes src/cli.js]');
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/parallel-coder.md');
  });

  it('tells a document writer beside the coders that their changes are not in its files, and that it cannot run examples', async () => {
    const text = request('s3.1.document-writer');
    expect(text).toContain("Where you document another step's change\n  that is not in your files, describe it as that step's result or description states it");
    expect(text).toContain('check every example against the\n  source (you cannot run it)');
    expect(text).not.toContain('keep examples runnable');
    expect(text).toContain('Not in your copy (they may run at the same time, each in its own):\n- s1 (coder)');
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/document-writer-beside.md');
  });

  it("tells a Retry that it works on in the failed attempt's tree, with that attempt's changes still in it", async () => {
    const text = request('s2.2.coder');
    expect(text).not.toContain('as they were when');
    expect(text).toContain('on a retry, what the failed attempt changed too');
    expect(text).toContain('What attempt 1 changed is still in your copy: nothing was undone. Keep what is right, fix the rest.');
    expect(text).toContain('--help prints the usage line but then goes on parsing');
    // s1 landed meanwhile, but not in this copy (the first attempt's): said so, not "may run at the same time".
    expect(text).toContain("Done since your copy was made, in the user's tree but not in your copy:\n- s1 (coder)");
    expect(text).not.toMatch(/may run at the same time[^\n]*\n- s1/);
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/retry.md');
  });

  it("gives the reviewer of attempt 2 attempt 1's findings, says the copy holds that attempt's changes, and that its own changes would not stay out of the step", async () => {
    const text = request('s2.2.reviewer');
    expect(text).toContain('# Earlier attempts at this step\n- Attempt 1 did the step, but the reviewer failed it in its last review round: REVIEW FAILED in round 1 of 1: 1 error');
    expect(text).toContain('├── Issue: --help prints the usage line but then goes on parsing');
    expect(text).toContain("What attempt 1 changed is still in the copy, part of this step's changes: nothing was undone between attempts.");
    expect(text).not.toContain('whatever changes in it is applied');
    expect(text).not.toContain("nothing you run here reaches the user's files");
    expect(text).toContain('counts as the step\'s once the copy is measured again');
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/retry-reviewer.md');
  });

  it('tells the run again on top which step landed first in the clashing file, the clashing lines, and that the step is done and in its copy', async () => {
    const text = request('s2.3.coder');
    expect(text).toContain("MERGE: its changes clashed with the user's tree in src/cli.js, where step s1 landed a change first; run again on top of the tree as it is now");
    expect(text).toContain("Its changes are not in your copy: you start again from the user's tree as it is now (s1 included). Do the step on top of it.");
    expect(text).toContain('    if (arg === "--verbose") opts.verbose = true;');
    expect(text).toContain('Done, their changes in your copy:\n- s1 (coder)');
    expect(text).not.toMatch(/Not in your copy[^\n]*\n- s1/);
    expect(text).toContain("(from <<<<<<< to ======= the user's tree now, from ======= to >>>>>>> attempt 2's change)");
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/run-on-top.md');
  });

  it("tells a later step that a dependency's result was changed on top by another, whose result holds where they differ", async () => {
    const text = request('s4.1.tester');
    expect(text).toContain("Since then s2 (coder) changed src/cli.js on top of this step's change: where their results differ, trust the later step and the files.");
    // s2's own result is the later one: nothing changed it since.
    expect(text.split('## s2 (coder)')[1]).not.toContain('Since then');
    await expect(text).toMatchFileSnapshot('./__snapshots__/requests/later-step.md');
  });

  it("returns s2 under the failures as completed on attempt 3, not with status completed, and says its counts overlap s1's", () => {
    const rendered = renderDrive(result) as { failures: unknown[]; steps: unknown[] };
    expect(rendered.failures).toEqual([{ step: 's2', failed: [expect.stringMatching(/^attempt 1, /), expect.stringMatching(/^attempt 2, /)], then: 'completed on attempt 3' }]);
    const [s1, s2] = rendered.steps as Array<{ id: string; changed_since?: string; diff?: { overlap?: string } }>;
    expect(s1!.diff).not.toHaveProperty('overlap');
    // s1's key findings (its usage line) are outdated where s2 changed the file on top of it.
    expect(s1!.changed_since).toBe("s2 changed src/cli.js since, on top of this step's change: where their results differ, the later one holds");
    expect(s2).not.toHaveProperty('changed_since');
    expect(s2!.diff!.overlap).toBe("changed src/cli.js on top of s1's change: where it rewrote those lines, both steps' +/- count them, so summed they exceed the net change");
  });
});
