import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/persistence/journal.js';
import { intentPathOf, rewindPlan, settleInterruptedRewinds, type RewindDeps } from '../../src/rewind/rewind-plan.js';
import { applyRewind, checkRewind } from '../../src/workspace/rewind.js';
import { gitIn, read, tempDirs, userState } from '../workspace/repo.js';
import { aText, endedPlan } from './fixtures.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const undo = (planId: string, more: { steps?: string[]; apply?: boolean } = {}) => ({ planId, steps: more.steps ?? [], direction: 'undo' as const, apply: more.apply ?? false, channel: 'cli' as const });

describe('rewindPlan', () => {
  it("should say what an undo would do and change nothing, then take both steps back and leave the user's own edit, HEAD and the index as they were", async () => {
    const { dir, repo, store, planId } = await endedPlan(dirs);
    const deps: RewindDeps = { store, repo, include: [] };
    const before = userState(dir);

    const dry = await rewindPlan(deps, undo(planId));
    expect(dry.state).toBe('previewed');
    expect(dry.context.chosen).toEqual(['s2', 's1']);
    expect(dry.context.check!.files).toEqual([
      { path: 'a.txt', status: 'modified', added: 2, removed: 2 },
      { path: 'new.txt', status: 'deleted', added: 0, removed: 1 },
    ]);
    expect(read(dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here', 15: 's2 was here' }));
    expect(store.load(planId).undos).toBeUndefined();

    const done = await rewindPlan(deps, undo(planId, { apply: true }));
    expect(done.state).toBe('applied');
    expect(read(dir, 'a.txt')).toBe(aText(20));
    expect(existsSync(join(dir, 'new.txt'))).toBe(false);
    expect(read(dir, 'mine.txt')).toBe('my own uncommitted edit\n');
    const after = userState(dir);
    expect({ index: after.index, head: after.head, refs: after.refs }).toEqual({ index: before.index, head: before.head, refs: before.refs });
    const record = store.load(planId).undos!;
    expect(record).toEqual([{ kind: 'undo', at: expect.any(String), steps: ['s2', 's1'], channel: 'cli', files: dry.context.check!.files, patch_path: expect.stringMatching(/undo-1\.patch$/) }]);
    expect(readJournal(store.journalPathOf(planId)).at(-1)).toMatchObject({ kind: 'rewind', direction: 'undo', steps: ['s2', 's1'], channel: 'cli', files: 2 });
    expect(existsSync(intentPathOf(store, planId))).toBe(false);

    // Taken back already: nothing more to take back; a redo puts it back.
    expect((await rewindPlan(deps, undo(planId))).context.refusal).toEqual({ reason: 'nothing_to_undo' });
    const redo = await rewindPlan(deps, { planId, steps: [], direction: 'redo', apply: true, channel: 'command' });
    expect(redo.state).toBe('applied');
    expect(read(dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here', 15: 's2 was here' }));
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
    expect(store.load(planId).undos!.map((u) => u.kind)).toEqual(['undo', 'redo']);
    expect((await rewindPlan(deps, { ...undo(planId), direction: 'redo' })).context.refusal).toEqual({ reason: 'nothing_to_redo' });
  });

  it('should refuse, naming each file and line, when the user changed a landed line since, and touch nothing', async () => {
    const { dir, repo, store, planId } = await endedPlan(dirs);
    const edited = aText(20, { 5: 's1 was here', 15: 'the user rewrote this' });
    writeFileSync(join(dir, 'a.txt'), edited);
    const report = await rewindPlan({ store, repo, include: [] }, undo(planId, { apply: true }));
    expect(report.state).toBe('refused');
    expect(report.context.refusal).toEqual({ reason: 'changed_since', clashes: [{ step: 's2', path: 'a.txt', line: 12, detail: expect.stringContaining('a.txt') }] });
    expect(read(dir, 'a.txt')).toBe(edited);
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
    expect(store.load(planId).undos).toBeUndefined();
  });

  it('should take a step back only with the steps that depend on it and landed after it', async () => {
    const { dir, repo, store, planId } = await endedPlan(dirs);
    const deps = { store, repo, include: [] };
    expect((await rewindPlan(deps, undo(planId, { steps: ['s1'], apply: true }))).context.refusal).toEqual({ reason: 'dependents', dependents: [{ step: 's2', of: 's1' }] });
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
    expect((await rewindPlan(deps, undo(planId, { steps: ['s9'] }))).context.refusal).toEqual({ reason: 'unknown_steps', steps: ['s9'] });
    // The last step alone may go.
    expect((await rewindPlan(deps, undo(planId, { steps: ['s2'], apply: true }))).state).toBe('applied');
    expect(read(dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here' }));
    expect((await rewindPlan(deps, undo(planId, { steps: ['s2'] }))).context.refusal).toEqual({ reason: 'already_undone', steps: ['s2'] });
    expect((await rewindPlan(deps, undo(planId, { steps: ['s1'], apply: true }))).state).toBe('applied');
    expect(read(dir, 'a.txt')).toBe(aText(20));
  });

  it('should refuse a plan that has not ended, and say without git that nothing was recorded', async () => {
    const running = await endedPlan(dirs, { end: false });
    expect((await rewindPlan({ store: running.store, repo: running.repo, include: [] }, undo(running.planId))).context.refusal).toEqual({ reason: 'plan_not_ended', status: 'in_progress' });
    const ended = await endedPlan(dirs);
    const file = ended.store.load(ended.planId);
    ended.store.save({ ...file, steps: file.steps.map(({ diff: _diff, ...s }) => s) });
    const report = await rewindPlan({ store: ended.store, repo: null, include: [] }, undo(ended.planId));
    expect(report).toMatchObject({ state: 'refused', git: false, context: { refusal: { reason: 'not_recorded', steps: [] } } });
  });

  it('should put every file back as before when a crash cut an undo short, and record one that had changed every file', async () => {
    const { dir, repo, store, planId } = await endedPlan(dirs);
    const deps = { store, repo, include: [] };
    const patches = store.load(planId).steps.map((s) => ({ step: s.id, path: s.diff!.landed!.patch_path! })).reverse();
    const record = { kind: 'undo' as const, steps: ['s2', 's1'], channel: 'cli' as const, files: [], patch_path: join(store.dir, `${planId}.patches`, 'undo-1.patch') };
    const meta = { plan_id: planId, direction: 'undo' as const, steps: ['s2', 's1'], record };

    // Cut short after every file changed, before it was recorded: done, recorded at the next start.
    await applyRewind(repo, intentPathOf(store, planId), meta, await checkRewind(repo, patches, { include: [] }));
    expect(await settleInterruptedRewinds(deps)).toEqual([{ planId, direction: 'undo', steps: ['s2', 's1'], outcome: 'completed', left: [] }]);
    expect(store.load(planId).undos).toHaveLength(1);
    expect(existsSync(intentPathOf(store, planId))).toBe(false);
  });

  it('should put back as before the files an undo cut short had changed', async () => {
    const { dir, repo, store, planId } = await endedPlan(dirs);
    const landed = read(dir, 'a.txt');
    const patches = store.load(planId).steps.map((s) => ({ step: s.id, path: s.diff!.landed!.patch_path! })).reverse();
    const meta = { plan_id: planId, direction: 'undo' as const, steps: ['s2', 's1'], record: { kind: 'undo' as const, steps: ['s2', 's1'], channel: 'cli' as const, files: [], patch_path: 'x' } };
    await applyRewind(repo, intentPathOf(store, planId), meta, await checkRewind(repo, patches, { include: [] }));
    // As if the crash came after a.txt was written and before new.txt was removed.
    writeFileSync(join(dir, 'new.txt'), 'added by s1\n');
    const report = await rewindPlan({ store, repo, include: [] }, undo(planId));
    expect(report.recovered).toEqual({ planId, direction: 'undo', steps: ['s2', 's1'], outcome: 'rolled_back', left: [] });
    expect(read(dir, 'a.txt')).toBe(landed);
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
    expect(store.load(planId).undos).toBeUndefined();
    expect(report.state).toBe('previewed');
    expect(gitIn(dir, 'status', '--porcelain', '--', 'a.txt', 'new.txt', 'mine.txt').replace(/\n$/, '').split('\n').sort()).toEqual([' M a.txt', ' M mine.txt', '?? new.txt']);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('my own uncommitted edit\n');
  });
});
