import { describe, expect, it } from 'vitest';
import { OutputProtocolError, runStructuredTurn, type TurnPort, type TurnReply } from '../../src/dispatch/index.js';
import { PlannerOutputSchema, plannerOutputJsonSchema } from '../../src/protocol/index.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';
import { usageOfError } from '../../src/machines/turn.js';

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

/** A session that replies from a script and remembers what it was sent. */
function scriptedPort(...replies: TurnReply[]) {
  const prompts: string[] = [];
  const schemas: object[] = [];
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

describe('runStructuredTurn', () => {
  it('should take valid structured output on the first try without corrections', async () => {
    const { port, prompts, schemas } = scriptedPort({ structured: answer, text: '' });
    await expect(runStructuredTurn(port, options)).resolves.toEqual({
      value: answer,
      corrections: 0,
      via: 'structured',
      // A port that cannot tell what a prompt cost still counts the turn.
      usage: { ...ZERO_USAGE, turns: 1 },
    });
    expect(prompts).toEqual(['Plan this.']);
    expect(schemas).toEqual([options.jsonSchema]);
  });

  it('should fall back to the text when there is no structured output', async () => {
    const { port } = scriptedPort({ text: `Sure!\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\`` });
    await expect(runStructuredTurn(port, options)).resolves.toMatchObject({ corrections: 0, via: 'fence' });
  });

  it('should send one correction quoting the reason and the expected shape, then accept the fix', async () => {
    const { port, prompts } = scriptedPort({ structured: badPlan, text: '' }, { text: JSON.stringify(answer) });
    const result = await runStructuredTurn(port, options);

    expect(result).toEqual({ value: answer, corrections: 1, via: 'whole', usage: { ...ZERO_USAGE, turns: 2 } });
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('steps[1].agent: expected one of "coder"|"tester"');
    expect(prompts[1]).toContain('{"type":"answer","content":string}');
    expect(prompts[1]).toContain('"agent":"coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"');
  });

  it('should give up after the allowed corrections with a typed error', async () => {
    const { port, prompts } = scriptedPort(
      { text: 'I would rather chat.' },
      { text: 'Still chatting.' },
      { structured: badPlan, text: '' },
    );
    const error = await runStructuredTurn(port, { ...options, label: 'planner output' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputProtocolError);
    expect(error).toMatchObject({
      name: 'OutputProtocolError',
      attempts: 3,
      lastReason: 'steps[1].agent: expected one of "coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"',
      message:
        'planner output was invalid after 2 correction prompts: steps[1].agent: expected one of "coder"|"tester"|"reviewer"|"researcher"|"document-writer"|"architect"',
    });
    expect(prompts[1]).toContain('no JSON object found in the reply');
  });

  it('should sum what every prompt of the turn cost, corrections included, also into the error of a failed turn', async () => {
    const cost = (input: number) => ({ ...ZERO_USAGE, turns: 1, input, output: 1, cache_read: 10, cost: input / 1000 });
    const fixed = scriptedPort({ text: 'no json', usage: cost(100) }, { structured: answer, text: '', usage: cost(200) });
    const summed = (await runStructuredTurn(fixed.port, options)).usage;
    expect(summed).toEqual({ ...ZERO_USAGE, turns: 2, input: 300, output: 2, cache_read: 20, cost: summed.cost });
    expect(summed.cost).toBeCloseTo(0.3, 12);

    const broken = scriptedPort({ text: 'a', usage: cost(1) }, { text: 'b', usage: cost(2) }, { text: 'c', usage: cost(3) });
    const error = await runStructuredTurn(broken.port, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputProtocolError);
    expect(usageOfError(error)).toEqual({ ...ZERO_USAGE, turns: 3, input: 6, output: 3, cache_read: 30, cost: 0.006 });
    // Not enumerable: an error written to a log or the journal stays as it was.
    expect(Object.keys(error as object)).not.toContain('usage');
  });

  it('should carry the usage of the prompts before a transport error', async () => {
    const replies = [{ text: 'no json', usage: { ...ZERO_USAGE, turns: 1, output: 7 } }];
    const port: TurnPort = {
      prompt: async () => {
        const reply = replies.shift();
        if (!reply) throw new Error('connection reset');
        return reply;
      },
    };
    const error = await runStructuredTurn(port, options).catch((e: unknown) => e);
    expect((error as Error).message).toBe('connection reset');
    expect(usageOfError(error)).toEqual({ ...ZERO_USAGE, turns: 1, output: 7 });
  });

  it('should honour a smaller correction budget', async () => {
    const { port, prompts } = scriptedPort({ text: 'no' });
    await expect(runStructuredTurn(port, { ...options, maxCorrections: 0 })).rejects.toMatchObject({ attempts: 1 });
    expect(prompts).toHaveLength(1);
  });

  it('should reject a correction budget that is not a non-negative integer', async () => {
    const { port } = scriptedPort();
    await expect(runStructuredTurn(port, { ...options, maxCorrections: -1 })).rejects.toThrow(
      'Expected `maxCorrections` to be a non-negative integer, got -1.',
    );
  });

  it('should reject with the abort reason while the model is still replying', async () => {
    const controller = new AbortController();
    const never: TurnPort = { prompt: () => new Promise(() => {}) };
    const turn = runStructuredTurn(never, { ...options, signal: controller.signal });
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
  });

  it('should not prompt at all when the signal is already aborted', async () => {
    const { port, prompts } = scriptedPort({ structured: answer, text: '' });
    const reason = new Error('already stopped');
    await expect(runStructuredTurn(port, { ...options, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(prompts).toEqual([]);
  });

  it('should pass the signal to the port so it can stop the session', async () => {
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const port: TurnPort = {
      async prompt(_text, { signal }) {
        received = signal;
        return { structured: answer, text: '' };
      },
    };
    await runStructuredTurn(port, { ...options, signal: controller.signal });
    expect(received).toBe(controller.signal);
  });
});
