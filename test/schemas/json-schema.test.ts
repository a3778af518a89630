import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SPECIALIST_AGENTS,
  plannerOutputJsonSchema,
  specialistOutputJsonSchema,
  toToolJsonSchema,
} from '../../src/schemas/index.js';

type Schema = Record<string, any>;

describe.each([
  ['planner', plannerOutputJsonSchema, ['answer', 'question', 'plan']],
  ['specialist', specialistOutputJsonSchema, ['success', 'failure']],
] as const)('%s output JSON schema', (_name, build, types) => {
  const schema: Schema = build();

  it('should be a plain JSON object schema at the root, as tool parameters must be', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(schema.type).toBe('object');
    expect(schema).not.toHaveProperty('anyOf');
    expect(schema).not.toHaveProperty('oneOf');
    expect(schema).not.toHaveProperty('$schema');
    expect(JSON.stringify(schema)).not.toContain('$ref');
  });

  it('should require the type and list every allowed type', () => {
    expect(schema.required).toEqual(['type']);
    expect(schema.properties.type.enum).toEqual(types);
  });
});

describe('plannerOutputJsonSchema', () => {
  const schema: Schema = plannerOutputJsonSchema();

  it('should say which type each field belongs to', () => {
    expect(schema.properties.content.description).toBe('Required when type is "answer"');
    expect(schema.properties.relevant_files.description).toBe('Optional when type is "plan"');
  });

  it('should keep the nested constraints of steps and questions', () => {
    const stepSchema = schema.properties.steps.items;
    expect(stepSchema.properties.agent.enum).toEqual([...SPECIALIST_AGENTS]);
    expect(stepSchema.required).toEqual(['id', 'agent', 'description']);
    expect(schema.properties.questions.items.properties.header.maxLength).toBe(30);
  });
});

describe('toToolJsonSchema', () => {
  it('should leave a plain object schema as it is', () => {
    const schema = toToolJsonSchema(z.object({ a: z.string() }));
    expect(schema).toMatchObject({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it('should offer both schemas of a field that two types define differently', () => {
    const schema: Schema = toToolJsonSchema(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('x'), value: z.string() }),
        z.object({ type: z.literal('y'), value: z.number() }),
      ]),
    );
    expect(schema.properties.value.anyOf).toEqual([{ type: 'string' }, { type: 'number' }]);
    expect(schema.properties.value.description).toBe('Required when type is "x"; required when type is "y"');
  });
});
