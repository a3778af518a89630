// The model output protocol and orca_ask_specialist on the real opencode binary.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, scenarioOf, userTurns, passingReview } from './team.js';

/**
 * One server, several conversations. Each Orca session's first message names a scenario; every
 * agent's script reads the scenario from the conversation so they can share the scripted model.
 */
const PLAN = {
  type: 'plan',
  goal: 'tiny',
  steps: [{ id: 'only', agent: 'reviewer', description: 'review' }],
  assumptions: [],
  risks: [],
  verification: [],
};

const toolTurns = (req: RecordedRequest) => req.messages.filter((m) => m.role === 'tool').length;

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  const result = lastToolResult(req);
  if (agent === 'orca') {
    if (result) return { text: 'relayed' };
    return { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  }
  if (agent === 'planner') {
    if (scenario === 'fix_once') return userTurns(req) === 1 ? { text: 'Sure! I will plan this: steps are impl then test.' } : jsonReply(PLAN);
    if (scenario === 'never_valid') return { text: `<think>hmm</think> plan attempt ${userTurns(req)}: {"type": "plan", "steps": "all"}` };
    if (scenario === 'ask_specialist') {
      // Ask the researcher twice in one conversation, then answer the user.
      if (toolTurns(req) === 0) return { toolCalls: [{ name: 'orca_ask_specialist', arguments: { agent_id: 'researcher', question: 'Q1: write notes.txt please' } }] };
      if (toolTurns(req) === 1) {
        const first = JSON.parse(result!.content);
        return { toolCalls: [{ name: 'orca_ask_specialist', arguments: { agent_id: 'researcher', question: 'Q2: and then?', session_id: first.session_id } }] };
      }
      if (toolTurns(req) === 2) {
        // A session this tool did not create for this agent must not be continued.
        const asked = JSON.parse(result!.content).session_id as string;
        return { toolCalls: [{ name: 'orca_ask_specialist', arguments: { agent_id: 'architect', question: 'Q3', session_id: asked } }] };
      }
      const second = toolResults(req).at(-2)!;
      return jsonReply({ type: 'answer', content: `researcher said: ${JSON.parse(second.content).answer} | third: ${result!.content}` });
    }
    if (scenario === 'denied_tool') return jsonReply(PLAN);
  }
  if (agent === 'researcher.readonly') {
    // A read-only session: the attempt to write is refused, and the researcher reports what happened.
    if (req.lastUser.startsWith('Q1') && !result) return { toolCalls: [{ name: 'write', arguments: { filePath: 'notes.txt', content: 'overwritten' } }] };
    if (req.lastUser.startsWith('Q1')) return { text: `write result: ${result!.content.slice(0, 120)}` };
    return { text: `second answer, turns=${userTurns(req)}` };
  }
  if (agent === 'reviewer') {
    // The reviewer is denied edit: OpenCode must refuse the call.
    if (!result) return { toolCalls: [{ name: 'edit', arguments: { filePath: 'notes.txt', oldString: 'original', newString: 'edited' } }] };
    return jsonReply({ type: 'success', summary: `edit said: ${result.content.slice(0, 200)}`, artifacts: [] });
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

describe('output protocol and orca_ask_specialist end to end', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } } }]] },
      requestTimeoutMs: 120_000,
    });
    writeFileSync(join(server.projectDir, 'notes.txt'), 'original');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  /** Run one Orca conversation and return what orca_ask_planner returned. */
  async function ask(scenario: string) {
    const session = (await server.client.session.create({ title: scenario })).data!;
    await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
    const last = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === scenario).at(-1)!;
    return JSON.parse(lastToolResult(last)!.content);
  }

  const plannerRequests = (scenario: string) => model.chatRequests().filter((r) => agentOf(r) === 'planner' && scenarioOf(r) === scenario);

  it('should send one correction prompt for malformed planner output and then accept the valid plan', async () => {
    const result = await ask('fix_once');
    expect(result.status).toBe('completed');
    const requests = plannerRequests('fix_once');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.lastUser).toMatch(/^Your previous reply could not be used: no JSON object/);
    expect(requests[1]!.lastUser).toContain('{"type":"plan"');
    expect(userTurns(requests[1]!)).toBe(2); // the correction went to the same planner session
  }, 60_000);

  it('should return failure with a clear message after three malformed outputs', async () => {
    const result = await ask('never_valid');
    expect(result.status).toBe('failure');
    expect(result.error).toMatch(/planner output was invalid after 2 correction prompts/);
    expect(plannerRequests('never_valid')).toHaveLength(3);
  }, 60_000);

  it('should refuse a write in an orca_ask_specialist session and continue it with session_id', async () => {
    const result = await ask('ask_specialist');
    expect(result.status).toBe('answer');
    expect(readFileSync(join(server.projectDir, 'notes.txt'), 'utf8')).toBe('original');
    const researcher = model.chatRequests().filter((r) => agentOf(r) === 'researcher.readonly');
    expect(researcher.every((r) => !r.tools.includes('write') && !r.tools.includes('edit') && !r.tools.includes('bash'))).toBe(true);
    const second = researcher.find((r) => r.lastUser.startsWith('Q2'))!;
    // Same session: the second question's request carries the first exchange.
    expect(JSON.stringify(second.messages)).toContain('Q1: write notes.txt please');
    expect(result.content).toContain('second answer, turns=2');
    expect(result.content, result.content).toMatch(/is not a read-only orca_ask_specialist session with architect/);
    expect(researcher.some((r) => r.lastUser === 'Q3')).toBe(false);
  }, 60_000);

  it("should have OpenCode refuse a specialist's call to a tool it is denied", async () => {
    const result = await ask('denied_tool');
    expect(result.status).toBe('completed');
    const reviewer = model.chatRequests().filter((r) => agentOf(r) === 'reviewer');
    expect(reviewer[0]!.tools).not.toContain('edit');
    expect(result.steps[0].summary).toMatch(/edit said: .*(unavailable|not|denied|invalid)/i);
    expect(readFileSync(join(server.projectDir, 'notes.txt'), 'utf8')).toBe('original');
  }, 60_000);
});
