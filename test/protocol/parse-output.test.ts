import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NO_JSON_REASON, TRUNCATED_JSON_REASON, findJsonCandidates, parseModelOutput } from '../../src/protocol/index.js';
import { PlannerOutputSchema, ReviewOutputSchema, SpecialistOutputSchema } from '../../src/schemas/index.js';

const success = { type: 'success', summary: 'done', artifacts: ['src/a.ts'] };
const json = JSON.stringify(success);
const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const parse = (text: string) => parseModelOutput(text, SpecialistOutputSchema);
const plan = (text: string) => parseModelOutput(text, PlannerOutputSchema);
const review = (text: string) => parseModelOutput(text, ReviewOutputSchema);

const goodPlan = {
  type: 'plan',
  goal: 'Add JWT helpers',
  steps: [
    { id: 'jwt-utils', agent: 'coder', description: 'Add generateToken and verifyToken', files: ['src/utils/jwt.ts'] },
    { id: 'jwt-tests', agent: 'tester', description: 'Test the helpers', depends_on: ['jwt-utils'] },
  ],
  assumptions: ['jsonwebtoken is installed'],
  risks: [],
  verification: ['npm test'],
};

describe('parseModelOutput: where the answer is', () => {
  it('should read the whole reply as JSON', () => {
    expect(parse(`  ${json}\n`)).toEqual({ ok: true, value: success, via: 'whole', coerced: [] });
  });

  it('should read JSON in a json fence, or a fence without a language, despite prose around it', () => {
    expect(parse(`Here you go:\n\`\`\`json\n${json}\n\`\`\`\nAnything else?`)).toMatchObject({ ok: true, via: 'fence' });
    expect(parse(`Result:\n\`\`\`\n${json}\n\`\`\``)).toMatchObject({ ok: true, via: 'fence' });
  });

  it.each(['output', 'json', 'result', 'tool_call'])('should read JSON wrapped in <%s> tags', (tag) => {
    expect(parse(`Done. <${tag}>\n${json}\n</${tag}> Bye.`)).toEqual({ ok: true, value: success, via: 'tag', coerced: [] });
  });

  it('should unwrap a tool call written as text', () => {
    const call = JSON.stringify({ name: 'StructuredOutput', arguments: success });
    expect(parse(`<tool_call>${call}</tool_call>`)).toEqual({ ok: true, value: success, via: 'tag', coerced: [] });
    const encoded = JSON.stringify({ function: { name: 'StructuredOutput', arguments: json } });
    expect(parse(encoded)).toEqual({ ok: true, value: success, via: 'whole', coerced: [] });
  });

  it('should find an object in prose by matching braces', () => {
    expect(parse(`I finished. ${json} Let me know.`)).toEqual({ ok: true, value: success, via: 'scan', coerced: [] });
  });

  it('should match nested braces and ignore braces and quotes inside strings', () => {
    const tricky = {
      type: 'success',
      summary: 'wrote `function f() { return "}" }` and a \\"quoted {brace\\"',
      artifacts: ['a{b}.ts'],
      key_findings: ['{"not": "the answer"}'],
    };
    const value = { ...tricky, nested: { deeper: { deepest: [{ x: '}}}' }] } } };
    const result = parse(`Summary follows ${JSON.stringify(value)} and that is all {really}.`);
    expect(result).toEqual({ ok: true, value: tricky, via: 'scan', coerced: [] });
  });

  it('should skip prose and code in braces before the JSON', () => {
    const text = `Use {curly} placeholders, and \`const options = { retries: 3 }\` in the client.\n\n${json}`;
    expect(parse(text)).toMatchObject({ ok: true, via: 'scan' });
  });
});

