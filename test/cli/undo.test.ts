import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aText, endedPlan } from '../rewind/fixtures.js';
import { read, tempDirs } from '../workspace/repo.js';
import { runCli } from './fixtures.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('orca diff, undo and redo', () => {
  it('should print what each step landed as a unified diff git can apply, coloured only on a terminal', async () => {
    const { dir, planId } = await endedPlan(dirs);
    const piped = await runCli(['diff', planId, '--dir', dir]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(new RegExp(`^# ${planId} · s1 \\(coder\\) · landed .* · a\\.txt \\+1 −1, new\\.txt \\+1 −0\\ndiff --git a/a\\.txt b/a\\.txt`));
    expect(piped.stdout).toContain(`# ${planId} · s2 (tester) · landed`);
    expect(piped.stdout).not.toContain('\x1b[');
    // Piped, it is the patches as they are: git takes them back.
    execFileSync('git', ['apply', '-R', '--check', '-'], { cwd: dir, input: piped.stdout });
    const coloured = await runCli(['diff', planId, '--dir', dir], {}, { terminal: true });
    expect(coloured.stdout).toContain('\x1b[32m+s1 was here\x1b[0m');
    expect(coloured.stdout).toContain('\x1b[31m-line 5\x1b[0m');
    const one = await runCli(['diff', planId, '--step', 's2', '--dir', dir]);
    expect(one.stdout).not.toContain('· s1 (coder)');
    expect(await runCli(['diff', planId, '--step', 's9', '--dir', dir])).toMatchObject({ code: 1, stderr: expect.stringContaining('has no step s9; its steps: s1, s2') });
  });

  it('should list without --yes, take back with it, refuse a step without its dependents, and put back with redo', async () => {
    const { dir, store, planId } = await endedPlan(dirs);
    const dry = await runCli(['undo', planId, '--dir', dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`Undo would take the changes of s2, s1 (plan ${planId}) back out of your working tree:`);
    expect(dry.stdout).toContain("  modified  a.txt    +2 −2\n  deleted   new.txt  +0 −1\n");
    expect(dry.stdout).toContain('  modified  a.txt    +2 −2\n  deleted   new.txt  +0 −1\n');
    expect(read(dir, 'new.txt')).toBe('added by s1\n');

    const alone = await runCli(['undo', planId, '--step', 's1', '--yes', '--dir', dir]);
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain('s1 cannot be taken back without s2: s2 depends on it and landed after it.');
    expect(alone.stdout).toContain(`To take them back together: orca undo ${planId} --step s1 --step s2.`);

    const done = await runCli(['undo', planId, '--step', 's1', '--step', 's2', '--yes', '--dir', dir]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`Took the changes of s2, s1 (plan ${planId}) back out of your working tree: 2 files.`);
    expect(done.stdout).toContain(`To put them back: orca redo ${planId} --yes.`);
    expect(read(dir, 'a.txt')).toBe(aText(20));
    expect(existsSync(join(dir, 'new.txt'))).toBe(false);
    expect(read(dir, 'mine.txt')).toBe('my own uncommitted edit\n');
    expect((await runCli(['diff', planId, '--dir', dir])).stdout).toContain(`· s1 (coder) · taken back by an undo at`);
    const shown = (await runCli(['show', planId, '--dir', dir])).stdout;
    expect(shown).toContain('undo: took the changes of s2, s1 back out of your working tree (2 files, with orca undo)');
    expect(shown).toMatch(/Undone and redone\n {2}\S+ \S+ {2}took back s2, s1 \(2 files\) via cli; patch: .*undo-1\.patch/);
    expect(shown).toMatch(/ {6}landed in your working tree at \S+ \S+ \(orca diff shows it\)/);

    const redo = await runCli(['redo', planId, '--yes', '--dir', dir]);
    expect(redo).toMatchObject({ code: 0, stdout: expect.stringContaining(`Put the changes of s2, s1 (plan ${planId}) back in your working tree: 2 files.`) });
    expect(read(dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here', 15: 's2 was here' }));
    expect(store.load(planId).undos!.map((u) => [u.kind, u.channel])).toEqual([
      ['undo', 'cli'],
      ['redo', 'cli'],
    ]);
  });

  it('should refuse with exit 1, touching nothing, when a landed line changed since; and exit 2 on a bad call', async () => {
    const { dir, planId } = await endedPlan(dirs);
    writeFileSync(join(dir, 'a.txt'), aText(20, { 5: 'the user was here', 15: 's2 was here' }));
    const refused = await runCli(['undo', planId, '--yes', '--dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('Nothing changed: these lines changed since the plan landed them, so the undo does not apply cleanly:');
    expect(refused.stdout).toMatch(/ {2}a\.txt:2 \(step s1\): patch failed: a\.txt:2/);
    expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('added by s1\n');
    expect((await runCli(['undo', 'plan_nope', '--dir', dir])).code).toBe(2);
    expect((await runCli(['redo', planId, '--step', 's1', '--dir', dir])).stderr).toContain('orca redo does not take --step');
    expect((await runCli(['decide', planId, 'approve', '--step', 'a', '--step', 'b', '--dir', dir])).stderr).toContain('orca decide takes one --step, got 2: a, b.');
  });
});
