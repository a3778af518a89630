// A specialist that calls a tool it lacks learns, in the tool result of its next request, what it
// called and which tools it has, and goes on to finish its step (real opencode binary): a
// researcher calls a tool nobody has, a reviewer calls `edit`, which exists but its role denies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_TOOLS } from '../../src/agents/index.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, isReviewRequest, jsonReply, orcaRelay } from './team.js';

const PLAN = {
  type: 'plan',
  goal: 'Look around the project',
  steps: [
    { id: 'survey', agent: 'researcher', description: 'Survey the project' },
    { id: 'audit', agent: 'reviewer', description: 'Audit the project', depends_on: ['survey'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

/** What each specialist calls first, though its role does not have it. */
const MISSING = { researcher: 'nonexistent_tool', reviewer: 'edit' } as const;
type Specialist = keyof typeof MISSING;

describe('a specialist calling a tool it does not have, on the real server', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));
  let result: { status: string; steps?: Array<{ id: string; status: string }> };

  const requests = (agent: Specialist) => model.chatRequests().filter((r) => agentOf(r) === agent && !isReviewRequest(r));

  function specialist(agent: Specialist) {
    return (req: RecordedRequest): ScriptedReply => {
      if (toolResults(req).length === 0) return { toolCalls: [{ name: MISSING[agent], arguments: { filePath: 'README.md' } }] };
      return jsonReply({ type: 'success', summary: `${agent} done`, artifacts: [] });
    };
  }

  beforeAll(async () => {
    const relay = orcaRelay('Look around the project');
    model = await startScriptedModel({
      respond: (req) => {
        const agent = agentOf(req);
        if (agent === 'orca') return relay(req, 0);
        if (agent === 'planner') return jsonReply(PLAN);
        if (agent === 'researcher' || agent === 'reviewer') return specialist(agent)(req);
        throw new Error(`unscripted agent ${agent}`);
      },
    });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve', deviation: 'stop' } } }]] },
      requestTimeoutMs: 30_000,
    });
    const session = (await server.client.session.create({ title: 'unknown tool' })).data!;
    await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'Look around the project' }] });
    const orca = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
    result = JSON.parse(lastToolResult(orca)!.content);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it.each(Object.keys(MISSING) as Specialist[])('should tell the %s, in its next request, the tool it called and the tools it has', (agent) => {
    const [first, second] = requests(agent);
    expect(first!.tools).not.toContain(MISSING[agent]);
    const answer = lastToolResult(second!)!;
    // OpenCode records the call as made to its `invalid` tool; Orca's hook rewrites the answer.
    expect(answer.name).toBe('invalid');
    expect(answer.content).toMatch(new RegExp(`^You called '${MISSING[agent]}', which is not one of your tools: nothing was run\\. Your tools are: .+\\. Call one of these instead\\.$`));
    const listed = /Your tools are: ([^.]+)\./.exec(answer.content)![1]!.split(', ');
    // Exactly what the model is offered, all of it the role's own tools.
    expect([...listed].sort()).toEqual([...first!.tools].sort());
    for (const tool of listed) expect(ROLE_TOOLS[agent]).toContain(tool);
  });

  it('should complete both steps', () => {
    expect(result.status).toBe('completed');
  });
});
