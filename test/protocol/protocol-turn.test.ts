import { describe, expect, it } from 'vitest';
import { OutputProtocolError, runProtocolTurn, TurnEndedError, type TurnPort, type TurnReply } from '../../src/protocol/index.js';
import { PlannerOutputSchema, plannerOutputJsonSchema } from '../../src/schemas/index.js';
import type { Usage } from '../../src/machines/usage.js';

const answer = { type: 'answer', content: 'Use pnpm.' };
const badPlan = {
  type: 'plan',
  goal: 'g',
  steps: [
    { id: 'a', agent: 'coder', description: 'd' },
    { id: 'b', agent: 'wizard', description: 'd' },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};
const cost = (n: number): Usage => ({ turns: 1, input: 10 * n, output: n, reasoning: 0, cache_read: 100 * n, cache_write: 0, cost: n / 100 });

/** A session that replies from a script and remembers what it was sent. */
function scriptedPort(...replies: TurnReply[]) {
  const prompts: string[] = [];
  const schemas: Array<object | undefined> = [];
  const port: TurnPort = {
    async prompt(text, { jsonSchema }) {
      prompts.push(text);
      schemas.push(jsonSchema);
      const reply = replies.shift();
      if (!reply) throw new Error('the script ran out of replies');
      return reply;
    },
  };
  return { port, prompts, schemas };
}

const options = { schema: PlannerOutputSchema, jsonSchema: plannerOutputJsonSchema(), prompt: 'Plan this.' };

describe('runProtocolTurn', () => {
  it('should use the text protocol by default: no json schema, and the prompt says to end with one JSON object of the shape', async () => {
    const { port, prompts, schemas } = scriptedPort({ text: `Here you go.\n${JSON.stringify(answer)}`, usage: cost(1) });
    await expect(runProtocolTurn(port, options)).resolves.toEqual({ value: answer, usage: cost(1), corrections: 0, via: 'scan', protocol: 'text', coerced: [] });
    expect(schemas).toEqual([undefined]);
    expect(prompts[0]).toMatch(/^Plan this\.\n\n# Output protocol\nEnd your reply with one JSON object: the last JSON object in your reply is read as your answer/);
    expect(prompts[0]).toContain('For example, one of each:\n{"type":"answer","content":"The answer, in markdown."}');
    expect(prompts[0]).toContain('{"type":"answer","content":string}');
  });

  it('should ask for structured output when configured, and take it', async () => {
    const { port, prompts, schemas } = scriptedPort({ structured: answer, text: '' });
    await expect(runProtocolTurn(port, { ...options, protocol: 'structured' })).resolves.toMatchObject({ value: answer, corrections: 0, via: 'structured', protocol: 'structured' });
    expect(schemas).toEqual([options.jsonSchema]);
    expect(prompts[0]).toContain('Call the StructuredOutput tool once with your answer');
  });

  it('should fall back to the text when a structured reply has no structured output', async () => {
    const { port } = scriptedPort({ text: `Sure!\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`` });
    await expect(runProtocolTurn(port, { ...options, protocol: 'structured' })).resolves.toMatchObject({ corrections: 0, via: 'fence' });
  });

  it('should send one correction quoting the reason and the expected shape, then accept the fix, summing the usage of both prompts', async () => {
    const { port, prompts } = scriptedPort({ text: JSON.stringify(badPlan), usage: cost(1) }, { text: JSON.stringify(answer), usage: cost(2) });
    const result = await runProtocolTurn(port, options);

    expect(result).toEqual({ value: answer, usage: { turns: 2, input: 30, output: 3, reasoning: 0, cache_read: 300, cache_write: 0, cost: 0.03 }, corrections: 1, via: 'whole', protocol: 'text', coerced: [] });
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('steps[1].agent: expected one of "coder"|"tester"');
    expect(prompts[1]).toContain('reply with the JSON object alone');
    expect(prompts[1]).not.toContain('StructuredOutput');
    expect(prompts[1]).toContain('{"type":"answer","content":string}');
    expect(prompts[1]).toContain('"agent":"coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"');
  });

  it('should word the correction for structured output when the turn uses it', async () => {
    const { port, prompts, schemas } = scriptedPort({ structured: badPlan, text: '' }, { structured: answer, text: '' });
    await runProtocolTurn(port, { ...options, protocol: 'structured' });
    expect(prompts[1]).toContain('call the StructuredOutput tool once');
    expect(schemas).toEqual([options.jsonSchema, options.jsonSchema]);
  });

  it('should ask the same question again with the text protocol when the provider refuses structured output, without counting a correction', async () => {
    const { port, prompts, schemas } = scriptedPort(
      { text: '', error: 'APIError: Thinking mode does not support this tool_choice', refusal: 'Thinking mode does not support this tool_choice', usage: cost(1) },
      { text: JSON.stringify(answer), usage: cost(2) },
    );
    const result = await runProtocolTurn(port, { ...options, protocol: 'structured' });
    expect(result).toMatchObject({ value: answer, corrections: 0, protocol: 'text', refusal: 'Thinking mode does not support this tool_choice' });
    expect(result.usage.turns).toBe(2);
    expect(schemas).toEqual([options.jsonSchema, undefined]);
    expect(prompts[0]).toContain('StructuredOutput');
    expect(prompts[1]).toMatch(/^Plan this\.\n\n# Output protocol\nEnd your reply with one JSON object/);
  });

  it('should end the turn with the error when a prompt ends with one and nothing was said', async () => {
    const { port, prompts } = scriptedPort({ text: '', error: 'APIError: Unauthorized', usage: cost(1) });
    const error = await runProtocolTurn(port, { ...options, label: 'planner output' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnEndedError);
    expect(error).toMatchObject({ message: 'expected planner output, but the turn ended with APIError: Unauthorized', usage: cost(1) });
    expect(prompts).toHaveLength(1);
  });

  it('should correct a structured turn whose model skipped the StructuredOutput tool', async () => {
    const { port, prompts } = scriptedPort({ text: '', error: 'StructuredOutputError: the model did not produce structured output' }, { structured: answer, text: '' });
    await expect(runProtocolTurn(port, { ...options, protocol: 'structured' })).resolves.toMatchObject({ value: answer, corrections: 1 });
    expect(prompts[1]).toMatch(/^Your previous reply could not be used: no JSON object found/);
  });

  it('should give up after the allowed corrections with a typed error that knows what the turn cost', async () => {
    const { port, prompts } = scriptedPort(
      { text: 'I would rather chat.', usage: cost(1) },
      { text: 'Still chatting.', usage: cost(1) },
      { structured: badPlan, text: '', usage: cost(1) },
    );
    const error = await runProtocolTurn(port, { ...options, label: 'planner output' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputProtocolError);
    expect(error).toMatchObject({
      name: 'OutputProtocolError',
      attempts: 3,
      lastReason: 'steps[1].agent: expected one of "coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"',
      message:
        'planner output was invalid after 2 correction prompts: steps[1].agent: expected one of "coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"',
      usage: expect.objectContaining({ turns: 3 }),
    });
    expect(prompts[1]).toContain('no JSON object found in the reply');
  });

  it('should honour a smaller correction budget', async () => {
    const { port, prompts } = scriptedPort({ text: 'no' });
    await expect(runProtocolTurn(port, { ...options, maxCorrections: 0 })).rejects.toMatchObject({ attempts: 1 });
    expect(prompts).toHaveLength(1);
  });

  it('should reject a correction budget that is not a non-negative integer', async () => {
    const { port } = scriptedPort();
    await expect(runProtocolTurn(port, { ...options, maxCorrections: -1 })).rejects.toThrow(
      'Expected `maxCorrections` to be a non-negative integer, got -1.',
    );
  });

  it('should let a guard end the turn after a reply, before any correction', async () => {
    const { port, prompts } = scriptedPort({ text: 'no json' });
    const stop = new Error('tool loop');
    await expect(runProtocolTurn(port, { ...options, afterReply: () => { throw stop; } })).rejects.toBe(stop);
    expect(prompts).toHaveLength(1);
  });

  it('should reject with the abort reason while the model is still replying', async () => {
    const controller = new AbortController();
    const never: TurnPort = { prompt: () => new Promise(() => {}) };
    const turn = runProtocolTurn(never, { ...options, signal: controller.signal });
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
  });

  it('should not prompt at all when the signal is already aborted', async () => {
    const { port, prompts } = scriptedPort({ structured: answer, text: '' });
    const reason = new Error('already stopped');
    await expect(runProtocolTurn(port, { ...options, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(prompts).toEqual([]);
  });

  it('should pass the signal to the port so it can stop the session', async () => {
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const port: TurnPort = {
      async prompt(_text, { signal }) {
        received = signal;
        return { text: JSON.stringify(answer) };
      },
    };
    await runProtocolTurn(port, { ...options, signal: controller.signal });
    expect(received).toBe(controller.signal);
  });
});