describe('parseModelOutput: the answer is the object the reply ends with', () => {
  it('should take the final object after a draft, even when the draft is valid', () => {
    const draft = { type: 'success', summary: 'Added the helper', artifacts: ['src/utils/jwt.ts'] };
    const final = { type: 'success', summary: 'Added the helper and its tests', artifacts: ['src/utils/jwt.ts', 'test/jwt.test.ts'] };
    const text = [
      'Here is a first draft of my report:',
      '',
      JSON.stringify(draft),
      '',
      "Wait, that is not right: I also wrote the tests, so they belong in the artifacts.",
      '',
      'Final answer:',
      '```json',
      pretty(final),
      '```',
    ].join('\n');
    expect(parse(text)).toEqual({ ok: true, value: final, via: 'fence', coerced: [] });
  });

  it('should correct the final object, never fall back to a valid draft', () => {
    const draft = { type: 'success', summary: 'Looks done', artifacts: [] };
    const final = { type: 'success', summary: '', artifacts: ['src/a.ts'] };
    const text = `Draft:\n${JSON.stringify(draft)}\n\nHmm, let me restate it properly.\n\n\`\`\`json\n${pretty(final)}\n\`\`\``;
    expect(parse(text)).toEqual({
      ok: false,
      reason: "summary: Too small: expected string to have >=1 characters (the last of the reply's 2 JSON objects, which is its answer)",
    });
  });

  it('should not read a quoted failure example before the answer as the answer', () => {
    const text = [
      'The task says to report problems like this:',
      '',
      '```json',
      '{"type": "failure", "error": "what went wrong"}',
      '```',
      '',
      'Nothing went wrong, though. I updated the config loader and ran the tests (all green).',
      '',
      '```json',
      pretty({ type: 'success', summary: 'Updated the config loader', artifacts: ['src/config/load.ts'] }),
      '```',
    ].join('\n');
    expect(parse(text)).toMatchObject({ ok: true, value: { type: 'success', summary: 'Updated the config loader' } });
  });

  it('should take a fenced object followed by a closing sentence: prose after the last object is allowed', () => {
    const text = `I added the route and its test.\n\n\`\`\`json\n${pretty(success)}\n\`\`\`\n\nThe route now answers \`{}\` for an empty filter. Let me know if you want the messages reworded!`;
    expect(parse(text)).toEqual({ ok: true, value: success, via: 'fence', coerced: [] });
  });

  it('should take the answer after a tool call written as text', () => {
    const call = JSON.stringify({ name: 'read', arguments: { filePath: 'src/a.ts' } });
    const text = `First I need to look at the file.\n<tool_call>\n${call}\n</tool_call>\n\nI read it and fixed the typo.\n\n${pretty(success)}`;
    expect(parse(text)).toEqual({ ok: true, value: success, via: 'scan', coerced: [] });
  });

  it('should read a last tool call as its arguments, and correct it when they are not an answer', () => {
    const text = `Done with the edit. Now let me check it compiles:\n{"name": "bash", "arguments": {"command": "npx tsc --noEmit"}}`;
    expect(parse(text)).toEqual({ ok: false, reason: 'type: expected one of success|failure' });
  });

  it('should name the broken plan, not a step inside it', () => {
    const broken = pretty(goodPlan).replace('"agent": "tester",', '"agent": "tester"');
    const result = plan(`Here is the plan:\n\n\`\`\`json\n${broken}\n\`\`\``);
    expect(result).toEqual({ ok: false, reason: 'the JSON object is not valid JSON: comma expected at line 16, column 7 of the object' });
  });

  it('should name the plan field that is wrong, not a nested step', () => {
    const bad = { ...goodPlan, steps: [goodPlan.steps[0], { ...goodPlan.steps[1], agent: 'wizard' }] };
    expect(plan(`Plan:\n${pretty(bad)}`)).toEqual({
      ok: false,
      reason: 'steps[1].agent: expected one of "coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"',
    });
  });

  it('should ignore JSON inside think blocks', () => {
    const draft = JSON.stringify({ type: 'failure', error: 'maybe?' });
    expect(parse(`<think>I could say ${draft}</think>\n${json}`)).toEqual({ ok: true, value: success, via: 'whole', coerced: [] });
    expect(parse(`reasoning ${draft} more</think><assistant>${json}</assistant>`)).toEqual({ ok: true, value: success, via: 'whole', coerced: [] });
  });

  it('should ignore a think block that comes after the answer', () => {
    const draft = JSON.stringify({ type: 'failure', error: 'give up?' });
    const text = `<think>plan</think>Checking.\n${json}\n<think>or should I say ${draft}</think>`;
    expect(parse(text)).toEqual({ ok: true, value: success, via: 'scan', coerced: [] });
  });

  it('should fall back to the raw text when only the reasoning holds JSON', () => {
    expect(parse(`<think>the answer is ${json}`)).toEqual({ ok: true, value: success, via: 'scan', coerced: [] });
  });

  it('should say what is wrong with the JSON it found', () => {
    const bad = JSON.stringify({ type: 'failure' });
    expect(parse(bad)).toEqual({ ok: false, reason: 'error: missing (expected string)' });
  });

  it('should say when there is no JSON at all', () => {
    expect(parse('I could not do it, sorry.')).toEqual({ ok: false, reason: NO_JSON_REASON });
    expect(parse('')).toEqual({ ok: false, reason: NO_JSON_REASON });
    expect(parse('Use a {placeholder} and `{ a: 1 }`.')).toEqual({ ok: false, reason: NO_JSON_REASON });
  });

  it('should say the reply was cut off when it ends inside an object, even after a complete draft', () => {
    expect(parse('{"type":"success","summary":"done","artifacts":[{"path":"a"}')).toEqual({ ok: false, reason: TRUNCATED_JSON_REASON });
    const text = `Draft: ${json}\n\nFinal:\n\`\`\`json\n{\n  "type": "success",\n  "summary": "Added the route and its te`;
    expect(parse(text)).toEqual({ ok: false, reason: TRUNCATED_JSON_REASON });
  });

  it('should format nested paths with indexes', () => {
    const schema = z.object({ steps: z.array(z.object({ agent: z.enum(['coder', 'tester']) })) });
    expect(parseModelOutput('{"steps":[{"agent":"coder"},{"agent":"poet"}]}', schema)).toEqual({
      ok: false,
      reason: 'steps[1].agent: expected one of "coder"|"tester"',
    });
  });
});

