import { describe, expect, it } from 'vitest';
import { isOrcaWorktree, stepWorktreeOf } from '../../src/passive/detect.js';

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';
const STEP = { planId: PLAN, stepId: 'impl_api-2', attempt: 3 };

describe('stepWorktreeOf', () => {
  describe('a worktree under the git common dir', () => {
    const root = `/home/ana/app/.git/orca-worktrees/${PLAN}/impl_api-2.3`;

    it('should find the step attempt at the worktree root, with or without a trailing slash', () => {
      expect(stepWorktreeOf(root)).toEqual(STEP);
      expect(stepWorktreeOf(`${root}/`)).toEqual(STEP);
    });

    it('should find it from any folder below the root (a project in a subfolder of the repository)', () => {
      expect(stepWorktreeOf(`${root}/packages/web`)).toEqual(STEP);
      expect(stepWorktreeOf(`${root}/packages/./web/../web`)).toEqual(STEP);
    });

    it('should find it whatever the common dir is called (a bare or separate git dir)', () => {
      expect(stepWorktreeOf(`/srv/git/app.git/orca-worktrees/${PLAN}/impl_api-2.3`)).toEqual(STEP);
    });

    it('should read Windows paths', () => {
      expect(stepWorktreeOf(`C:\\Users\\ana\\app\\.git\\orca-worktrees\\${PLAN}\\impl_api-2.3\\src`)).toEqual(STEP);
    });
  });

  describe('a worktree under $XDG_DATA_HOME', () => {
    const root = `/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/${PLAN}/impl_api-2.3`;

    it('should find the step attempt at the root and below it', () => {
      expect(stepWorktreeOf(root)).toEqual(STEP);
      expect(stepWorktreeOf(`${root}/packages/web`)).toEqual(STEP);
    });

    it('should find it under any data home', () => {
      expect(stepWorktreeOf(`/tmp/xdg/opencode-orca/worktrees/fedcba987654/${PLAN}/a.1`)).toEqual({ planId: PLAN, stepId: 'a', attempt: 1 });
    });
  });

  describe('near misses', () => {
    it.each([
      ['the project directory itself', '/home/ana/app'],
      ['the git common dir', '/home/ana/app/.git'],
      ['the folder of all worktrees', '/home/ana/app/.git/orca-worktrees'],
      ["a plan's folder, above its steps' worktrees", `/home/ana/app/.git/orca-worktrees/${PLAN}`],
      ['a plan id that is no ULID', '/home/ana/app/.git/orca-worktrees/plan_01JZ8X6Q4V3M2N1P0R9S8T7W6I/impl.1'],
      ['a plan id in lower case', `/home/ana/app/.git/orca-worktrees/${PLAN.toLowerCase()}/impl.1`],
      ['a short plan id', '/home/ana/app/.git/orca-worktrees/plan_01JZ8X6Q4V/impl.1'],
      ['a step without its attempt', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl`],
      ['attempt 0', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl.0`],
      ['an attempt with a leading zero', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl.01`],
      ['an attempt that is no integer', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl.1.5`],
      ['a step id with a character outside [A-Za-z0-9_-]', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl step.1`],
      ['a folder between the plan and the step', `/home/ana/app/.git/orca-worktrees/${PLAN}/x/impl.1`],
      ['a similar folder name', `/home/ana/app/.git/orca-worktree/${PLAN}/impl.1`],
      ['the data home without its repository key', `/home/ana/.local/share/opencode-orca/worktrees/${PLAN}/impl.1`],
      ['a repository key of 11 hex', `/home/ana/.local/share/opencode-orca/worktrees/0123456789a/${PLAN}/impl.1`],
      ['a repository key that is no hex', `/home/ana/.local/share/opencode-orca/worktrees/0123456789ag/${PLAN}/impl.1`],
      ["OpenCode's own worktrees", '/home/ana/.local/share/opencode/worktree/abc123/feature-x'],
      ['a path that leaves the worktree with ..', `/home/ana/app/.git/orca-worktrees/${PLAN}/impl.1/../..`],
      ['an empty string', ''],
    ])('should not take %s for a step worktree', (_what, directory) => {
      expect(stepWorktreeOf(directory)).toBeNull();
    });
  });
});

describe('isOrcaWorktree', () => {
  it('should know a worktree slot, at its root and below it, under any data home', () => {
    const root = '/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/slots/3';
    for (const dir of [root, `${root}/`, `${root}/packages/web`, '/tmp/xdg/opencode-orca/worktrees/fedcba987654/slots/12']) expect(isOrcaWorktree(dir)).toBe(true);
  });

  it("should know a step's own worktree of versions before slots", () => {
    expect(isOrcaWorktree(`/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/${PLAN}/impl_api-2.3`)).toBe(true);
  });

  it.each([
    ['the slots folder itself', '/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/slots'],
    ['slot 0', '/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/slots/0'],
    ['a slot that is no number', '/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/slots/a1'],
    ['slots without the repository key', '/home/ana/.local/share/opencode-orca/worktrees/slots/1'],
    ['the index folder', '/home/ana/.local/share/opencode-orca/worktrees/0123456789ab/index'],
    ['the project directory', '/home/ana/app'],
  ])('should not take %s for one', (_, dir) => {
    expect(isOrcaWorktree(dir)).toBe(false);
  });
});
