import { z } from 'zod';
import { withExample } from './example.js';
import { toToolJsonSchema } from './json-schema.js';

/**
 * The reviewer's error report: [ERROR-XXX] Category, File, Line, Issue, Found, Expected, Fix
 * (docs/design.md, "The quality gate").
 */
export const ReviewErrorSchema = z.object({
  id: z.string().optional().describe('ERROR-001, ERROR-002, …'),
  category: z.string().min(1).describe('Syntax, Imports, Types, Logic, Style, Security, Criteria'),
  file: z.string().min(1).describe('Exact file path'),
  line: z.number().int().min(0).optional(),
  line_end: z.number().int().min(0).optional().describe('Last line, when the error spans several'),
  issue: z.string().min(1).describe("What's wrong"),
  found: z.string().optional().describe('The problematic code (absent when something is missing)'),
  expected: z.string().optional().describe('What it should be'),
  fix: z.string().min(1).describe('How to fix it'),
});

export const ReviewPassSchema = withExample(z.object({ type: z.literal('pass'), summary: z.string().min(1) }), {
  type: 'pass',
  summary: 'Why the work meets the step and its success criteria',
});
export const ReviewFailSchema = withExample(
  z.object({
    type: z.literal('fail'),
    summary: z.string().optional(),
    errors: z.array(ReviewErrorSchema).min(1),
  }),
  {
    type: 'fail',
    summary: 'What must change',
    errors: [
      {
        id: 'ERROR-001',
        category: 'Logic',
        file: 'src/utils/jwt.ts',
        line: 12,
        issue: 'What is wrong',
        found: 'The problematic code',
        expected: 'What it should be',
        fix: 'How to fix it',
      },
    ],
  },
);

export const REVIEW_OUTPUT_TYPES = ['pass', 'fail'] as const;

/** What the reviewer returns at the quality gate. */
export const ReviewOutputSchema = z.discriminatedUnion('type', [ReviewPassSchema, ReviewFailSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? `expected one of ${REVIEW_OUTPUT_TYPES.join('|')}` : undefined),
});

export type ReviewOutput = z.infer<typeof ReviewOutputSchema>;

export function reviewOutputJsonSchema(): Record<string, unknown> {
  return toToolJsonSchema(ReviewOutputSchema);
}
