import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NO_JSON_REASON, TRUNCATED_JSON_REASON, parseModelOutput } from '../../src/dispatch/index.js';
import { SpecialistOutputSchema } from '../../src/protocol/index.js';

const success = { type: 'success', summary: 'done', artifacts: ['src/a.ts'] };
const json = JSON.stringify(success);
const parse = (text: string) => parseModelOutput(text, SpecialistOutputSchema);

describe('parseModelOutput', () => {
  it('should read the whole reply as JSON', () => {
    expect(parse(`  ${json}\n`)).toEqual({ ok: true, value: success, via: 'whole' });
  });

  it('should read JSON in a json fence, or a fence without a language, despite prose around it', () => {
    expect(parse(`Here you go:\n\`\`\`json\n${json}\n\`\`\`\nAnything else?`)).toMatchObject({ ok: true, via: 'fence' });
    expect(parse(`Result:\n\`\`\`\n${json}\n\`\`\``)).toMatchObject({ ok: true, via: 'fence' });
  });

  it.each(['output', 'json', 'result', 'tool_call'])('should read JSON wrapped in <%s> tags', (tag) => {
    expect(parse(`Done. <${tag}>\n${json}\n</${tag}> Bye.`)).toEqual({ ok: true, value: success, via: 'tag' });
  });

  it('should unwrap a tool call written as text', () => {
    const call = JSON.stringify({ name: 'StructuredOutput', arguments: success });
    expect(parse(`<tool_call>${call}</tool_call>`)).toEqual({ ok: true, value: success, via: 'tag' });
    const encoded = JSON.stringify({ function: { name: 'StructuredOutput', arguments: json } });
    expect(parse(encoded)).toEqual({ ok: true, value: success, via: 'whole' });
  });

  it('should find an object in prose by matching braces', () => {
    expect(parse(`I finished. ${json} Let me know.`)).toEqual({ ok: true, value: success, via: 'scan' });
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
    expect(result).toEqual({ ok: true, value: tricky, via: 'scan' });
  });

  it('should take the second object when only the second is valid', () => {
    const draft = JSON.stringify({ type: 'success', summary: 'draft' });
    expect(parse(`First try: ${draft}\nFixed: ${json}`)).toEqual({ ok: true, value: success, via: 'scan' });
  });

  it('should skip prose in braces before the JSON', () => {
    expect(parse(`Use {curly} placeholders. ${json}`)).toMatchObject({ ok: true, via: 'scan' });
  });

  it('should ignore JSON inside think blocks', () => {
    const draft = JSON.stringify({ type: 'failure', error: 'maybe?' });
    expect(parse(`<think>I could say ${draft}</think>\n${json}`)).toEqual({ ok: true, value: success, via: 'whole' });
    expect(parse(`reasoning ${draft} more</think><assistant>${json}</assistant>`)).toEqual({
      ok: true,
      value: success,
      via: 'whole',
    });
  });

  it('should ignore every think block, not just the first', () => {
    const draft = JSON.stringify({ type: 'failure', error: 'give up?' });
    const text = `<think>plan</think>Checking.<think>maybe ${draft}</think>Final: ${json}`;
    expect(parse(text)).toEqual({ ok: true, value: success, via: 'scan' });
  });

  it('should fall back to the raw text when only the reasoning holds JSON', () => {
    expect(parse(`<think>the answer is ${json}`)).toEqual({ ok: true, value: success, via: 'scan' });
  });

  it('should say what is wrong with the JSON it found', () => {
    const bad = JSON.stringify({ type: 'success', summary: 'x' });
    expect(parse(bad)).toEqual({ ok: false, reason: 'artifacts: missing (expected array)' });
  });

  it('should report the most deliberate candidate when none is valid', () => {
    const fenced = JSON.stringify({ type: 'failure' });
    const bare = JSON.stringify({ type: 'oops' });
    expect(parse(`${bare}\n\`\`\`json\n${fenced}\n\`\`\``)).toEqual({
      ok: false,
      reason: 'error: missing (expected string)',
    });
  });

  it('should say when there is no JSON at all, or when it was cut off', () => {
    expect(parse('I could not do it, sorry.')).toEqual({ ok: false, reason: NO_JSON_REASON });
    expect(parse('')).toEqual({ ok: false, reason: NO_JSON_REASON });
    expect(parse('{"type":"success","summary":"done","artifacts":[{"path":"a"}')).toEqual({
      ok: false,
      reason: TRUNCATED_JSON_REASON,
    });
  });

  it('should format nested paths with indexes', () => {
    const schema = z.object({ steps: z.array(z.object({ agent: z.enum(['coder', 'tester']) })) });
    expect(parseModelOutput('{"steps":[{"agent":"coder"},{"agent":"poet"}]}', schema)).toEqual({
      ok: false,
      reason: 'steps[1].agent: expected one of "coder"|"tester"',
    });
  });
});
