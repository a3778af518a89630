import type { z } from 'zod';

/**
 * Attaches the one example of an output variant that a model is shown. It travels in the JSON
 * Schema's `examples` (z.toJSONSchema keeps metadata), so the turn's "# Output protocol" section
 * renders it beside the shape from the same schema the reply is parsed with; test/protocol checks
 * that every example parses, so an example never contradicts the parser.
 */
export function withExample<S extends z.ZodType>(schema: S, example: z.output<S>): S {
  return schema.meta({ examples: [example] });
}
