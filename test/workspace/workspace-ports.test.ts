import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspaces, workspaceSupport, type WorkspacesOptions } from '../../src/workspace/index.js';
import { gitIn, initRepo, read, tempDirs, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const signal = new AbortController().signal;
const PLAN = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
const open = { idempotencyKey: `${PLAN}:code:1`, planId: PLAN, stepId: 'code', attempt: 1 };

async function workspacesIn(dir: string, more: Partial<WorkspacesOptions> = {}) {
  const patches = dirs.make();
  const logged: string[] = [];
  const workspaces = createWorkspaces({
    directory: dir,
    support: await workspaceSupport(dir, { dataHome: dirs.make() }),
    patchPathOf: (planId, stepId, attempt) => join(patches, `${planId}.${stepId}.${attempt}.patch`),
    include: ['.env'],
    setupTimeoutMs: 5_000,
    keepSlots: 1,
    log: (level, message) => logged.push(`${level}: ${message}`),
    ...more,
  });
  return { workspaces, patches, logged };
}

/** A step in the shared tree whose session (`ses_code`) wrote code.ts and then ran no tool call more. */
async function sharedStepThatWrote() {
  const dir = initRepo(dirs.make());
  const quiet = new Map<string, number | undefined>();
  const { workspaces } = await workspacesIn(dir, { quietSince: (sessionId) => quiet.get(sessionId) });
  const code = await workspaces.openWorkspace({ ...open, kind: 'shared' }, signal);
  writeFileSync(join(dir, 'code.ts'), 'the step wrote this\n');
  quiet.set('ses_code', performance.now()); // its last tool call ended
  return { dir, quiet, workspaces, code };
}

describe('createWorkspaces', () => {
  it("should open a worktree, measure it and merge it into the user's tree, and give its slot back", async () => {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n', '.gitignore': '.env\n' });
    writeFiles(dir, { '.env': 'KEY=1\n' });
    const { workspaces, patches } = await workspacesIn(dir, { setup: 'touch .setup-ran' });

    const workspace = await workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal);
    expect(existsSync(join(workspace.dir, '.setup-ran'))).toBe(true);
    writeFiles(workspace.dir, { 'a.txt': 'a\nb\n', 'extra.txt': 'x\n', '.env': 'KEY=changed in the worktree\n' });
    const diff = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace, declared: ['a.txt'] }, signal);
    // What the setup wrote is not the step's change; the .env copy is not either.
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'modified', added: 1, removed: 0 },
      { path: 'extra.txt', status: 'added', added: 1, removed: 0 },
    ]);
    expect(diff.undeclared).toEqual(['extra.txt']);
    expect(diff.patch_path).toBe(join(patches, `${PLAN}.code.1.patch`));
    expect(await workspaces.leftovers()).toMatchObject([{ slot: 1, path: workspace.root, claim: { plan_id: PLAN, step_id: 'code', attempt: 1 } }]);

    const outcome = await workspaces.mergeStep({ ...open, idempotencyKey: `${PLAN}:code:1:merge`, workspace, declared: ['a.txt'] }, signal);

    expect(outcome).toMatchObject({ type: 'merged' });
    expect(read(dir, 'a.txt')).toBe('a\nb\n');
    expect(read(dir, '.env')).toBe('KEY=1\n');
    expect(existsSync(join(dir, '.setup-ran'))).toBe(false);
    expect(await workspaces.leftovers()).toMatchObject([{ slot: 1, path: workspace.root, claim: null }]);
  });

  it('should record the project tree as the base of a shared step', async () => {
    const dir = initRepo(dirs.make());
    const { workspaces } = await workspacesIn(dir);
    const workspace = await workspaces.openWorkspace({ ...open, kind: 'shared' }, signal);
    expect(workspace).toEqual({ kind: 'shared', dir, base: expect.stringMatching(/^[0-9a-f]{40}$/) });
    writeFileSync(join(dir, 'README.md'), 'changed\n');
    const diff = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace, declared: [] }, signal);
    expect(diff).toMatchObject({ where: 'shared', files: [{ path: 'README.md', status: 'modified' }] });
  });

  it('should give a shared-tree step that starts once the step before landed that step\'s kept tree as its base, and diff the kept tree, also again after the next one wrote', async () => {
    const dir = initRepo(dirs.make());
    const { workspaces } = await workspacesIn(dir);
    const first = await workspaces.openWorkspace({ ...open, kind: 'shared' }, signal);
    writeFileSync(join(dir, 'README.md'), 'the step before wrote this\n');

    // As the charts do when a step lands before its diff: its tree kept, then the next step starts while the diff is made.
    const { result } = await workspaces.captureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: first }, signal);
    const opening = workspaces.openWorkspace({ ...open, stepId: 'docs', kind: 'shared' }, signal);
    const measuring = workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: first, declared: [], result }, signal);
    const [next, measured] = await Promise.all([opening, measuring]);

    expect(measured.files).toEqual([expect.objectContaining({ path: 'README.md', status: 'modified' })]);
    expect(measured.result).toBe(result);
    expect(next.base).toBe(result); // no second read of the tree
    writeFileSync(join(dir, 'docs.md'), 'docs\n');
    const docs = await workspaces.measureStep({ planId: PLAN, stepId: 'docs', attempt: 1, workspace: next, declared: [] }, signal);
    expect(docs.files.map((f) => f.path)).toEqual(['docs.md']);
    // A restart while the first step's diff was made: the kept tree is diffed, not the tree the next step changed.
    const again = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: first, declared: [], result }, signal);
    expect(again.files.map((f) => f.path)).toEqual(['README.md']);
  });

  it("should capture a shared-tree step with a snapshot begun after its session's last tool call, and with one of its own while a call runs or with no session", async () => {
    const { dir, quiet, workspaces, code } = await sharedStepThatWrote();
    const docs = await workspaces.openWorkspace({ ...open, stepId: 'docs', kind: 'shared' }, signal);
    // A sibling step ended first: its capture began after ses_code's last call.
    const sibling = await workspaces.captureStep({ planId: PLAN, stepId: 'docs', attempt: 1, workspace: docs }, signal);
    writeFileSync(join(dir, 'late.md'), 'someone wrote this after\n');

    const kept = await workspaces.captureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: code, sessionId: 'ses_code' }, signal);
    expect(kept.result).toBe(sibling.result);
    const measured = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: code, declared: [], result: kept.result }, signal);
    expect(measured.files.map((f) => f.path)).toEqual(['code.ts']);
    // A call still running, or no session named: a snapshot of its own, which reads the tree now.
    quiet.set('ses_code', undefined);
    const running = await workspaces.captureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: code, sessionId: 'ses_code' }, signal);
    const unnamed = await workspaces.captureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: code, sessionId: null }, signal);
    for (const { result } of [running, unnamed]) {
      const diff = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace: code, declared: [], result }, signal);
      expect(diff.files.map((f) => f.path)).toEqual(['code.ts', 'late.md']);
    }
  });

  it('should measure a step that ran no tool since its base with a snapshot that ended (its base) at once, not one still running', async () => {
    const dir = initRepo(dirs.make());
    const quiet = new Map<string, number | undefined>([['ses_docs', 0]]); // no tool call since the process began
    const { workspaces } = await workspacesIn(dir, { quietSince: (sessionId) => quiet.get(sessionId) });
    const docs = await workspaces.openWorkspace({ ...open, stepId: 'docs', kind: 'shared' }, signal);
    writeFileSync(join(dir, 'yours.md'), 'you wrote this while the step ran\n');
    const running = workspaces.treeState(signal); // another step's snapshot, begun now

    const kept = await workspaces.captureStep({ planId: PLAN, stepId: 'docs', attempt: 1, workspace: docs, sessionId: 'ses_docs' }, signal);
    expect(kept.result).toBe(docs.base);
    const later = await running;
    const since = await workspaces.measureStep({ planId: PLAN, stepId: 'test', attempt: 1, workspace: docs, declared: [], result: later }, signal);
    expect(since.files.map((f) => f.path)).toEqual(['yours.md']);
  });

  it("should measure a shared-tree step for its reviewer with a snapshot begun after its session's last tool call, when its session is named; with one of its own when not", async () => {
    const { dir, workspaces, code } = await sharedStepThatWrote();
    await workspaces.treeState(signal); // a sibling step's measurement, say
    writeFileSync(join(dir, 'late.md'), 'someone wrote this after\n');

    const step = { planId: PLAN, stepId: 'code', attempt: 1, workspace: code, declared: [] };
    expect((await workspaces.measureStep({ ...step, sessionId: 'ses_code' }, signal)).files.map((f) => f.path)).toEqual(['code.ts']);
    expect((await workspaces.measureStep({ ...step, sessionId: null }, signal)).files.map((f) => f.path)).toEqual(['code.ts', 'late.md']);
  });

  it('should refuse a worktree, with the reason, where git cannot give one', async () => {
    const dir = dirs.make();
    const { workspaces } = await workspacesIn(dir);
    await expect(workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal)).rejects.toThrow(`Cannot give the step its own worktree: ${dir} is not in a git repository.`);
    expect(await workspaces.leftovers()).toEqual([]);
  });

  it("should give back a plan's slots, and trim the free ones beyond the pool", async () => {
    const dir = initRepo(dirs.make());
    const { workspaces } = await workspacesIn(dir, { maxSlots: 2 });
    const one = await workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal);
    const two = await workspaces.openWorkspace({ ...open, stepId: 'docs', kind: 'worktree' }, signal);
    expect(await workspaces.plansWithFolders()).toEqual([PLAN]);

    expect((await workspaces.removePlan(PLAN)).sort()).toEqual([one.root, two.root].sort());
    expect(await workspaces.plansWithFolders()).toEqual([]);
    expect(await workspaces.trim()).toEqual([two.dir]);
    expect(existsSync(two.root!)).toBe(false);
    expect(await workspaces.leftovers()).toMatchObject([{ slot: 1, path: one.root, claim: null }]);
  });

  it('should tell a follower of a step that it waits for a slot while every slot is held, and that it holds one once given back', async () => {
    const dir = initRepo(dirs.make());
    const { workspaces } = await workspacesIn(dir, { maxSlots: 1 });
    const first = await workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal);

    const early: boolean[] = [];
    const stopEarly = workspaces.followSlot({ planId: PLAN, stepId: 'docs' }, (waiting) => early.push(waiting)); // before it asks
    const second = workspaces.openWorkspace({ ...open, stepId: 'docs', kind: 'worktree' }, signal);
    await waitUntil(() => early.length > 0);
    const late: boolean[] = [];
    const stopLate = workspaces.followSlot({ planId: PLAN, stepId: 'docs' }, (waiting) => late.push(waiting)); // told at once
    expect(early).toEqual([true]);
    expect(late).toEqual([true]);

    await workspaces.removePlan(PLAN); // gives back the first step's slot
    const opened = await second;
    expect(opened.root).toBe(first.root);
    expect(early).toEqual([true, false]);
    expect(late).toEqual([true, false]);
    stopEarly();
    stopLate();

    // Once open, nothing is known of the step: a new follower is told nothing.
    const after: boolean[] = [];
    workspaces.followSlot({ planId: PLAN, stepId: 'docs' }, (waiting) => after.push(waiting))();
    expect(after).toEqual([]);
  });
});

