import { describe, expect, it } from 'vitest';
import { findRootSession } from '../../../src/hitl/native-question/root-session.js';

/** A fake session store: id → parent id (undefined for a root). */
function parents(tree: Record<string, string | undefined>) {
  const calls: string[] = [];
  const parentOf = async (id: string) => {
    calls.push(id);
    if (!(id in tree)) throw new Error(`no session ${id}`);
    return tree[id];
  };
  return { parentOf, calls };
}

describe('findRootSession', () => {
  const tree = { root: undefined, child: 'root', grandchild: 'child', great: 'grandchild' };

  it.each([
    ['root', 'root'],
    ['child', 'root'],
    ['grandchild', 'root'],
    ['great', 'root'],
  ])('should walk from %s up to %s', async (from, root) => {
    expect(await findRootSession(parents(tree).parentOf, from)).toBe(root);
  });

  it('should read each session once on the way up', async () => {
    const fake = parents(tree);
    await findRootSession(fake.parentOf, 'great');
    expect(fake.calls).toEqual(['great', 'grandchild', 'child', 'root']);
  });

  it('should fail on an unknown session', async () => {
    await expect(findRootSession(parents(tree).parentOf, 'ghost')).rejects.toThrow(/no session ghost/);
  });

  it('should fail on a cycle instead of looping', async () => {
    await expect(findRootSession(parents({ a: 'b', b: 'a' }).parentOf, 'a')).rejects.toThrow(/its own ancestor/);
  });

  it('should give up on an absurdly deep chain', async () => {
    const deep = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${i}`, i === 99 ? undefined : `s${i + 1}`]));
    await expect(findRootSession(parents(deep).parentOf, 's0')).rejects.toThrow(/within 64 levels/);
  });
});
