import { describe, expect, it } from 'vitest';
import { PlannerOutputSchema, type PlanStep } from '../../src/schemas/index.js';

const step = (id: string, depends_on?: string[]): PlanStep => ({
  id,
  agent: 'coder',
  description: `do ${id}`,
  ...(depends_on ? { depends_on } : {}),
});

const plan = (steps: PlanStep[]) => ({
  type: 'plan',
  goal: 'ship it',
  steps,
  assumptions: [],
  risks: [],
  verification: ['npm test'],
});

/** Issues as `path: message` strings, so assertions read like the errors models see. */
function issuesOf(value: unknown): string[] {
  const result = PlannerOutputSchema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('PlannerOutputSchema', () => {
  it('should accept an answer, a question and a plan', () => {
    expect(issuesOf({ type: 'answer', content: '42' })).toEqual([]);
    expect(
      issuesOf({
        type: 'question',
        questions: [{ header: 'Database', question: 'Which one?', options: [{ label: 'Postgres' }], custom: true }],
      }),
    ).toEqual([]);
    expect(issuesOf(plan([step('a'), step('b', ['a'])]))).toEqual([]);
  });

  it('should name the allowed types when the type is unknown or missing', () => {
    expect(issuesOf({ type: 'essay' })).toEqual(['type: expected one of answer|question|plan']);
    expect(issuesOf({})).toEqual(['type: expected one of answer|question|plan']);
  });

  it('should reject a question with no questions and a header longer than 30 characters', () => {
    expect(issuesOf({ type: 'question', questions: [] })[0]).toMatch(/^questions: /);
    const header = 'x'.repeat(31);
    expect(issuesOf({ type: 'question', questions: [{ header, question: 'q', options: [] }] })).toEqual([
      'questions.0.header: expected at most 30 characters',
    ]);
  });

  it('should reject an unknown agent and an id that is not short and simple', () => {
    const bad = plan([{ ...step('a'), agent: 'wizard' as 'coder' }, step('has space')]);
    const issues = issuesOf(bad);
    expect(issues[0]).toMatch(/^steps\.0\.agent: .*"coder"\|"tester"\|"reviewer"/);
    expect(issues[1]).toMatch(/^steps\.1\.id: expected a short id/);
  });

  it('should reject a plan without steps', () => {
    expect(issuesOf(plan([]))[0]).toMatch(/^steps: /);
  });
});

describe('plan dependency graph', () => {
  it('should accept a diamond', () => {
    expect(issuesOf(plan([step('a'), step('b', ['a']), step('c', ['a']), step('d', ['b', 'c'])]))).toEqual([]);
  });

  it('should reject a dependency on a step that does not exist, listing the ids that do', () => {
    expect(issuesOf(plan([step('a'), step('b', ['a', 'x'])]))).toEqual([
      'steps.1.depends_on.1: step "b" depends on unknown step "x"; expected one of: a, b',
    ]);
  });

  it('should reject a step that depends on itself', () => {
    expect(issuesOf(plan([step('a', ['a'])]))).toEqual([
      'steps.0.depends_on.0: step "a" depends on itself; remove it from depends_on',
    ]);
  });

  it('should reject duplicate ids and say which step used the id first', () => {
    expect(issuesOf(plan([step('a'), step('b'), step('a')]))).toEqual([
      'steps.2.id: duplicate step id "a" (also used by steps[0]); expected unique ids',
    ]);
  });

  it('should reject a cycle once, showing its path', () => {
    const issues = issuesOf(plan([step('a', ['c']), step('b', ['a']), step('c', ['b']), step('d', ['c'])]));
    expect(issues).toEqual([
      'steps.0.depends_on: dependency cycle a → c → b → a (each step depends on the next); expected depends_on to form a DAG',
    ]);
  });

  it('should report a two-step cycle', () => {
    expect(issuesOf(plan([step('a', ['b']), step('b', ['a'])]))).toHaveLength(1);
  });
});