describe('a slot given back', () => {
  /** A repository whose step (in a worktree slot) changed a.txt and added b.txt, landed: the slot is given back. */
  async function landedStep(more: Partial<WorkspacesOptions>) {
    const dir = initRepo(dirs.make(), { 'a.txt': 'a\n' });
    const { workspaces, logged } = await workspacesIn(dir, more);
    const workspace = await workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal);
    writeFiles(workspace.dir, { 'a.txt': 'the step wrote this\n', 'b.txt': 'new\n' });
    const measured = await workspaces.measureStep({ planId: PLAN, stepId: 'code', attempt: 1, workspace, declared: [] }, signal);
    const outcome = await workspaces.mergeStep({ ...open, idempotencyKey: `${PLAN}:code:1:merge`, workspace, declared: [], measured }, signal);
    expect(outcome).toMatchObject({ type: 'merged' });
    return { dir, workspaces, workspace, logged };
  }
  const holdsNothing = (dir: string, root: string) =>
    gitIn(root, 'status', '--porcelain', '--untracked-files=all') === '' && gitIn(root, 'rev-parse', 'HEAD') === gitIn(dir, 'rev-parse', 'HEAD') && !existsSync(join(root, 'b.txt'));

  it("should be reset in the background once free, not while its step lands: then it holds nothing of the step, at the user's HEAD", async () => {
    const { dir, workspaces, workspace, logged } = await landedStep({ slotResetDelayMs: 100 });
    // Landed without waiting for the reset: the slot still holds the step's tree, its change staged by the measure.
    expect(gitIn(workspace.root!, 'status', '--porcelain')).toBe('M  a.txt\nA  b.txt\n');
    expect(await workspaces.leftovers()).toMatchObject([{ claim: null, lastStep: { plan_id: PLAN, step_id: 'code' } }]);

    await waitUntil(() => holdsNothing(dir, workspace.root!));
    expect(holdsNothing(dir, workspace.root!)).toBe(true);
    expect(read(workspace.dir, 'a.txt')).toBe('a\n');
    expect(read(dir, 'a.txt')).toBe('the step wrote this\n'); // the user's tree keeps what landed
    await waitUntil(() => !existsSync(`${workspace.root}.claim.json`));
    expect(await workspaces.leftovers()).toMatchObject([{ claim: null, lastStep: null }]);
    expect(logged).toEqual([]);
  });

  it('should be left to the next step that takes it before its reset (the step is not disturbed), and reset once that step gave it back', async () => {
    const { dir, workspaces, workspace } = await landedStep({ slotResetDelayMs: 150 });
    const step = { ...open, stepId: 'next', idempotencyKey: `${PLAN}:next:1` };
    const next = await workspaces.openWorkspace({ ...step, kind: 'worktree' }, signal);
    expect(next.root).toBe(workspace.root);
    writeFiles(next.dir, { 'work.txt': 'the next step at work\n' });

    await new Promise((resolve) => setTimeout(resolve, 400)); // the reset's time came and went
    expect(read(next.dir, 'work.txt')).toBe('the next step at work\n');
    expect(read(next.dir, 'a.txt')).toBe('the step wrote this\n'); // its start: the user's tree, with what landed
    expect(await workspaces.leftovers()).toMatchObject([{ claim: { plan_id: PLAN, step_id: 'next', attempt: 1 } }]);

    expect(await workspaces.mergeStep({ ...step, idempotencyKey: `${PLAN}:next:1:merge`, workspace: next, declared: [] }, signal)).toMatchObject({ type: 'merged' });
    expect(read(dir, 'work.txt')).toBe('the next step at work\n');
    await waitUntil(() => !existsSync(join(next.dir, 'work.txt')) && !existsSync(`${next.root}.claim.json`));
    expect(existsSync(join(next.dir, 'work.txt'))).toBe(false);
    expect(gitIn(next.root!, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('should be reset when the server ends (settle) if it is not yet, in a bounded time', async () => {
    const { dir, workspaces, workspace } = await landedStep({ slotResetDelayMs: 60_000 });
    expect(holdsNothing(dir, workspace.root!)).toBe(false);

    const started = performance.now();
    await workspaces.settle();
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(holdsNothing(dir, workspace.root!)).toBe(true);
    // Once ended, nothing more is scheduled.
    await workspaces.settle(1);
  });

  it("should be reset too when its plan ends without landing it (removePlan)", async () => {
    const dir = initRepo(dirs.make());
    const { workspaces } = await workspacesIn(dir, { slotResetDelayMs: 50 });
    const workspace = await workspaces.openWorkspace({ ...open, kind: 'worktree' }, signal);
    writeFiles(workspace.dir, { 'failed.txt': 'a step that failed\n' });

    expect(await workspaces.removePlan(PLAN)).toEqual([workspace.root]);
    await waitUntil(() => !existsSync(join(workspace.dir, 'failed.txt')) && !existsSync(`${workspace.root}.claim.json`));
    expect(existsSync(join(workspace.dir, 'failed.txt'))).toBe(false);
    expect(gitIn(workspace.root!, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}
