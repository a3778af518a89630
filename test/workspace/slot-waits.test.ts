import { describe, expect, it } from 'vitest';
import { SlotWaits } from '../../src/workspace/slot-waits.js';

describe('SlotWaits', () => {
  it("should tell each follower of a step its wait at once when known, then each change, and no other step's", () => {
    const waits = new SlotWaits();
    const a: boolean[] = [];
    const b: boolean[] = [];
    waits.follow('p:a', (w) => a.push(w));
    waits.set('p:a', true);
    waits.set('p:a', true); // no change: not told again
    waits.follow('p:b', (w) => b.push(w));
    const late: boolean[] = [];
    const stop = waits.follow('p:a', (w) => late.push(w));
    waits.set('p:a', false);
    stop();
    waits.set('p:a', true);
    expect(a).toEqual([true, false, true]);
    expect(late).toEqual([true, false]);
    expect(b).toEqual([]);
  });

  it('should go on telling the others when a follower throws, and forget a cleared step', () => {
    const waits = new SlotWaits();
    const told: boolean[] = [];
    waits.follow('p:a', () => {
      throw new Error('observer broke');
    });
    waits.follow('p:a', (w) => told.push(w));
    expect(() => waits.set('p:a', true)).not.toThrow();
    expect(told).toEqual([true]);
    waits.clear('p:a');
    const fresh: boolean[] = [];
    waits.follow('p:a', (w) => fresh.push(w));
    expect(fresh).toEqual([]);
  });
});