describe('findJsonCandidates', () => {
  it('should find each top-level object once, with its position and where it was written', () => {
    const text = `Example: {"a": 1}\n\`\`\`json\n{"b": {"c": 2}}\n\`\`\`\n<output>{"d": 3}</output>`;
    const { candidates, truncated } = findJsonCandidates(text);
    expect(truncated).toBe(false);
    expect(candidates.map((c) => [c.via, text.slice(c.start, c.end)])).toEqual([
      ['scan', '{"a": 1}'],
      ['fence', '{"b": {"c": 2}}'],
      ['tag', '{"d": 3}'],
    ]);
  });

  it('should stay linear on a long reply full of braces', () => {
    const noise = 'if (x) { y({ z: 1 }) } '.repeat(20_000) + '{"k": '.repeat(5_000);
    const started = performance.now();
    const { candidates, truncated } = findJsonCandidates(`${noise.slice(0, -6 * 5_000)}${json}`);
    expect(candidates).toHaveLength(1);
    expect(truncated).toBe(false);
    expect(findJsonCandidates(noise).truncated).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('parseModelOutput: slips accepted without a correction', () => {
  it('should read JSONC: comments and trailing commas, fenced or bare', () => {
    const fenced = [
      'Done.',
      '```jsonc',
      '{',
      '  "type": "success",',
      '  // what I did',
      '  "summary": "Added the route",',
      '  /* every file I touched */',
      '  "artifacts": ["src/routes/users.ts", "test/users.test.ts",],',
      '}',
      '```',
    ].join('\n');
    expect(parse(fenced)).toEqual({
      ok: true,
      value: { type: 'success', summary: 'Added the route', artifacts: ['src/routes/users.ts', 'test/users.test.ts'] },
      via: 'fence',
      coerced: ['JSONC: comments removed', 'JSONC: trailing commas removed'],
    });
    expect(parse('All good:\n{"type": "success", "summary": "ok", "artifacts": [],}')).toMatchObject({ ok: true, coerced: ['JSONC: trailing commas removed'] });
  });

  it('should take a string as a one-item list where a list of strings is expected', () => {
    const text = `Finished.\n${pretty({ type: 'success', summary: 'Read the docs', artifacts: 'docs/notes.md', key_findings: 'The API is paginated' })}`;
    expect(parse(text)).toEqual({
      ok: true,
      value: { type: 'success', summary: 'Read the docs', artifacts: ['docs/notes.md'], key_findings: ['The API is paginated'] },
      via: 'scan',
      coerced: ['artifacts: a string taken as a one-item list', 'key_findings: a string taken as a one-item list'],
    });
  });

  it('should take a missing artifacts list on a success as none (a read-only step)', () => {
    expect(parse(`I looked around; nothing to change.\n{"type": "success", "summary": "The cache is already bounded"}`)).toEqual({
      ok: true,
      value: { type: 'success', summary: 'The cache is already bounded', artifacts: [] },
      via: 'scan',
      coerced: ['artifacts: missing, taken as none (nothing was changed)'],
    });
  });

  it("should take strings as lists in a plan and its steps", () => {
    const sloppy = {
      ...goodPlan,
      steps: [{ ...goodPlan.steps[0], files: 'src/utils/jwt.ts' }, { ...goodPlan.steps[1], depends_on: 'jwt-utils' }],
      assumptions: 'jsonwebtoken is installed',
      risks: '',
      verification: 'npm test',
      relevant_files: 'package.json',
    };
    const result = plan(`Here is my plan.\n\n\`\`\`json\n${pretty(sloppy)}\n\`\`\``);
    expect(result).toEqual({
      ok: true,
      value: { ...goodPlan, relevant_files: ['package.json'] },
      via: 'fence',
      coerced: [
        'assumptions: a string taken as a one-item list',
        'risks: an empty string taken as an empty list',
        'verification: a string taken as a one-item list',
        'relevant_files: a string taken as a one-item list',
        'steps[0].files: a string taken as a one-item list',
        'steps[1].depends_on: a string taken as a one-item list',
      ],
    });
  });

  it("should read a reviewer's line written as text, keep a range's end, and accept an error without found or expected", () => {
    const text = [
      'Two problems:',
      '```json',
      pretty({
        type: 'fail',
        errors: [
          { category: 'Logic', file: 'src/a.ts', line: '8-10', issue: 'Off by one', found: 'i <= n', expected: 'i < n', fix: 'Use <' },
          { category: 'Criteria', file: 'test/a.test.ts', line: '8', issue: 'No test for the empty list', fix: 'Add one' },
        ],
      }),
      '```',
    ].join('\n');
    expect(review(text)).toEqual({
      ok: true,
      value: {
        type: 'fail',
        errors: [
          { category: 'Logic', file: 'src/a.ts', line: 8, line_end: 10, issue: 'Off by one', found: 'i <= n', expected: 'i < n', fix: 'Use <' },
          { category: 'Criteria', file: 'test/a.test.ts', line: 8, issue: 'No test for the empty list', fix: 'Add one' },
        ],
      },
      via: 'fence',
      coerced: ['errors[0].line: the text "8-10" taken as line 8 (to line 10, line_end)', 'errors[1].line: the text "8" taken as line 8'],
    });
  });
});

describe('parseModelOutput: strict where the meaning would change', () => {
  const withStep = (over: Record<string, unknown>, index = 1) => ({ ...goodPlan, steps: goodPlan.steps.map((s, i) => (i === index ? { ...s, ...over } : s)) });

  it('should correct an unknown agent, naming the field', () => {
    expect(plan(pretty(withStep({ agent: 'qa-engineer' })))).toMatchObject({ ok: false, reason: expect.stringMatching(/^steps\[1\]\.agent: expected one of "coder"/) });
  });

  it('should correct a dependency cycle, naming the field', () => {
    const cyclic = withStep({ depends_on: 'jwt-tests' }, 0);
    expect(plan(pretty(cyclic))).toEqual({
      ok: false,
      reason: 'steps[0].depends_on: dependency cycle jwt-utils → jwt-tests → jwt-utils (each step depends on the next); expected depends_on to form a DAG',
    });
  });

  it('should correct a missing step id, naming the field', () => {
    const { id: _id, ...noId } = goodPlan.steps[0]!;
    expect(plan(pretty({ ...goodPlan, steps: [noId, goodPlan.steps[1]] }))).toMatchObject({ ok: false, reason: expect.stringContaining('steps[0].id: missing (expected string)') });
  });

  it('should correct an unknown type, naming it', () => {
    expect(parse('{"type": "done", "summary": "ok", "artifacts": []}')).toEqual({ ok: false, reason: 'type: expected one of success|failure' });
  });

  it('should correct a line that is not a line number', () => {
    const text = JSON.stringify({ type: 'fail', errors: [{ category: 'Logic', file: 'a.ts', line: 'near the top', issue: 'x', fix: 'y' }] });
    expect(review(text)).toEqual({ ok: false, reason: 'errors[0].line: expected number, received string' });
  });
});
