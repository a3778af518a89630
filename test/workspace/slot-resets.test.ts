import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SlotResets } from '../../src/workspace/slot-resets.js';
import { openWorktree, releaseSlot } from '../../src/workspace/worktrees.js';
import { gitIn, initRepo, supported, tempDirs, writeFiles } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SlotResets', () => {
  it("should reset a slot given back once it stayed free for the delay, and wait while a step's slot opens or its changes land (not quiet)", async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const work = await openWorktree(repo, { planId: PLAN, stepId: 'code', attempt: 1, include: [] });
    writeFiles(work.dir, { 'left.txt': 'by the step\n' });
    await releaseSlot(repo, work.root!, PLAN, 'code');
    let quiet = false;
    const logged: string[] = [];
    const resets = new SlotResets(repo, { delayMs: 50, quiet: () => quiet, log: (_level, message) => logged.push(message) });

    resets.givenBack([work.root!]);
    await sleep(300); // six delays: none found the process quiet
    expect(existsSync(join(work.dir, 'left.txt'))).toBe(true);

    quiet = true;
    for (let i = 0; i < 100 && (existsSync(join(work.dir, 'left.txt')) || existsSync(`${work.root}.claim.json`)); i++) await sleep(20);
    expect(existsSync(join(work.dir, 'left.txt'))).toBe(false);
    expect(gitIn(work.root!, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(logged).toEqual([]);
  });

  it('should reset at settle what waits for its delay, quiet or not, and give up waiting after its time', async () => {
    const dir = initRepo(dirs.make());
    const repo = await supported(dir, dirs.make());
    const work = await openWorktree(repo, { planId: PLAN, stepId: 'code', attempt: 1, include: [] });
    writeFiles(work.dir, { 'left.txt': 'by the step\n' });
    await releaseSlot(repo, work.root!, PLAN, 'code');
    const resets = new SlotResets(repo, { delayMs: 60_000, quiet: () => false, log: () => {} });
    resets.givenBack([work.root!]);

    await resets.settle(10_000);
    expect(existsSync(join(work.dir, 'left.txt'))).toBe(false);
    // Ended: a slot given back later is not scheduled, and a settle with nothing to do returns at once.
    resets.givenBack([work.root!]);
    const started = performance.now();
    await resets.settle(5_000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
