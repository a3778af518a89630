import { z } from 'zod';
import { withExample } from './example.js';
import { SpecialistFailureSchema, SpecialistSuccessSchema, SPECIALIST_OUTPUT_TYPES } from './specialist-output.js';
import { toToolJsonSchema } from './json-schema.js';

/**
 * What the verifying turn returns: a specialist's answer (the same shapes, read by the same parser),
 * with examples of a check rather than of a change: it makes no artifacts and no step follows it.
 */
export const VerificationOutputSchema = z.discriminatedUnion(
  'type',
  [
    withExample(SpecialistSuccessSchema, {
      type: 'success',
      summary: 'Every item of the verification list holds',
      artifacts: [],
      key_findings: ['npm test: 14 passing', 'node cli.js --help prints the usage line'],
    }),
    withExample(SpecialistFailureSchema, { type: 'failure', error: 'Each item that does not hold, with what you saw (the failing test, the error line)', cause: 'Why, if you found it' }),
  ],
  {
    error: (issue) => (issue.code === 'invalid_union' ? `expected one of ${SPECIALIST_OUTPUT_TYPES.join('|')}` : undefined),
  },
);

/** JSON Schema for OpenCode's `format: {type: "json_schema", schema}`. */
export function verificationOutputJsonSchema(): Record<string, unknown> {
  return toToolJsonSchema(VerificationOutputSchema);
}
