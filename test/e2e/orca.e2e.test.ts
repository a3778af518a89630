// Orca on the real opencode binary with a scripted model: a 3-step plan from request to completed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaRelay, jsonReply, team } from './team.js';

const PLAN = {
  type: 'plan',
  goal: 'Add a greet() function with docs and a test',
  steps: [
    { id: 'impl', agent: 'coder', description: 'Create src/greet.ts exporting greet(name)', files: ['src/greet.ts'] },
    { id: 'docs', agent: 'document-writer', description: 'Document greet() in README.md', files: ['README.md'] },
    { id: 'test', agent: 'tester', description: 'Test greet() against its docs', depends_on: ['impl', 'docs'] },
  ],
  assumptions: ['TypeScript project'],
  risks: ['none'],
  verification: ['npm test passes'],
};

const success = (summary: string, artifacts: string[]) => ({ type: 'success', summary, artifacts, key_findings: [`${summary} (finding)`] });

describe('orca_ask_planner end to end', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));
  let orcaSession: string;
  let finalOrca: RecordedRequest;

  beforeAll(async () => {
    model = await startScriptedModel({
      respond: team({
        orca: orcaRelay('Add a greet function, document it and test it'),
        planner: () => jsonReply(PLAN),
        // The text beside each call is transcript only: it must never reach another step.
        coder: () => jsonReply(success('greet() implemented in src/greet.ts', ['src/greet.ts']), 'TRANSCRIPT-CODER-SCRATCH'),
        'document-writer': () => jsonReply(success('README documents greet()', ['README.md']), 'TRANSCRIPT-DOCS-SCRATCH'),
        tester: () => jsonReply(success('greet tests pass', ['test/greet.test.ts'])),
      }),
    });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } } }]] },
      requestTimeoutMs: 120_000,
      // As a user runs OpenCode: its file snapshots of every turn on (the harness turns them off).
      opencodeSnapshots: true,
    });
    const session = await server.client.session.create({ title: 'e2e' });
    orcaSession = session.data!.id;
    await server.client.session.prompt({
      sessionID: orcaSession,
      agent: 'orca',
      parts: [{ type: 'text', text: 'Add a greet function, document it and test it' }],
    });
    finalOrca = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  const byAgent = (agent: string) => model.chatRequests().filter((r) => agentOf(r) === agent);

  it('should offer Orca exactly its three tools', () => {
    for (const req of byAgent('orca')) expect([...req.tools].sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
  });

  it('should return completed with every step result to Orca', () => {
    const result = JSON.parse(lastToolResult(finalOrca)!.content);
    expect(result.status).toBe('completed');
    expect(result.steps.map((s: { id: string; summary: string }) => [s.id, s.summary])).toEqual([
      ['impl', 'greet() implemented in src/greet.ts'],
      ['docs', 'README documents greet()'],
      ['test', 'greet tests pass'],
    ]);
  });

  it("should give step 3 the summaries of steps 1 and 2 and none of their transcripts", () => {
    const [tester] = byAgent('tester');
    const prompt = tester!.messages.map((m) => JSON.stringify(m.content)).join('\n');
    expect(prompt).toContain('greet() implemented in src/greet.ts');
    expect(prompt).toContain('README documents greet()');
    expect(prompt).not.toContain('TRANSCRIPT-CODER-SCRATCH');
    expect(prompt).not.toContain('TRANSCRIPT-DOCS-SCRATCH');
    expect(prompt).not.toContain('Create src/greet.ts exporting greet(name)');
  });

  it('should run the planner and each specialist in child sessions of the Orca session', async () => {
    // The file-changing steps' sessions belong to their worktrees' directories: listed as children, not in the project's list.
    const children = (await server.client.session.children({ sessionID: orcaSession })).data!.map((s) => s.title);
    expect(children).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Orca planner · plan_/),
        expect.stringMatching(/^Orca coder · impl attempt 1/),
        expect.stringMatching(/^Orca document-writer · docs attempt 1/),
        expect.stringMatching(/^Orca tester · test attempt 1/),
      ]),
    );
  });

  it("should keep Orca's state out of OpenCode's file snapshots: the plans folder is git-ignored, so every turn's snapshot is the same tree", () => {
    expect(readFileSync(join(server.projectDir, '.opencode', 'plans', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // OpenCode logs the tree of the snapshot it takes around each turn; the scripted team changes no
    // file, so with the plan files and journals out of it there is one tree for the whole plan.
    const trees = new Set([...server.logs().matchAll(/message=tracking hash=(\w+)/g)].map((m) => m[1]));
    expect(trees.size).toBe(1);
  });

  it('should leave a completed plan file with each step output and the logged auto approval', () => {
    const dir = join(server.projectDir, '.opencode', 'plans');
    const [name] = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const file = JSON.parse(readFileSync(join(dir, name!), 'utf8'));
    expect(file.status).toBe('completed');
    expect(file.steps.map((s: any) => [s.id, s.status, s.attempts, s.output.summary])).toEqual([
      ['impl', 'completed', 1, 'greet() implemented in src/greet.ts'],
      ['docs', 'completed', 1, 'README documents greet()'],
      ['test', 'completed', 1, 'greet tests pass'],
    ]);
    expect(file.decisions).toMatchObject([{ gate: 'approval', option: 'Approve', channel: 'auto' }]);
  });
});
