// Seed 001's in-session loop breaker on the real opencode binary: a researcher reads the same
// missing file again and again; at the 3rd identical failure its next model request carries a
// redirect, at the 4th its session is aborted and the step fails with the reason. The same holds for a
// coder, whose session runs in the step's own git worktree (a second OpenCode instance, where Orca's
// plugin loads passive and relays every event and request transcript to the main instance's breaker):
// it reads a missing file by a relative path, resolved in its worktree, again and again.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { orcaWorktrees } from '../support/opencode-sandbox.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaResumeRelay, scenarioOf, jsonReply } from './team.js';

const plan = (scenario: string) =>
  jsonReply({
    type: 'plan',
    goal: `SCENARIO:${scenario} summarise the release notes`,
    steps:
      scenario === 'coder_loop'
        ? [{ id: 'missing', agent: 'coder', files: ['docs/MISSING.md'], description: 'Read docs/MISSING.md and fix its typos' }]
        : [{ id: 'notes', agent: 'researcher', description: 'Read docs/RELEASE-NOTES.md and summarise it' }],
    assumptions: [],
    risks: [],
    verification: [],
  });
const REDIRECT = /You have called read with the same input 3 times and it failed the same way each time: .*RELEASE-NOTES\.md.*Do not call it again with this input/s;
const REASON = /^aborted after 4 identical failures of read: .*RELEASE-NOTES\.md/;
const CODER_REDIRECT = /You have called read with the same input 3 times and it failed the same way each time: .*MISSING\.md.*Do not call it again with this input/s;
const CODER_REASON = /^aborted after 4 identical failures of read: .*MISSING\.md/;

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
    if (agent === 'coder') {
      if (requests('coder', scenarioOf(req)).length > 8) return jsonReply({ type: 'failure', error: 'the breaker never fired' });
      // A relative path: the read tool resolves it in the session's directory, the step's worktree.
      return { toolCalls: [{ name: 'read', arguments: { filePath: 'docs/MISSING.md' } }] };
    }
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
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve', deviation: 'stop' } } }]] },
      requestTimeoutMs: 90_000,
    });
    mkdirSync(join(server.projectDir, 'docs'));
    writeFileSync(join(server.projectDir, 'docs', 'CHANGELOG.md'), '# v2.0\nEverything is faster.\n');
    // The coder's plan runs beside the researcher's two (its worktree instance boots meanwhile).
    await Promise.all([
      (async () => {
        await run('stubborn');
        await run('heeds');
      })(),
      run('coder_loop'),
    ]);
  }, 120_000);

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
    expect(server.logs()).toMatch(/aborted after 4 identical failures of read: [^\n]*RELEASE-NOTES\.md[^\n]*; aborting the session/);
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

  describe('a coder in its own git worktree (the passive instance relays to the main breaker)', () => {
    /** The session's directory, from OpenCode's <env> block in the system prompt. */
    const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)?.[1]?.trim();

    it('should run the coder in its worktree and read the relative path there', () => {
      const coder = requests('coder', 'coder_loop');
      // A warm slot of the project's own pool: <worktrees>/<its repository's key>/slots/<n>.
      const slots = join(orcaWorktrees(server.homeDir, server.projectDir), 'slots') + sep;
      for (const req of coder) expect(workdirOf(req)!.startsWith(slots)).toBe(true);
      expect(workdirOf(coder[0]!)!.slice(slots.length)).toMatch(/^\d+$/);
      // Each read failed on the missing file, resolved in the worktree, not in the project.
      const reads = toolResults(coder.at(-1)!).filter((r) => r.name === 'read');
      expect(reads).toHaveLength(3);
      for (const r of reads) expect(r.content).toContain(join(workdirOf(coder[0]!)!, 'docs', 'MISSING.md'));
    });

    it('should add the redirect to the 4th model request of the session, and to no earlier one', () => {
      const coder = requests('coder', 'coder_loop');
      expect(toolResults(coder[3]!).filter((r) => r.name === 'read')).toHaveLength(3);
      const last = coder[3]!.messages.at(-1)!;
      expect(last.role).toBe('user');
      expect(JSON.stringify(last.content)).toMatch(CODER_REDIRECT);
      for (const earlier of coder.slice(0, 3)) expect(JSON.stringify(earlier.messages)).not.toMatch(/You have called read/);
    });

    it('should abort the session at the 4th identical failure: no 5th model request', () => {
      expect(requests('coder', 'coder_loop')).toHaveLength(4);
      expect(server.logs()).toMatch(/aborted after 4 identical failures of read: [^\n]*MISSING\.md[^\n]*; aborting the session/);
    });

    it('should fail the step with the same reason as the researcher case, and stop the plan at the deviation gate (auto stop)', () => {
      expect(results.coder_loop).toMatchObject({ status: 'stopped', steps: [{ id: 'missing', status: 'stopped' }] });
      const file = planFile(results.coder_loop!.plan_id);
      expect(file.status).toBe('failed');
      expect(file.steps[0].failures).toHaveLength(1);
      expect(file.steps[0].failures[0].error).toMatch(CODER_REASON);
      // Word for word the researcher's reason, but for the path.
      const researcher = planFile(results.stubborn!.plan_id).steps[0].failures[0].error as string;
      const shape = (reason: string) => reason.replace(/\S*(MISSING|RELEASE-NOTES)\.md\S*/g, '<path>');
      expect(shape(file.steps[0].failures[0].error)).toBe(shape(researcher));
      expect(shape(researcher)).toMatch(/^aborted after 4 identical failures of read: .*<path>$/);
      expect(file.decisions).toMatchObject([
        { gate: 'approval', option: 'Approve', channel: 'auto' },
        { gate: 'deviation', option: 'Stop', channel: 'auto', step_id: 'missing' },
      ]);
    });
  });
});
