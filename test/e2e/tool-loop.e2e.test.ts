// Seed 001's in-session loop breaker on the real opencode binary: a researcher reads the same
// missing file again and again; at the 3rd identical failure its next model request carries a
// redirect, at the 4th its session is aborted and the step fails with the reason.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaResumeRelay, scenarioOf, jsonReply } from './team.js';

const plan = (scenario: string) =>
  jsonReply({
    type: 'plan',
    goal: `SCENARIO:${scenario} summarise the release notes`,
    steps: [{ id: 'notes', agent: 'researcher', description: 'Read docs/RELEASE-NOTES.md and summarise it' }],
    assumptions: [],
    risks: [],
    verification: [],
  });
const REDIRECT = /You have called read with the same input 3 times and it failed the same way each time: .*RELEASE-NOTES\.md.*Do not call it again with this input/s;
const REASON = /^aborted after 4 identical failures of read: .*RELEASE-NOTES\.md/;

describe('identical tool failures in a specialist session', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));
  const results: Record<string, { plan_id: string; status: string; steps: unknown[] }> = {};

  const requests = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);
  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  const read = (file: string): ScriptedReply => ({ toolCalls: [{ name: 'read', arguments: { filePath: join(server.projectDir, file) } }] });

  function respond(req: RecordedRequest): ScriptedReply {
    const agent = agentOf(req);
    if (agent === 'orca') return orcaResumeRelay(req);
    if (agent === 'planner') return plan(scenarioOf(req));
    if (agent !== 'researcher') throw new Error(`unscripted agent ${agent}`);
    // Without a working breaker the loop would never end: fail fast and visibly instead.
    if (requests('researcher', scenarioOf(req)).length > 8) return jsonReply({ type: 'failure', error: 'the breaker never fired' });
    // "stubborn" reads the missing file whatever it is told; "heeds" reads another file once redirected.
    if (scenarioOf(req) === 'heeds') {
      if (lastToolResult(req)?.content.includes('v2.0')) return jsonReply({ type: 'success', summary: 'v2.0 notes summarised', artifacts: [] });
      if (REDIRECT.test(JSON.stringify(req.messages))) return read('docs/CHANGELOG.md');
    }
    return read('docs/RELEASE-NOTES.md');
  }

  async function run(scenario: string) {
    const session = (await server.client.session.create({ title: scenario })).data!;
    await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
    results[scenario] = JSON.parse(lastToolResult(requests('orca', scenario).at(-1)!)!.content);
  }

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve', deviation: 'stop' } } }]] },
      requestTimeoutMs: 30_000,
    });
    mkdirSync(join(server.projectDir, 'docs'));
    writeFileSync(join(server.projectDir, 'docs', 'CHANGELOG.md'), '# v2.0\nEverything is faster.\n');
    await run('stubborn');
    await run('heeds');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('should add the redirect to the 4th model request of the session, and to no earlier one', () => {
    const researcher = requests('researcher', 'stubborn');
    expect(toolResults(researcher[3]!).filter((r) => r.name === 'read')).toHaveLength(3);
    const last = researcher[3]!.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toMatch(REDIRECT);
    for (const earlier of researcher.slice(0, 3)) expect(JSON.stringify(earlier.messages)).not.toMatch(/You have called read/);
  });

  it('should abort the session at the 4th identical failure: no 5th model request', () => {
    expect(requests('researcher', 'stubborn')).toHaveLength(4);
    expect(server.logs()).toMatch(/aborted after 4 identical failures of read: .*; aborting the session/);
  });

  it('should fail the step with why, and stop the plan at the deviation gate (auto stop)', () => {
    expect(results.stubborn).toMatchObject({ status: 'stopped', steps: [{ id: 'notes', status: 'stopped' }] });
    const file = planFile(results.stubborn!.plan_id);
    expect(file.status).toBe('failed');
    expect(file.steps[0].failures).toHaveLength(1);
    expect(file.steps[0].failures[0].error).toMatch(REASON);
    expect(file.decisions).toMatchObject([
      { gate: 'approval', option: 'Approve', channel: 'auto' },
      { gate: 'deviation', option: 'Stop', channel: 'auto', step_id: 'notes' },
    ]);
  });

  it('should drop the redirect once the model moves on: it is added per request, never saved in the session', () => {
    const researcher = requests('researcher', 'heeds');
    expect(researcher).toHaveLength(5);
    expect(JSON.stringify(researcher[3]!.messages.at(-1))).toMatch(REDIRECT);
    expect(JSON.stringify(researcher[4]!.messages)).not.toMatch(/You have called read/);
    expect(results.heeds).toMatchObject({ status: 'completed' });
  });
});
