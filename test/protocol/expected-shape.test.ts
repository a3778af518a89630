import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeExamples, describeFormat, describeShape } from '../../src/protocol/index.js';
import { PlannerOutputSchema, SpecialistOutputSchema } from '../../src/schemas/index.js';

describe('describeShape', () => {
  it('should show one line per planner output type with required and optional fields', () => {
    const lines = describeShape(z.toJSONSchema(PlannerOutputSchema)).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('{"type":"answer","content":string}');
    expect(lines[2]).toContain('"steps":[{"id":string,"agent":"coder"|"tester"|"reviewer"');
    expect(lines[2]).toContain('"depends_on"?:[string]');
    expect(lines[2]).toContain('"relevant_files"?:[string]');
  });

  it('should cut nesting until the shape fits', () => {
    const shape = describeShape(z.toJSONSchema(PlannerOutputSchema), 400);
    expect(shape.length).toBeLessThanOrEqual(400);
    expect(shape).toContain('{…}');
    expect(shape).toContain('"type":"plan"');
  });

  it('should follow local references', () => {
    const schema = {
      type: 'object',
      properties: { step: { $ref: '#/$defs/Step' } },
      required: ['step'],
      $defs: { Step: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    };
    expect(describeShape(schema)).toBe('{"step":{"id":string}}');
  });

  it('should stop at a reference to itself', () => {
    const schema = { $defs: { Loop: { $ref: '#/$defs/Loop' } }, $ref: '#/$defs/Loop' };
    expect(describeShape(schema)).toBe('…');
  });

  it("should show a string's maximum length", () => {
    expect(describeShape(z.toJSONSchema(PlannerOutputSchema)).split('\n')[1]).toContain('"header":string(max 30 chars)');
  });
});

describe('describeExamples', () => {
  it("should give each variant's example as one line of JSON, in the order of the shape's lines", () => {
    const schema = z.toJSONSchema(SpecialistOutputSchema);
    const examples = describeExamples(schema);
    expect(examples).toHaveLength(2);
    expect(examples.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['success', 'failure']);
    expect(describeFormat(schema)).toEqual({ shape: describeShape(schema), examples });
  });

  it('should give nothing for a schema without examples', () => {
    expect(describeExamples({ type: 'object', properties: { id: { type: 'string' } } })).toEqual([]);
    expect(describeExamples(undefined)).toEqual([]);
  });
});
