import { describe, expect, it } from 'vitest';
import { cutLine } from '../../src/text/cut.js';

describe('cutLine', () => {
  it('should keep a text that fits, whitespace folded', () => {
    expect(cutLine('  two\n words ', 20)).toBe('two words');
  });

  it('should cut at the last whole word, never inside one', () => {
    expect(cutLine('added the currency option to the command line', 20)).toBe('added the currency…');
    expect(cutLine('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghi…');
  });

  it('should leave out a code span the cut would split', () => {
    // The issue's case: "(`EU 2.5 kg: 1…" was cut inside the span.
    const summary = 'prints the weight with its unit (`EU 2.5 kg: 1.00 EUR`) and a total';
    const cut = cutLine(summary, 46);
    expect(cut).toBe('prints the weight with its unit…');
    expect((cut.match(/`/g) ?? []).length % 2).toBe(0);
    expect(cutLine('use `--json` for scripts and `--currency EUR` for money', 40)).toBe('use `--json` for scripts and…');
  });
});
