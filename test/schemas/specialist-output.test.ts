import { describe, expect, it } from 'vitest';
import { SpecialistOutputSchema } from '../../src/schemas/index.js';

describe('SpecialistOutputSchema', () => {
  it('should accept a success with artifacts and a failure with a cause', () => {
    expect(
      SpecialistOutputSchema.parse({ type: 'success', summary: 'done', artifacts: ['src/a.ts'], key_findings: ['x'] }),
    ).toEqual({ type: 'success', summary: 'done', artifacts: ['src/a.ts'], key_findings: ['x'] });
    expect(SpecialistOutputSchema.parse({ type: 'failure', error: 'tests fail', cause: 'missing dep' }).type).toBe(
      'failure',
    );
  });

  it('should require a summary and artifacts on success', () => {
    const result = SpecialistOutputSchema.safeParse({ type: 'success' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['summary', 'artifacts']);
  });

  it('should name the allowed types when the type is unknown', () => {
    const result = SpecialistOutputSchema.safeParse({ type: 'done' });
    expect(result.error?.issues[0]?.message).toBe('expected one of success|failure');
  });

  it('should drop fields it does not know instead of failing', () => {
    expect(SpecialistOutputSchema.parse({ type: 'failure', error: 'e', mood: 'sad' })).toEqual({
      type: 'failure',
      error: 'e',
    });
  });
});
