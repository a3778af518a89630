import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { measure } from '../../src/workspace/diff.js';
import { GitError } from '../../src/workspace/git.js';
import { conflictRegions, mergeStep, parseMergeTree } from '../../src/workspace/merge.js';
import { userIndexPath } from '../../src/workspace/snapshot.js';
import { mergedFile, openWorktree } from '../../src/workspace/worktrees.js';
import { gitIn, initRepo, read, supported, tempDirs, userState, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const edit = (text: string, line: number, to: string) => text.replace(`line ${line}\n`, `${to}\n`);

async function setUp(files: Record<string, string | Buffer>, project = '') {
  const dir = initRepo(dirs.make(), files);
  const repo = await supported(join(dir, project), dirs.make());
  const workspace = await openWorktree(repo, { planId: 'plan_1', stepId: 'code', attempt: 1, include: [] });
  const patchPath = join(dirs.make(), 'code.patch');
  const merge = (more: Partial<Parameters<typeof mergeStep>[1]> = {}) =>
    mergeStep(repo, { idempotencyKey: 'plan_1:code:1:merge', planId: 'plan_1', stepId: 'code', attempt: 1, workspace, declared: [], include: [], patchPath, ...more });
  return { dir, repo, workspace, merge, patchPath };
}

describe('mergeStep', () => {
  it("should land the step's change beside the user's own edit in the same file, unstaged, with no commit, and give its slot back", async () => {
    const { dir, workspace, merge } = await setUp({ 'f.txt': lines(20) });
    writeFileSync(join(workspace.dir, 'f.txt'), edit(lines(20), 10, 'step was here'));
    writeFileSync(join(dir, 'f.txt'), edit(lines(20), 18, 'user was here'));
    const before = userState(dir);

    const outcome = await merge();

    expect(outcome).toMatchObject({ type: 'merged', diff: { files: [{ path: 'f.txt', status: 'modified', added: 1, removed: 1 }] } });
    expect(read(dir, 'f.txt')).toBe(edit(edit(lines(20), 10, 'step was here'), 18, 'user was here'));
    const after = userState(dir);
    expect({ index: after.index, head: after.head, refs: after.refs }).toEqual({ index: before.index, head: before.head, refs: before.refs });
    expect(gitIn(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(existsSync(`${workspace.root}.claim.json`)).toBe(false);
    expect(existsSync(workspace.root!)).toBe(true);
  });

  it('should keep what landed: the patch as it is, or the three-way merge\'s result beside it, whose reverse takes back only the step\'s change', async () => {
    const { dir, workspace, merge, patchPath } = await setUp({ 'f.txt': lines(20) });
    writeFileSync(join(workspace.dir, 'f.txt'), edit(lines(20), 10, 'step was here'));
    // The user's edit is in the step's hunk's context: the patch does not apply as it is, git merges.
    writeFileSync(join(dir, 'f.txt'), edit(lines(20), 12, 'user was here'));
    const outcome = await merge();
    if (outcome.type !== 'merged') throw new Error('expected a merge');
    const landed = outcome.diff.landed!;
    expect(landed).toEqual({ at: expect.any(String), patch_path: patchPath.replace(/\.patch$/, '.landed.patch'), files: [{ path: 'f.txt', status: 'modified', added: 1, removed: 1 }] });
    expect(readFileSync(landed.patch_path!, 'utf8')).toContain('+step was here');
    execFileSync('git', ['apply', '-R', landed.patch_path!], { cwd: dir });
    expect(read(dir, 'f.txt')).toBe(edit(lines(20), 12, 'user was here'));
  });

  it("should apply the step's patch as it is when the files it touches are as the step found them, without reading the rest of the user's tree", async () => {
    const { dir, repo, workspace, merge } = await setUp({ 'f.txt': lines(5), 'g.txt': 'g\n' });
    writeFileSync(join(workspace.dir, 'f.txt'), edit(lines(5), 2, 'step'));
    writeFiles(dir, { 'g.txt': 'user\n', 'mine.txt': 'untracked\n' });
    const kept = readFileSync(userIndexPath(repo));

    expect(await merge()).toMatchObject({ type: 'merged' });

    expect([read(dir, 'f.txt'), read(dir, 'g.txt'), read(dir, 'mine.txt')]).toEqual([edit(lines(5), 2, 'step'), 'user\n', 'untracked\n']);
    // No three-way merge: Orca's index of the user's tree (which would have taken in g.txt and mine.txt) was not used.
    expect(readFileSync(userIndexPath(repo))).toEqual(kept);
  });

  it('should land what was measured after the last turn, not what changed in the worktree since', async () => {
    const { dir, repo, workspace, merge, patchPath } = await setUp({ 'f.txt': 'a\n' });
    writeFileSync(join(workspace.dir, 'f.txt'), 'reviewed\n');
    const measured = await measure(repo, { planId: 'plan_1', stepId: 'code', attempt: 1, workspace, declared: [], include: [], patchPath });
    writeFileSync(join(workspace.dir, 'f.txt'), 'changed after the review\n');

    expect(await merge({ measured })).toEqual({ type: 'merged', diff: { ...measured, landed: { at: expect.any(String), patch_path: measured.patch_path } } });
    expect(read(dir, 'f.txt')).toBe('reviewed\n');
  });

  it('should land new, deleted, renamed, binary and executable files, and nothing of the state folders', async () => {
    const { dir, workspace, merge } = await setUp({ 'app/old.txt': 'old\n', 'app/moved.txt': lines(30), 'app/img.bin': Buffer.from([0, 1, 2]), 'app/run.sh': 'echo\n' }, 'app');
    const at = workspace.dir;
    writeFiles(at, { 'src/new.ts': 'export const x = 1;\n', 'img.bin': Buffer.from([0, 255, 0, 7]), '.opencode/plans/plan_1.json': '{"forged":true}\n' });
    rmSync(join(at, 'old.txt'));
    execFileSync('mv', [join(at, 'moved.txt'), join(at, 'renamed.txt')]);
    execFileSync('chmod', ['+x', join(at, 'run.sh')]);

    expect(await merge()).toMatchObject({ type: 'merged' });

    const app = join(dir, 'app');
    expect(read(app, 'src/new.ts')).toBe('export const x = 1;\n');
    expect(existsSync(join(app, 'old.txt'))).toBe(false);
    expect(read(app, 'renamed.txt')).toBe(lines(30));
    expect(existsSync(join(app, 'moved.txt'))).toBe(false);
    expect(readFileSync(join(app, 'img.bin'))).toEqual(Buffer.from([0, 255, 0, 7]));
    expect(statSync(join(app, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(join(app, '.opencode/plans/plan_1.json'))).toBe(false);
    expect(gitIn(dir, 'status', '--porcelain')).toBe(' M app/img.bin\n D app/moved.txt\n D app/old.txt\n M app/run.sh\n?? app/renamed.txt\n?? app/src/\n');
  });

  it('should find the changes already there on a second call, and not apply them twice', async () => {
    const { dir, workspace, merge } = await setUp({ 'f.txt': 'a\n' });
    writeFileSync(join(workspace.dir, 'f.txt'), 'a\nappended\n');
    const first = await merge();

    const second = await merge();

    expect(second).toEqual(first);
    expect(read(dir, 'f.txt')).toBe('a\nappended\n');
  });

  it('should find the changes already there when a crash came after they landed and before it recorded that', async () => {
    const { dir, repo, workspace, merge, patchPath } = await setUp({ 'f.txt': 'a\n', 'img.bin': Buffer.from([0, 1]) });
    writeFiles(workspace.dir, { 'f.txt': 'a\nappended\n', 'added.txt': 'new\n', 'img.bin': Buffer.from([0, 2, 0]) });
    // The first call got as far as applying: do that part by hand, with the mark it leaves while landing.
    await measure(repo, { planId: 'plan_1', stepId: 'code', attempt: 1, workspace, declared: [], include: [], patchPath });
    const landing = `${mergedFile(repo, 'plan_1', 'code', 1)}.landing`;
    writeFiles(dirname(landing), { [basename(landing)]: '' });
    execFileSync('git', ['apply', patchPath], { cwd: dir });

    expect(await merge()).toMatchObject({ type: 'merged' });
    expect(existsSync(landing)).toBe(false);
    expect(existsSync(mergedFile(repo, 'plan_1', 'code', 1))).toBe(true);
    expect(read(dir, 'f.txt')).toBe('a\nappended\n');
    expect(read(dir, 'added.txt')).toBe('new\n');
    expect(readFileSync(join(dir, 'img.bin'))).toEqual(Buffer.from([0, 2, 0]));
    expect(existsSync(`${workspace.root}.claim.json`)).toBe(false);
  });

  it("should report a clash with its regions and git's word on a deleted file, and leave the user's tree as it was", async () => {
    const { dir, workspace, merge } = await setUp({ 'app/f.txt': lines(10), 'app/g.txt': 'g\n' }, 'app');
    writeFileSync(join(workspace.dir, 'f.txt'), edit(lines(10), 5, 'step says five'));
    rmSync(join(workspace.dir, 'g.txt'));
    writeFiles(dir, { 'app/f.txt': edit(lines(10), 5, 'user says five'), 'app/g.txt': 'g edited\n' });
    const before = { ...userState(dir), f: read(dir, 'app/f.txt'), g: read(dir, 'app/g.txt') };

    const outcome = await merge();

    expect(outcome).toEqual({
      type: 'conflict',
      diff: expect.objectContaining({ files: expect.any(Array) }),
      conflicts: [
        { path: 'f.txt', hunks: ['<<<<<<< your working tree\nuser says five\n=======\nstep says five\n>>>>>>> step code'] },
        { path: 'g.txt', hunks: [expect.stringMatching(/^CONFLICT \(modify\/delete\): app\/g.txt deleted in step code and modified in your working tree/)] },
      ],
    });
    expect({ ...userState(dir), f: read(dir, 'app/f.txt'), g: read(dir, 'app/g.txt') }).toEqual(before);
    expect(existsSync(`${workspace.root}.claim.json`)).toBe(true);
  });

  it("should report a merge that does not apply to the user's tree as a clash with git's error, and change nothing", async () => {
    const { dir, workspace, merge } = await setUp({ '.gitignore': 'local.cfg\n', 'a.txt': 'a\n' });
    writeFiles(dir, { 'local.cfg': 'user secret\n' });
    // The step stops ignoring the file and adds its own: git saw no such file in the user's tree.
    writeFiles(workspace.dir, { '.gitignore': '', 'local.cfg': 'step default\n', 'a.txt': 'b\n' });

    const outcome = await merge();

    expect(outcome).toEqual({
      type: 'conflict',
      diff: expect.objectContaining({ base: workspace.base }),
      conflicts: [],
      error: expect.stringMatching(/^The merged changes did not apply to your working tree .*local\.cfg: already exists in working directory/s),
    });
    expect([read(dir, '.gitignore'), read(dir, 'local.cfg'), read(dir, 'a.txt')]).toEqual(['local.cfg\n', 'user secret\n', 'a\n']);
  });

  it('should merge in a repository with no commit yet', async () => {
    const { dir, workspace, merge } = await setUp({});
    writeFiles(dir, { 'mine.txt': 'user\n' });
    writeFiles(workspace.dir, { 'theirs.txt': 'step\n' });
    expect(await merge()).toMatchObject({ type: 'merged' });
    expect([read(dir, 'mine.txt'), read(dir, 'theirs.txt')]).toEqual(['user\n', 'step\n']);
  });

  it('should reject when the worktree is gone and nothing records the merge', async () => {
    const { workspace, merge } = await setUp({ 'f.txt': 'a\n' });
    rmSync(workspace.root!, { recursive: true });
    await expect(merge()).rejects.toThrow(GitError);
    await expect(merge()).rejects.toThrow(/worktree .* is gone and nothing records its changes as landed/);
  });
});

describe('parseMergeTree', () => {
  it("should read git 2.39's -z output: tree, conflicted paths, then the messages", () => {
    const output = [
      'fa447a80133357e1e5d7682e39ab9b4b682b273f',
      'bin',
      'f.txt',
      'g.txt',
      '',
      '1', 'bin', 'Auto-merging', 'Auto-merging bin\n',
      '1', 'bin', 'CONFLICT (contents)', 'CONFLICT (content): Merge conflict in bin\n',
      '1', 'g.txt', 'CONFLICT (modify/delete)', 'CONFLICT (modify/delete): g.txt deleted in e37f518 and modified in 1fc4a05.  Version 1fc4a05 of g.txt left in tree.\n',
      '',
    ].join('\0');
    const parsed = parseMergeTree(output, { e37f518: 'the step', '1fc4a05': 'yours' });
    expect(parsed).toEqual({
      tree: 'fa447a80133357e1e5d7682e39ab9b4b682b273f',
      conflicted: ['bin', 'f.txt', 'g.txt'],
      messages: new Map([
        ['bin', ['CONFLICT (content): Merge conflict in bin']],
        ['g.txt', ['CONFLICT (modify/delete): g.txt deleted in the step and modified in yours.  Version yours of g.txt left in tree.']],
      ]),
    });
  });

  it('should read a clean merge as a tree alone', () => {
    expect(parseMergeTree('2c3c9896d640204cfe7a54b5334e9db14dbb9c7e\0\0' + '1\0f.txt\0Auto-merging\0Auto-merging f.txt\n\0')).toEqual({
      tree: '2c3c9896d640204cfe7a54b5334e9db14dbb9c7e',
      conflicted: [],
      messages: new Map(),
    });
  });
});

describe('conflictRegions', () => {
  it('should keep at most five regions, each cut to forty lines with both markers', () => {
    const region = (body: number) => ['<<<<<<< ours', ...Array.from({ length: body }, (_, i) => `x${i}`), '>>>>>>> theirs'].join('\n');
    const text = ['top', region(100), ...Array.from({ length: 6 }, () => region(1))].join('\nmiddle\n');
    const regions = conflictRegions(text);
    expect(regions).toHaveLength(5);
    const long = regions[0]!.split('\n');
    expect(long).toHaveLength(40);
    expect(long[0]).toBe('<<<<<<< ours');
    expect(long[20]).toBe('[… 63 lines cut]');
    expect(long.at(-1)).toBe('>>>>>>> theirs');
    expect(regions[1]).toBe('<<<<<<< ours\nx0\n>>>>>>> theirs');
  });
});
