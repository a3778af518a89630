import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBaseChecks } from '../../src/workspace/base-checks.js';
import { createWorkspaces } from '../../src/workspace/index.js';
import { runChecks } from '../../src/opencode/verify-port.js';
import { gitIn, initRepo, supported, tempDirs, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const signal = new AbortController().signal;
const PLAN = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';

/** A project whose test (`sh test.sh`) fails at its first commit and passes once fixed; base checks over its slots. */
async function project() {
  const dir = initRepo(dirs.make(), { 'test.sh': 'echo "1 failing: greets in $(pwd)"; exit 1\n', 'a.txt': 'a\n' });
  const repo = await supported(dir, dirs.make());
  const first = gitIn(dir, 'rev-parse', 'HEAD').trim();
  writeFiles(dir, { 'test.sh': 'echo "all pass"\n' });
  gitIn(dir, 'commit', '-qam', 'fixed');
  const fixed = gitIn(dir, 'rev-parse', 'HEAD').trim();
  const workspaces = createWorkspaces({ directory: dir, support: { ok: true, ...repo }, patchPathOf: () => join(dirs.make(), 'p.patch'), include: [], setupTimeoutMs: 5_000, keepSlots: 1, log: () => {} });
  let runs = 0;
  const logs: string[] = [];
  const checks = createBaseChecks({
    repo,
    directory: dir,
    openSlotAt: (commit, planId, s) => workspaces.openSlotAt(commit, planId, s),
    run: async (commands, cwd, s) => {
      runs += commands.length;
      return (await runChecks(commands, cwd, 5_000, PLAN, s)).map((c) => ({ command: c.name, passed: c.passed, output: c.output }));
    },
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  return { dir, repo, first, fixed, workspaces, checks, runs: () => runs, logs };
}

describe('the configured checks on a tree of the project', () => {
  it("should run them in a slot at that commit, never in the user's tree, and say the slot's folder as the project's", async () => {
    const p = await project();
    const [before] = await p.checks.of(p.first, ['sh test.sh'], PLAN, signal);
    expect(before).toEqual({ command: 'sh test.sh', passed: false, output: expect.stringContaining(`1 failing: greets in ${p.dir}`) });
    expect(before!.output).not.toContain('slots');
    const [now] = await p.checks.of(p.fixed, ['sh test.sh'], PLAN, signal);
    expect(now).toMatchObject({ passed: true });
    // The user's tree is as it was; the slot went back to the pool.
    expect(gitIn(p.dir, 'status', '--porcelain')).toBe('');
    expect((await p.workspaces.leftovers()).map((s) => s.claim)).toEqual([null]);
  });

  it('should run a command once per tree: later asks, in this process or the next, take what it said', async () => {
    const p = await project();
    const [a, b] = await Promise.all([p.checks.of(p.first, ['sh test.sh'], PLAN, signal), p.checks.of(p.first, ['sh test.sh'], PLAN, signal)]);
    expect(a).toEqual(b);
    expect(p.runs()).toBe(1);
    // Another commit of the same tree: the same result, not run again.
    const sameTree = gitIn(p.dir, 'commit-tree', `${p.first}^{tree}`, '-m', 'same tree').trim();
    await p.checks.of(sameTree, ['sh test.sh'], PLAN, signal);
    expect(p.runs()).toBe(1);
    // The next process finds it on disk.
    const next = createBaseChecks({ repo: p.repo, directory: p.dir, openSlotAt: () => Promise.reject(new Error('no slot wanted')), run: () => Promise.reject(new Error('no run wanted')), log: () => {} });
    expect(await next.of(p.first, ['sh test.sh'], PLAN, signal)).toEqual(a);
    expect(readdirSync(join(p.repo.worktrees, 'base-checks'))).toHaveLength(1);
    // A command not run there yet is run.
    await p.checks.of(p.first, ['sh test.sh', 'true'], PLAN, signal);
    expect(p.runs()).toBe(2);
  });

  it('should forget a run that failed, so the next ask runs it again', async () => {
    const p = await project();
    let fail = true;
    const checks = createBaseChecks({
      repo: p.repo,
      directory: p.dir,
      openSlotAt: (commit, planId, s) => (fail ? Promise.reject(new Error('no slot')) : p.workspaces.openSlotAt(commit, planId, s)),
      run: async (commands, cwd, s) => (await runChecks(commands, cwd, 5_000, PLAN, s)).map((c) => ({ command: c.name, passed: c.passed, output: c.output })),
      log: () => {},
    });
    await expect(checks.of(p.first, ['sh test.sh'], PLAN, signal)).rejects.toThrow('no slot');
    fail = false;
    expect(await checks.of(p.first, ['sh test.sh'], PLAN, signal)).toMatchObject([{ passed: false }]);
    expect(existsSync(join(p.repo.worktrees, 'base-checks'))).toBe(true);
  });
});
