// The relay's text formats (scripts/relay.ts): what a person acting as the model reads, and what
// they write back. No server: the full loop is checked by running the relay with scripts/relay/canned.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitForFile } from '../../scripts/relay/files.js';
import { agentNameOf, fence, renderPermission, renderQuestion, renderRequest } from '../../scripts/relay/render.js';
import { parseAnswers, parsePermissionAnswer, parseReply } from '../../scripts/relay/reply.js';
import { streamChunks } from '../support/openai-wire.js';
import { parseRecordedRequest } from '../support/scripted-request.js';

const body = {
  model: 'fake-model',
  stream: true,
  tool_choice: 'auto',
  messages: [
    { role: 'system', content: '<!-- orca-agent:coder -->\nYou are a specialist.' },
    { role: 'user', content: [{ type: 'text', text: 'Orca · plan_1 · step fix (coder) · attempt 1\n\nFix ```mean```' }] },
    {
      role: 'assistant',
      content: 'Reading it.',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"filePath":"src/stats.js"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '1: export function mean() {}' },
  ],
  tools: [
    { type: 'function', function: { name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { filePath: { type: 'string' } } } } },
    { type: 'function', function: { name: 'edit', description: 'Edits a file.', parameters: { type: 'object' } } },
  ],
};
const req = parseRecordedRequest(body, 0);

