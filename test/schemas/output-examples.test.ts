import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { PlannerOutputSchema, ReviewOutputSchema, SpecialistOutputSchema, toToolJsonSchema, VerificationOutputSchema } from '../../src/schemas/index.js';

// The examples a model is shown live on the schemas (src/schemas/example.ts): each must be an answer
// the parser takes as it is, or the prompt would teach what the parser rejects.

type Union = z.ZodDiscriminatedUnion<z.ZodObject[]>;
const unions = [
  ['planner output', PlannerOutputSchema],
  ['specialist output', SpecialistOutputSchema],
  ['review output', ReviewOutputSchema],
  ['verification output', VerificationOutputSchema],
] as const;
const variants = unions.flatMap(([name, union]) =>
  (union as unknown as Union).options.map((variant) => [name, (variant.shape.type as z.ZodLiteral<string>).value, variant, union] as const),
);

describe('output examples', () => {
  it.each(variants)('%s "%s" has exactly one example, which the schema accepts unchanged', (_name, type, variant, union) => {
    const examples = variant.meta()?.examples;
    expect(examples).toHaveLength(1);
    const [example] = examples as unknown[];
    expect(example).toMatchObject({ type });
    const parsed = union.safeParse(example);
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toEqual(example);
  });

  it.each(unions)('%s: the structured-output tool schema carries no examples (the prompt shows them)', (_name, union) => {
    expect(JSON.stringify(toToolJsonSchema(union))).not.toContain('"examples"');
  });
});
