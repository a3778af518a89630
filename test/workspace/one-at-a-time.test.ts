import { describe, expect, it } from 'vitest';
import { sharedNextIn } from '../../src/workspace/one-at-a-time.js';

/** A run the test finishes by hand, numbered in the order runs started. */
function runs() {
  const started: Array<{ n: number; finish: (value: string) => void; fail: (error: Error) => void }> = [];
  const run = () =>
    new Promise<string>((resolve, reject) => {
      const n = started.length + 1;
      started.push({ n, finish: resolve, fail: reject });
    });
  return { started, run };
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('sharedNextIn: calls while one runs share the next, started after they asked', () => {
  it('should run once for a lone caller, and again for the next one after it settled', async () => {
    const { started, run } = runs();
    const shared = sharedNextIn<string>(new Map());
    const first = shared('tree', run);
    expect(started).toHaveLength(1);
    started[0]!.finish('one');
    await expect(first).resolves.toBe('one');
    const second = shared('tree', run);
    await tick();
    expect(started).toHaveLength(2);
    started[1]!.finish('two');
    await expect(second).resolves.toBe('two');
  });

  it('should give every caller that asked while a run was going the same next run, started only once that run settled', async () => {
    const { started, run } = runs();
    const shared = sharedNextIn<string>(new Map());
    const first = shared('tree', run);
    const [a, b, c] = [shared('tree', run), shared('tree', run), shared('tree', run)];
    await tick();
    // Still one run: the next waits for the first to end (it must see the tree after they asked).
    expect(started).toHaveLength(1);
    started[0]!.finish('first');
    await expect(first).resolves.toBe('first');
    await tick();
    expect(started).toHaveLength(2);
    // A caller arriving once the next has started gets a run of its own, after it.
    const late = shared('tree', run);
    started[1]!.finish('next');
    expect(await Promise.all([a, b, c])).toEqual(['next', 'next', 'next']);
    await tick();
    expect(started).toHaveLength(3);
    started[2]!.finish('late');
    await expect(late).resolves.toBe('late');
  });

  it('should start the next run after a failed one, and keep keys apart', async () => {
    const { started, run } = runs();
    const shared = sharedNextIn<string>(new Map());
    const first = shared('a', run);
    const other = shared('b', run);
    const next = shared('a', run);
    expect(started).toHaveLength(2); // a and b run at once
    started[0]!.fail(new Error('git failed'));
    await expect(first).rejects.toThrow('git failed');
    await tick();
    expect(started).toHaveLength(3);
    started[2]!.finish('a again');
    started[1]!.finish('b');
    await expect(next).resolves.toBe('a again');
    await expect(other).resolves.toBe('b');
  });
});
