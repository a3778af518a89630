// .opencode/orca.jsonc on the real opencode binary: read at start, per-agent settings applied.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { createSandbox } from '../support/opencode-sandbox.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type ScriptedModel } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaRelay, jsonReply, team } from './team.js';

const PLAN = { type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] };

describe('.opencode/orca.jsonc', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let rootDir: string | undefined;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({
      respond: team({
        orca: orcaRelay('do it'),
        planner: () => jsonReply(PLAN),
        coder: () => jsonReply({ type: 'success', summary: 'done', artifacts: [] }),
      }),
    });
    const sandbox = createSandbox({});
    rootDir = sandbox.rootDir;
    mkdirSync(join(sandbox.projectDir, '.opencode'), { recursive: true });
    writeFileSync(
      join(sandbox.projectDir, '.opencode', 'orca.jsonc'),
      `{
        // headless: approve automatically (logged in the plan)
        "hitl": { "auto": { "approval": "approve" } },
        "agents": { "coder": { "temperature": 0.3 } },
        "max_attempts": 4,
      }`,
    );
    server = await startOpencode({ modelUrl: model.url, plugins: [builtPluginUrl], projectDir: sandbox.projectDir, homeDir: sandbox.homeDir });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await model?.close();
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  });

  it('should take the auto policy and the per-agent settings from the project file', async () => {
    const session = (await server.client.session.create({ title: 'config' })).data!;
    await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'do it' }] });
    const result = JSON.parse(lastToolResult(model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!)!.content);
    expect(result.status).toBe('completed');
    // OpenCode has the coder agent with the file's temperature (the scripted model declares no
    // temperature support, so OpenCode does not forward it in the request).
    const agents = (await (await server.fetch('/agent')).json()) as Array<{ name: string; temperature?: number; options?: { temperature?: number } }>;
    const coder = agents.find((a) => a.name === 'coder')!;
    expect(coder.temperature ?? coder.options?.temperature).toBe(0.3);
    expect(agents.find((a) => a.name === 'tester')!.temperature ?? null).toBeNull();
    // The planner is told the plan policy from the same file (what the plugin does by itself).
    const planner = model.chatRequests().find((r) => agentOf(r) === 'planner')!;
    expect(planner.system).toContain('Retry (until the step has failed 4 times)');
    // The file gave the step's worktree slot a .opencode folder: OpenCode's install there is the project's
    // (linked), not one from the registry (~/.npmrc points at a dead port: it would have failed).
    const slots = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: server.projectDir, encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith('worktree ') && line !== `worktree ${server.projectDir}`)
      .map((line) => line.slice('worktree '.length));
    expect(slots).toHaveLength(1);
    expect(readlinkSync(join(slots[0]!, '.opencode', 'node_modules'))).toBe(join(server.projectDir, '.opencode', 'node_modules'));
    expect(server.logs()).not.toMatch(/127\.0\.0\.1:9\b/);
  }, 60_000);
});
