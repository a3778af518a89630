import { describe, expect, it } from 'vitest';
import { entryText } from '../../src/notices/journal-words.js';

const at = '2026-01-01T00:00:00.000Z';

describe("the journal's words for a decision at the budget gate", () => {
  it('should name the budget gate, not the dispatch cap: the gate pauses at the money and token budgets too (issue 35.2)', () => {
    expect(entryText({ at, kind: 'event', source: 'command', event: { type: 'budget.continue', text: 'go on' } })).toBe('Continue at the budget gate by slash command: "go on"');
    expect(entryText({ at, kind: 'event', source: 'auto', event: { type: 'budget.stop' } })).toBe('Stop at the budget gate by the auto policy');
  });
});
