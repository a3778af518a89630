import { describe, expect, it } from 'vitest';
import { entryText } from '../../src/notices/journal-words.js';

const at = '2026-01-01T00:00:00.000Z';

describe("the journal's words for a decision at the budget gate", () => {
  it('should name the budget gate, not the dispatch cap: the gate pauses at the money and token budgets too (issue 35.2)', () => {
    expect(entryText({ at, kind: 'event', source: 'command', event: { type: 'budget.continue', text: 'go on' } })).toBe('Continue at the budget gate by slash command: "go on"');
    expect(entryText({ at, kind: 'event', source: 'auto', event: { type: 'budget.stop' } })).toBe('Stop at the budget gate by the auto policy');
  });
});

describe("the journal's words for a step that landed before its measurement", () => {
  it('should say the step is done and its changes are measured meanwhile, then completed with the diff', () => {
    const output = { summary: 'wrote the docs', artifacts: [], key_findings: [] };
    expect(entryText({ at, kind: 'event', source: 'child', event: { type: 'step.landed', stepId: 'docs', output } })).toBe(
      'step docs done in the shared tree, its changes measured meanwhile: "wrote the docs"',
    );
  });
});
