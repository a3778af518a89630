// The role table on the real opencode 1.18 binary: which tools each agent's model is offered
// when applyAgents' config is installed, what happens when a model calls a tool anyway, how a
// session's own ruleset behaves, and that orca's HITL gate permission still prompts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INSTALLED_AGENT_IDS,
  OWN_TOOLS,
  READ_ONLY_SESSION_PERMISSIONS,
  ROLE_TOOLS,
  VERIFIER_AGENT_ID,
  VERIFIER_TOOLS,
  findAgentMarker,
  readOnlyAgentId,
  roleTools,
  type AgentId,
  type InstalledAgentId,
} from '../../src/agents/index.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { writePluginFile, type PluginFile } from '../support/plugin-file.js';
import { callTool, lastToolResult, startScriptedModel, text, type RecordedRequest, type ScriptedModel } from '../support/scripted-model.js';

const applyUrl = pathToFileURL(join(projectRoot, 'src', 'agents', 'apply.ts')).href;

// Dummy versions of Orca's four tools and the agenda's, so this test depends on nothing outside src/agents.
const PLUGIN = `
import { tool } from '@opencode-ai/plugin';
import { applyAgents } from ${JSON.stringify(applyUrl)};

const dummy = (name) => tool({ description: 'dummy ' + name, args: {}, async execute() { return name; } });

export const AgentsUnderTest = async () => ({
  // The default options: the planner has the agenda's tool (agenda.tools false: test/agents/role-table.test.ts).
  config: async (cfg) => { applyAgents(cfg); },
  tool: {
    // Asks a HITL gate permission the way the plugin's permission channel does.
    orca_ask_planner: tool({
      description: 'dummy orca_ask_planner',
      args: {},
      async execute(_args, ctx) {
        await ctx.ask({ permission: 'orca_plan_approval', patterns: ['plan-1'], always: [], metadata: {} });
        return 'approved';
      },
    }),
    orca_list_plans: dummy('orca_list_plans'),
    orca_describe_plan: dummy('orca_describe_plan'),
    orca_ask_specialist: dummy('orca_ask_specialist'),
    agenda: dummy('agenda'),
  },
});
`;

/** What a user might have in opencode.json that must not widen a role. */
const USER_CONFIG = {
  permission: { '*': 'allow', bash: 'allow', edit: 'allow' },
  agent: {
    orca: { temperature: 0.1, permission: { bash: 'allow', read: 'allow', orca_ask_specialist: 'allow' } },
    planner: { tools: { edit: true, bash: true } },
    researcher: { permission: { edit: 'allow', task: 'allow' } },
  },
};

const EDIT_FAMILY = new Set(['edit', 'write', 'apply_patch']);

