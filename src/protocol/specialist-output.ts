import { z } from 'zod';
import { toToolJsonSchema } from './json-schema.js';

export const SpecialistSuccessSchema = z.object({
  type: z.literal('success'),
  summary: z.string().min(1),
  artifacts: z.array(z.string()).describe('Files created or changed, or other things produced'),
  key_findings: z.array(z.string()).optional(),
});

export const SpecialistFailureSchema = z.object({
  type: z.literal('failure'),
  error: z.string().min(1),
  cause: z.string().optional(),
});

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
