import { z } from 'zod';

type JsonObject = Record<string, unknown>;

/**
 * JSON Schema for a tool's parameters, which is how OpenCode delivers structured output (the
 * `StructuredOutput` tool). Providers want an object at the root: Anthropic rejects a top-level
 * anyOf/oneOf (https://github.com/anthropics/claude-code/issues/5973), so a union tagged by
 * `type` is flattened into one object whose field descriptions say which type uses them. The
 * zod schema stays the source of truth and enforces the union when the reply is validated.
 */
export function toToolJsonSchema(schema: z.ZodType, discriminator = 'type'): JsonObject {
  const { $schema: _dialect, ...root } = z.toJSONSchema(schema) as JsonObject;
  const variants = root.anyOf ?? root.oneOf;
  if (!Array.isArray(variants)) return root;
  return flattenTaggedUnion(variants, discriminator) ?? root;
}

function flattenTaggedUnion(variants: unknown[], discriminator: string): JsonObject | undefined {
  const tags: string[] = [];
  const schemas = new Map<string, JsonObject[]>();
  const usage = new Map<string, string[]>();

  for (const variant of variants) {
    if (!isObject(variant) || !isObject(variant.properties)) return undefined;
    const tag = variant.properties[discriminator];
    if (!isObject(tag) || typeof tag.const !== 'string') return undefined;
    tags.push(tag.const);
    const required = Array.isArray(variant.required) ? variant.required : [];
    for (const [name, property] of Object.entries(variant.properties)) {
      if (name === discriminator || !isObject(property)) continue;
      const known = schemas.get(name) ?? [];
      if (!known.some((schema) => JSON.stringify(schema) === JSON.stringify(property))) known.push(property);
      schemas.set(name, known);
      const rule = required.includes(name) ? 'required' : 'optional';
      usage.set(name, [...(usage.get(name) ?? []), `${rule} when ${discriminator} is "${tag.const}"`]);
    }
  }

  const properties: Record<string, JsonObject> = {
    [discriminator]: { type: 'string', enum: tags, description: `One of: ${tags.join(', ')}` },
  };
  for (const [name, [first, ...others]] of schemas) {
    const base: JsonObject = others.length === 0 ? { ...first } : { anyOf: [first, ...others] };
    const note = (usage.get(name) ?? []).join('; ');
    const original = typeof base.description === 'string' ? `. ${base.description}` : '';
    properties[name] = { ...base, description: capitalize(note) + original };
  }
  return {
    type: 'object',
    description: `Set "${discriminator}" to one of ${tags.join(', ')} and fill in the fields that type requires.`,
    properties,
    required: [discriminator],
    additionalProperties: false,
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