describe('agents on the real opencode binary', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: PluginFile;
  /** Every tool OpenCode offers the built-in build agent here, plus Orca's ten (build is not offered those). */
  let universe: string[];
  let buildRequest: RecordedRequest;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({
      respond(req) {
        // "call NAME {json}": the model calls a tool it may not have been offered, once.
        const m = /^call (\w+) (.*)$/s.exec(req.lastUser);
        if (m && !lastToolResult(req)) return callTool(m[1]!, JSON.parse(m[2]!));
        return text('ok');
      },
    });
    plugin = writePluginFile(PLUGIN, 'agents-plugin.ts');
    server = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [plugin.url], config: USER_CONFIG });
    buildRequest = await offeredTools('build');
    universe = [...buildRequest.tools, ...OWN_TOOLS];
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    plugin?.remove();
  });

  async function offeredTools(
    agent: string,
    session: { permission?: unknown; tools?: Record<string, boolean>; say?: string } = {},
  ): Promise<RecordedRequest> {
    const created = await server.client.session.create(
      { title: `tools of ${agent}`, ...(session.permission ? { permission: session.permission as never } : {}) },
      { throwOnError: true },
    );
    const before = model.chatRequests().length;
    await server.client.session.prompt(
      { sessionID: created.data.id, agent, parts: [{ type: 'text', text: session.say ?? 'hi' }], ...(session.tools ? { tools: session.tools } : {}) },
      { throwOnError: true },
    );
    const req = model.chatRequests().slice(before).at(-1);
    if (!req) throw new Error(`Expected a chat request for agent ${agent}`);
    return req;
  }

  const expected = (allowed: readonly string[]) =>
    universe.filter((t) => allowed.includes(t) || (EDIT_FAMILY.has(t) && allowed.includes('edit'))).sort();

  it('lists every agent, the read-only twins and the verifier hidden', async () => {
    const res = await server.fetch('/agent', { timeoutMs: 15_000 });
    const agents = (await res.json()) as { name: string; mode: string; hidden?: boolean }[];
    const byName = new Map(agents.map((a) => [a.name, a]));
    expect(byName.get('orca')).toMatchObject({ mode: 'primary' });
    expect(byName.get('planner')).toMatchObject({ mode: 'subagent' });
    expect(byName.get(readOnlyAgentId('coder'))).toMatchObject({ mode: 'subagent', hidden: true });
    expect(byName.get(VERIFIER_AGENT_ID)).toMatchObject({ mode: 'subagent', hidden: true });
  }, 60_000);

  it('offers the verifier read, glob, grep and bash, and runs no write it calls anyway (issue 50)', async () => {
    const req = await offeredTools(VERIFIER_AGENT_ID);
    expect(findAgentMarker(req.system)).toBe(VERIFIER_AGENT_ID);
    expect([...req.tools].sort()).toEqual([...VERIFIER_TOOLS].sort());
    const last = await offeredTools(VERIFIER_AGENT_ID, { say: `call write ${JSON.stringify({ filePath: 'pwned-by-verifier.txt', content: 'x' })}` });
    expect(lastToolResult(last)?.content).toMatch(/unavailable tool/);
    expect(existsSync(join(server.projectDir, 'pwned-by-verifier.txt'))).toBe(false);
  }, 60_000);

  // OpenCode's own tool texts name other tools ("use the Task tool instead"): each agent's prompt names
  // those it lacks, checked here against the texts the real binary sends (src/agents/roles.ts OPENCODE_TOOL_REFERENCES).
  it.each(['planner', 'coder', 'document-writer', 'reviewer', VERIFIER_AGENT_ID, readOnlyAgentId('tester')])(
    "tells %s exactly which tools named in its real tool texts it lacks",
    async (agent) => {
      const req = await offeredTools(agent);
      const texts = (req.body.tools as { function: { description: string } }[]).map((t) => t.function.description).join('\n');
      const lacking = ['Task', 'Bash', 'Edit', 'Write', 'Read', 'Glob', 'Grep'].filter(
        (name) => !req.tools.includes(name.toLowerCase()) && new RegExp(`\\b${name}\\b`).test(texts),
      );
      const note = /The tool descriptions mention the (.+?) tools?, which you do not have: ignore those hints\./.exec(req.system)?.[1];
      expect((note ? note.split(/, | and /) : []).sort()).toEqual(lacking.sort());
    },
    60_000,
  );

  it("keeps Orca's tools and agents out of other agents' tools and task tool", () => {
    expect(buildRequest.tools.filter((t) => OWN_TOOLS.includes(t))).toEqual([]);
    const task = (buildRequest.body.tools as { function: { name: string; description: string } }[]).find((t) => t.function.name === 'task');
    expect(task?.function.description).toContain('- general:');
    for (const id of INSTALLED_AGENT_IDS) expect(task?.function.description).not.toContain(`- ${id}:`);
  });

  const roles = (Object.keys(ROLE_TOOLS) as AgentId[]).map((agent) => [agent, roleTools(agent)] as const);
  it.each(roles)('offers %s exactly its role tools, despite the user config', async (agent, allowed) => {
    const req = await offeredTools(agent);
    expect(findAgentMarker(req.system)).toBe(agent);
    expect([...req.tools].sort()).toEqual(expected(allowed));
  }, 60_000);

  it("offers the agenda's one tool to the planner by default, and not to a specialist or orca", async () => {
    const agendaOf = async (agent: string) => (await offeredTools(agent)).tools.filter((t) => t.startsWith('agenda'));
    expect(await agendaOf('planner')).toEqual(['agenda']);
    expect(await agendaOf('researcher')).toEqual([]);
    expect(await agendaOf('orca')).toEqual([]);
  }, 60_000);

  it('offers a read-only twin only read-only tools', async () => {
    const req = await offeredTools(readOnlyAgentId('coder'));
    expect(findAgentMarker(req.system)).toBe('coder.readonly');
    expect([...req.tools].sort()).toEqual(expected(['read', 'glob', 'grep', 'list', 'webfetch', 'orca_list_plans', 'orca_describe_plan']));
  }, 60_000);

  it('enforces a session ruleset from session.create on a full-power agent', async () => {
    const req = await offeredTools('coder', { permission: READ_ONLY_SESSION_PERMISSIONS });
    expect([...req.tools].sort()).toEqual(expected(['read', 'glob', 'grep', 'list', 'webfetch', 'orca_list_plans', 'orca_describe_plan']));
  }, 60_000);

  it('drops the session ruleset when a prompt passes a tools map (1.18 caveat)', async () => {
    const req = await offeredTools('coder', { permission: READ_ONLY_SESSION_PERMISSIONS, tools: { todowrite: true } });
    expect(req.tools).toContain('edit');
    expect(req.tools).toContain('bash');
  }, 60_000);

  it.each([
    ['orca', 'bash', { command: 'touch pwned-by-orca', description: 'try' }, 'pwned-by-orca'],
    [readOnlyAgentId('coder'), 'write', { filePath: 'pwned-by-twin.txt', content: 'x' }, 'pwned-by-twin.txt'],
  ] as const)('does not run a tool %s was not offered when its model calls it anyway', async (agent, tool, args, file) => {
    const last = await offeredTools(agent, { say: `call ${tool} ${JSON.stringify(args)}` });
    const result = lastToolResult(last);
    expect(result?.content).toMatch(/unavailable tool/);
    expect(existsSync(join(server.projectDir, file))).toBe(false);
  }, 60_000);

  it("lets orca's gate permission prompt the human although orca denies everything else", async () => {
    const pending = offeredTools('orca', { say: 'call orca_ask_planner {}' });
    const request = await waitFor(async () => {
      const res = await server.fetch('/permission', { timeoutMs: 5_000 });
      const list = (await res.json()) as { id: string; permission: string }[];
      return list.find((p) => p.permission === 'orca_plan_approval');
    }, { timeoutMs: 20_000 });
    const reply = await server.fetch(`/permission/${request.id}/reply`, { method: 'POST', body: JSON.stringify({ reply: 'once' }) });
    expect(reply.status).toBe(200);
    expect(lastToolResult(await pending)?.content).toBe('approved');
  }, 60_000);
});