describe('renderRequest', () => {
  const text = renderRequest(req, 7);

  it('names the request, its agent and the reply file at the top and the bottom', () => {
    expect(text.startsWith('# Request 0007 · agent coder\n')).toBe(true);
    expect(text.match(/Answer by writing `replies\/0007\.md`/g)).toHaveLength(2);
  });

  it('shows the system prompt, then every message in order with calls pretty-printed and results named', () => {
    const order = ['## System prompt', 'You are a specialist.', '### 1 · user', 'Fix ```mean```', '### 2 · assistant', 'Reading it.', 'TOOL read (call_1)', '"filePath": "src/stats.js"', '### 3 · tool result · read (call_1)', '1: export function mean() {}'];
    const at = order.map((s) => text.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('lists the tools offered with compact parameters, and the tool_choice', () => {
    expect(text).toContain('### read\n\n```\nReads a file.\n```\n\nparameters:\n\n```json\n{"type":"object","properties":{"filePath":{"type":"string"}}}\n```');
    expect(text).toContain('### edit');
    expect(text).toContain('tool_choice: auto');
  });

  it('fences content with more backticks than it holds, so a prompt cannot close the fence', () => {
    expect(text).toContain('````\nOrca · plan_1');
    expect(fence('a ````` b')).toMatch(/^``````\n/);
  });
});

describe('agentNameOf', () => {
  const withSystem = (system: string, user: string) =>
    parseRecordedRequest({ messages: [{ role: 'system', content: system }, { role: 'user', content: user }], tools: [{ function: { name: 'x' } }] }, 0);

  it('reads the prompt marker first, else the header line of an Orca turn, else says opencode', () => {
    expect(agentNameOf(withSystem('<!-- orca-agent:planner -->', 'hi'))).toBe('planner');
    expect(agentNameOf(withSystem('custom prompt', 'Orca · plan_01 · step s1 (tester) · attempt 2\n\nbody'))).toBe('tester');
    expect(agentNameOf(withSystem('custom prompt', 'Orca · plan_01 · reviewer\n\nbody'))).toBe('reviewer');
    expect(agentNameOf(withSystem('You are opencode', 'hello'))).toBe('opencode');
  });
});

describe('parseReply', () => {
  it('takes plain text as the text reply', () => {
    expect(parseReply('  Done.\n')).toEqual({ ok: true, value: { text: 'Done.' } });
  });

  it('takes TOOL blocks as parallel calls, with text before them, multi-line or fenced JSON, CRLF', () => {
    const source = 'Let me look.\r\nTOOL read\r\n{"filePath": "src/stats.js"}\r\nTOOL grep\n```json\n{\n  "pattern": "mean"\n}\n```\nTOOL todoread\n';
    expect(parseReply(source, ['read', 'grep', 'todoread'])).toEqual({
      ok: true,
      value: {
        text: 'Let me look.',
        toolCalls: [
          { name: 'read', arguments: { filePath: 'src/stats.js' } },
          { name: 'grep', arguments: { pattern: 'mean' } },
          { name: 'todoread', arguments: {} },
        ],
      },
    });
  });

  it('streams back as chunks that finish with tool_calls, then usage and [DONE]', () => {
    const parsed = parseReply('TOOL read\n{"filePath":"a"}');
    if (!parsed.ok) throw new Error(parsed.error);
    const chunks = streamChunks(parsed.value, 'chatcmpl-x-1');
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.some((c) => c.includes('"finish_reason":"tool_calls"'))).toBe(true);
    expect(JSON.parse(chunks.at(-2)!).usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('says what is wrong: bad JSON, a non-object, a tool not offered, an empty file', () => {
    expect(parseReply('TOOL read\n{filePath: 1}')).toMatchObject({ ok: false, error: expect.stringMatching(/^TOOL read: expected one JSON object/) });
    expect(parseReply('TOOL read\n[1]')).toMatchObject({ ok: false, error: 'TOOL read: expected a JSON object of arguments, got an array' });
    expect(parseReply('TOOL raed\n{}', ['read'])).toMatchObject({ ok: false, error: expect.stringContaining('offered no such tool; offered: read') });
    expect(parseReply(' \n')).toMatchObject({ ok: false, error: expect.stringContaining('empty') });
  });

  it('leaves a TOOL word inside a sentence as text', () => {
    expect(parseReply('Use the TOOL read to look.')).toEqual({ ok: true, value: { text: 'Use the TOOL read to look.' } });
  });
});

describe('question and permission dialogs', () => {
  const dialog = {
    id: 'que_1',
    sessionID: 'ses_1',
    questions: [
      { header: 'Plan approval', question: 'Approve plan plan_1?', options: [{ label: 'Approve', description: 'Run it' }, { label: 'Reject' }] },
      { header: 'Areas', question: 'Which areas?', multiple: true, options: [{ label: 'API' }, { label: 'UI' }] },
    ],
  };

  it('renders every question with its numbered options and says where to answer', () => {
    const text = renderQuestion(dialog, 3);
    expect(text).toContain('answers/0003.md');
    expect(text).toContain('## 1. Plan approval\n\nApprove plan plan_1?\n\nOptions:\n\n[1] Approve — Run it\n[2] Reject');
    expect(text).toContain('(several may be chosen)');
  });

  it('shows what the conversation holds above the dialog (Orca\'s note with the plan), fenced, before the questions', () => {
    const above = 'USER: add a flag\n\nSHOWN: Orca: plan plan_1 waits for your approval: 2 steps.\n```\nerror\n```';
    const text = renderQuestion(dialog, 3, above);
    expect(text).toContain(`## What the conversation shows above this dialog\n\n\`\`\`\`text\n${above}\n\`\`\`\``);
    expect(text.indexOf('above this dialog')).toBeLessThan(text.indexOf('## 1. Plan approval'));
    expect(renderQuestion(dialog, 3)).not.toContain('above this dialog');
  });

  it('reads one line per question: a number, a label in any case, free text; | separates several', () => {
    expect(parseAnswers('# my answers\n1\napi | 2\n', dialog)).toEqual({ ok: true, value: [['Approve'], ['API', 'UI']] });
    expect(parseAnswers('reject\nsomething else\n', dialog)).toEqual({ ok: true, value: [['Reject'], ['something else']] });
    expect(parseAnswers('Approve\n', dialog)).toEqual({ ok: false, error: 'expected 2 answer lines (one per question), got 1' });
  });

  it('reads a permission answer; other text rejects with that message', () => {
    expect(renderPermission({ id: 'per_1', sessionID: 's', permission: 'bash', patterns: ['ls'] }, 4)).toContain('[3] reject');
    expect(parsePermissionAnswer('2')).toEqual({ ok: true, value: { reply: 'always' } });
    expect(parsePermissionAnswer('ONCE')).toEqual({ ok: true, value: { reply: 'once' } });
    expect(parsePermissionAnswer('not in src/')).toEqual({ ok: true, value: { reply: 'reject', message: 'not in src/' } });
  });
});

describe('waitForFile', () => {
  it('returns a non-empty file once it is stable, ignoring a rejected version, and stops when told', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-test-'));
    const path = join(dir, '0001.md');
    writeFileSync(path, 'old');
    setTimeout(() => writeFileSync(path, 'new'), 30);
    await expect(waitForFile(path, { ignore: 'old', intervalMs: 5 })).resolves.toBe('new');
    await expect(waitForFile(join(dir, 'never.md'), { stop: () => true })).resolves.toBeUndefined();
    await expect(waitForFile(join(dir, 'never.md'), { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(/within 20 ms/);
  });
});
