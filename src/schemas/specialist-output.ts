import { z } from 'zod';
import { withExample } from './example.js';
import { toToolJsonSchema } from './json-schema.js';

export const SpecialistSuccessSchema = withExample(
  z.object({
    type: z.literal('success'),
    summary: z.string().min(1),
    artifacts: z.array(z.string()).describe('Files created or changed, or other things produced'),
    key_findings: z.array(z.string()).optional(),
  }),
  {
    type: 'success',
    summary: 'What you did, in one or two sentences',
    artifacts: ['src/files/you/created-or-changed.ts'],
    key_findings: ['Facts the following steps need'],
  },
);

export const SpecialistFailureSchema = withExample(
  z.object({
    type: z.literal('failure'),
    error: z.string().min(1),
    cause: z.string().optional(),
  }),
  { type: 'failure', error: 'What went wrong', cause: 'Why, if known' },
);

export const SPECIALIST_OUTPUT_TYPES = ['success', 'failure'] as const;

/** What a specialist returns when it finishes a plan step. */
export const SpecialistOutputSchema = z.discriminatedUnion(
  'type',
  [SpecialistSuccessSchema, SpecialistFailureSchema],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `expected one of ${SPECIALIST_OUTPUT_TYPES.join('|')}` : undefined,
  },
);

export type SpecialistSuccess = z.infer<typeof SpecialistSuccessSchema>;
export type SpecialistFailure = z.infer<typeof SpecialistFailureSchema>;
export type SpecialistOutput = z.infer<typeof SpecialistOutputSchema>;

/** JSON Schema for OpenCode's `format: {type: "json_schema", schema}`. */
export function specialistOutputJsonSchema(): Record<string, unknown> {
  return toToolJsonSchema(SpecialistOutputSchema);
}
