import { describe, expect, it } from 'vitest';
import { reviewErrorsText } from '../../src/machines/step-text.js';
import { ReviewOutputSchema, reviewOutputJsonSchema } from '../../src/schemas/index.js';

const missingTest = { category: 'Criteria', file: 'test/a.test.ts', line: 8, line_end: 10, issue: 'No test for the empty list', fix: 'Add one' };

describe('ReviewOutputSchema', () => {
  it('should accept an error without found or expected (a missing test has nothing found), with a line range', () => {
    expect(ReviewOutputSchema.safeParse({ type: 'fail', errors: [missingTest] }).success).toBe(true);
    const error = (reviewOutputJsonSchema().properties as Record<string, { items?: { required?: string[]; properties?: object } }>).errors?.items;
    expect(error?.required).toEqual(['category', 'file', 'issue', 'fix']);
    expect(Object.keys(error?.properties ?? {})).toContain('line_end');
  });

  it('should keep a line a whole number', () => {
    expect(ReviewOutputSchema.safeParse({ type: 'fail', errors: [{ ...missingTest, line: '8' }] }).success).toBe(false);
  });

  it("should put an error in the fixer's words without the fields the reviewer left out", () => {
    const text = reviewErrorsText([missingTest]);
    expect(text).toBe('[ERROR-001] Criteria\n├── File: test/a.test.ts\n├── Line: 8-10\n├── Issue: No test for the empty list\n└── Fix: Add one');
    expect(reviewErrorsText([{ ...missingTest, found: 'x', expected: 'y' }])).toContain('├── Found: x\n├── Expected: y\n└── Fix: Add one');
  });
});
