// One malformed tool call must never cost a plan: on the real opencode binary, orca_ask_planner
// called with bad arguments answers an error naming `message`, writes nothing, and the next plan
// of the same server still completes with its file on disk.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { startScriptedModel, toolResults, type ScriptedModel } from '../support/scripted-model.js';
import { builtPluginUrl, jsonReply, team } from './team.js';

/** What a model may send when it gets the call wrong (OpenCode passes each to execute as it is). */
const BAD_CALLS: Array<[label: string, args: Record<string, unknown>]> = [
  ['no arguments', {}],
  ['a number', { message: 12345 }],
  ['an empty string', { message: '' }],
  ['null', { message: null }],
];

const PLAN = {
  type: 'plan',
  goal: 'Write hello.txt',
  steps: [{ id: 'hello', agent: 'document-writer', description: 'Write hello.txt', files: ['hello.txt'] }],
  assumptions: [],
  risks: [],
  verification: ['hello.txt exists'],
};

describe('a bad orca_ask_planner call on the real server', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));
  let results: Array<{ status: string; error?: string; error_type?: string; plan_id?: string }>;

  beforeAll(async () => {
    model = await startScriptedModel({
      respond: team({
        // Each bad call in turn, then a good one, then a final word once its result is back.
        orca: (req) => {
          const n = toolResults(req).length;
          if (n < BAD_CALLS.length) return { toolCalls: [{ name: 'orca_ask_planner', arguments: BAD_CALLS[n]![1] }] };
          if (n === BAD_CALLS.length) return { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: 'Write hello.txt' } }] };
          return { text: 'done' };
        },
        planner: () => jsonReply(PLAN),
        'document-writer': () => jsonReply({ type: 'success', summary: 'hello.txt written', artifacts: ['hello.txt'] }),
      }),
    });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } } }]] },
      requestTimeoutMs: 120_000,
    });
    const session = await server.client.session.create({ title: 'bad tool call' });
    await server.client.session.prompt({ sessionID: session.data!.id, agent: 'orca', parts: [{ type: 'text', text: 'Write hello.txt' }] });
    const last = model.chatRequests().filter((r) => toolResults(r).length === BAD_CALLS.length + 1).at(-1)!;
    results = toolResults(last).map((r) => JSON.parse(r.content));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it.each(BAD_CALLS.map(([label], i) => [label, i] as const))('should refuse %s for `message`, naming it and what it must be', (_label, i) => {
    const result = results[i]!;
    expect(result).toMatchObject({ status: 'failure', error_type: 'InvalidToolArgumentsError' });
    expect(result.error).toMatch(/^orca_ask_planner was called with invalid arguments: `message` must be a non-empty string/);
    expect(result).not.toHaveProperty('plan_id');
  });

  it('should then complete a normal plan, the only plan file on disk, which loads', () => {
    const final = results[BAD_CALLS.length]!;
    expect(final.status).toBe('completed');
    const dir = join(server.projectDir, '.opencode', 'plans');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toEqual([`${final.plan_id}.json`]);
    expect(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')).status).toBe('completed');
    expect(new PlanStore(dir).load(final.plan_id!).status).toBe('completed');
    expect(readdirSync(dir)).not.toContain('.quarantine');
  });
});
