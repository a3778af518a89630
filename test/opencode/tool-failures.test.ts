import { describe, expect, it } from 'vitest';
import { abortText, failureStreak, redirectText, stableJson, toolOutcomes, unavailableToolText, type ToolOutcome } from '../../src/opencode/tool-failures.js';

const fail = (tool: string, input: unknown, error: string): ToolOutcome => ({ tool, input, error });
const ok = (tool: string, input: unknown): ToolOutcome => ({ tool, input });

describe('failureStreak', () => {
  it('should count identical failures at the end of the transcript', () => {
    const read = fail('read', { filePath: '/x' }, 'File not found: /x');
    expect(failureStreak([ok('glob', {}), read, read, read])).toEqual({ tool: 'read', input: { filePath: '/x' }, error: 'File not found: /x', count: 3 });
  });

  it('should treat inputs with the same keys in another order as the same input', () => {
    expect(failureStreak([fail('grep', { a: 1, b: { c: 2, d: 3 } }, 'e'), fail('grep', { b: { d: 3, c: 2 }, a: 1 }, 'e')])?.count).toBe(2);
  });

  it('should start again after a success or a different failure', () => {
    const read = fail('read', { filePath: '/x' }, 'File not found: /x');
    expect(failureStreak([read, read, ok('read', { filePath: '/y' }), read])?.count).toBe(1);
    expect(failureStreak([read, read, fail('read', { filePath: '/x' }, 'EACCES'), read])?.count).toBe(1);
    expect(failureStreak([read, read, fail('read', { filePath: '/z' }, 'File not found: /x'), read])?.count).toBe(1);
    expect(failureStreak([read, read, fail('glob', { filePath: '/x' }, 'File not found: /x'), read])?.count).toBe(1);
  });

  it('should report no streak when the latest outcome is a success or there is none', () => {
    expect(failureStreak([])).toBeNull();
    expect(failureStreak([fail('read', {}, 'e'), ok('read', {})])).toBeNull();
  });
});

describe('toolOutcomes', () => {
  it("should read settled tool parts of assistant messages in order and skip pending or running ones", () => {
    const tool = (status: string, extra: object = {}) => ({ type: 'tool', tool: 'read', state: { status, input: { filePath: '/x' }, ...extra } });
    const messages = [
      { info: { role: 'user', sessionID: 's' }, parts: [{ type: 'text' }] },
      { info: { role: 'assistant', sessionID: 's' }, parts: [{ type: 'step-start' }, tool('completed', { output: 'hi' }), tool('error', { error: 'boom' })] },
      { info: { role: 'assistant', sessionID: 's' }, parts: [tool('running'), tool('pending')] },
    ];
    expect(toolOutcomes(messages)).toEqual([
      { tool: 'read', input: { filePath: '/x' } },
      { tool: 'read', input: { filePath: '/x' }, error: 'boom' },
    ]);
  });

  it('should count a call of a tool the agent lacks (answered by `invalid`) as a failure of that tool', () => {
    const input = { tool: 'nonexistent_tool', error: "Model tried to call unavailable tool 'nonexistent_tool'. Available tools: read." };
    const call = { type: 'tool', tool: 'invalid', state: { status: 'completed', input, output: "You called 'nonexistent_tool', …" } };
    const messages = [1, 2, 3].map(() => ({ info: { role: 'assistant', sessionID: 's' }, parts: [call] }));
    expect(toolOutcomes(messages)[0]).toEqual({ tool: 'nonexistent_tool', input, error: "You called 'nonexistent_tool', …" });
    expect(failureStreak(toolOutcomes(messages))?.count).toBe(3);
  });
});

describe('messages', () => {
  const streak = { tool: 'read', input: { filePath: '/x' }, error: 'File not found:\n/x', count: 3 };

  it('should name the tool, the count and the error in the redirect, and ask for another approach', () => {
    expect(redirectText(streak)).toBe(
      'You have called read with the same input 3 times and it failed the same way each time: File not found: /x. ' +
        'Do not call it again with this input ({"filePath":"/x"}); try a different approach or report failure in the output protocol.',
    );
  });

  it('should say why the session was aborted', () => {
    expect(abortText({ ...streak, count: 4 })).toBe('aborted after 4 identical failures of read: File not found: /x');
  });

  it('should keep long errors short', () => {
    expect(abortText({ ...streak, error: 'x'.repeat(1000) }).length).toBeLessThan(400);
  });

  it('should write stable JSON for nested objects and arrays', () => {
    expect(stableJson({ b: [{ z: 1, y: 2 }], a: null })).toBe('{"a":null,"b":[{"y":2,"z":1}]}');
    expect(stableJson(undefined)).toBe('undefined');
  });
});

describe('unavailableToolText', () => {
  // The `invalid` tool's arguments as OpenCode 1.18.33 builds them when it repairs a call to a tool the agent lacks.
  const repaired = (tool: string, available: string) => ({ tool, error: `Model tried to call unavailable tool '${tool}'. ${available}` });

  it('should name the tool called and the tools the agent has, without `invalid`', () => {
    expect(unavailableToolText(repaired('edit', 'Available tools: glob, invalid, read.'))).toBe(
      "You called 'edit', which is not one of your tools: nothing was run. Your tools are: glob, read. Call one of these instead.",
    );
  });

  it('should say so when the agent has no tool at all', () => {
    expect(unavailableToolText(repaired('bash', 'Available tools: invalid.'))).toMatch(/^You called 'bash', .*You have no tools; answer in text\.$/);
    expect(unavailableToolText(repaired('bash', 'No tools are available.'))).toMatch(/You have no tools/);
  });

  it("should leave every other answer of `invalid` alone, e.g. arguments that fail a real tool's schema", () => {
    expect(unavailableToolText({ tool: 'read', error: 'Invalid input for tool read: JSON parsing failed' })).toBeUndefined();
    expect(unavailableToolText({})).toBeUndefined();
    expect(unavailableToolText(null)).toBeUndefined();
    expect(unavailableToolText('x')).toBeUndefined();
  });
});
