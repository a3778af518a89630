// Channel 3: slash commands move a waiting plan with no model request, on the real opencode binary.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { dismiss, nextQuestion, reply } from './hitl-answers.js';
import { SHARED_TREE, agentOf, builtPluginUrl, jsonReply, scenarioOf, passingReview } from './team.js';

let model: ScriptedModel;
const count = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario).length;

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    return jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: [{ id: 's1', agent: 'coder', description: 'do s1' }], assumptions: [], risks: [], verification: [] });
  }
  if (agent === 'coder') {
    const fails = scenario.startsWith('dev_') && !(scenario === 'dev_retry' && count('coder', scenario) > 1);
    return jsonReply(fails ? { type: 'failure', error: `broken ${scenario}` } : { type: 'success', summary: `coder did ${scenario}`, artifacts: [] });
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent}`);
}

describe('slash commands on a waiting plan', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, SHARED_TREE]] }, requestTimeoutMs: 60_000 });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));

  /** Bring a plan to a gate nobody is asking about any more: dismiss the dialog(s) until the tool returns waiting. */
  async function waitingPlan(scenario: string, gate: 'approval' | 'deviation') {
    const session = (await server.client.session.create({ title: scenario })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
    const approval = await nextQuestion(server, new RegExp(`SCENARIO:${scenario} goal`));
    if (gate === 'approval') await dismiss(server, approval);
    else {
      await reply(server, approval, [['Approve'], ['No guidance']]);
      await dismiss(server, await nextQuestion(server, new RegExp(`broken ${scenario}`)));
    }
    await done;
    const last = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === scenario).at(-1)!;
    const result = JSON.parse(lastToolResult(last)!.content);
    expect(result).toMatchObject({ status: 'waiting', waiting_for: gate });
    return { session, planId: result.plan_id as string };
  }

  /** Run a slash command as the TUI does and return the reply text and how many model requests it caused. */
  async function command(sessionID: string, name: string, args = '') {
    const before = model.requests.length;
    const res = await server.fetch(`/session/${sessionID}/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: name, arguments: args }),
      timeoutMs: 20_000,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { info: { providerID: string }; parts: Array<{ type: string; text?: string }> };
    return { text: body.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), provider: body.info.providerID, before };
  }

  it('/orca-approve approves the waiting plan and it runs to completed', async () => {
    const { session, planId } = await waitingPlan('approve', 'approval');
    const out = await command(session.id, 'orca-approve');
    expect(out.text).toBe(forMarkdown(`Orca: Approve recorded for plan ${planId}. It runs now; its outcome will be posted in this session.`));
    expect(out.provider).toBe('orca-hitl');
    await waitFor(() => planFile(planId).status === 'completed', { timeoutMs: 20_000, description: 'the plan completes' });
    expect(planFile(planId).decisions.at(-1)).toMatchObject({ gate: 'approval', option: 'Approve', channel: 'command' });
    expect(model.requests.slice(out.before).every((r) => ['coder', 'reviewer'].includes(agentOf(r)))).toBe(true);
  }, 60_000);

  it('/orca-changes sends the guidance to the planner and the plan comes back for approval', async () => {
    const { session, planId } = await waitingPlan('changes', 'approval');
    const out = await command(session.id, 'orca-changes', `${planId} fewer steps please`);
    expect(out.text).toContain('Request Changes recorded');
    await waitFor(() => count('planner', 'changes') === 2 && planFile(planId).waiting_for === 'approval', { timeoutMs: 20_000, description: 'the revised plan' });
    const revision = model.chatRequests().filter((r) => agentOf(r) === 'planner' && scenarioOf(r) === 'changes').at(-1)!;
    expect(revision.lastUser).toContain('fewer steps please');
  }, 60_000);

  it('/orca-reject with an explicit plan_id rejects it, with no model request', async () => {
    const { session, planId } = await waitingPlan('reject', 'approval');
    const out = await command(session.id, 'orca-reject', planId);
    expect(out.text).toBe(forMarkdown(`Orca: Reject recorded for plan ${planId}. Now: plan ${planId} was rejected: SCENARIO:reject goal`));
    expect(model.requests.length).toBe(out.before);
    expect(planFile(planId).status).toBe('rejected');
  }, 60_000);

  it('/orca-retry retries the failed step and the plan completes', async () => {
    const { session, planId } = await waitingPlan('dev_retry', 'deviation');
    const out = await command(session.id, 'orca-retry', 'try the other API');
    expect(out.text).toBe(forMarkdown(`Orca: Retry for step s1 recorded for plan ${planId} with "try the other API". It runs now; its outcome will be posted in this session.`));
    await waitFor(() => planFile(planId).status === 'completed', { timeoutMs: 20_000, description: 'the plan completes' });
    const second = model.chatRequests().filter((r) => agentOf(r) === 'coder' && scenarioOf(r) === 'dev_retry')[1]!;
    expect(second.lastUser).toContain('try the other API');
  }, 60_000);

  it('/orca-replan sends the plan back to the planner', async () => {
    const { session, planId } = await waitingPlan('dev_replan', 'deviation');
    const out = await command(session.id, 'orca-replan', 'use a smaller step');
    expect(out.text).toContain('Replan for step s1 recorded');
    await waitFor(() => count('planner', 'dev_replan') === 2 && planFile(planId).waiting_for === 'approval', { timeoutMs: 20_000, description: 'the replanned plan' });
    const replan = model.chatRequests().filter((r) => agentOf(r) === 'planner' && scenarioOf(r) === 'dev_replan').at(-1)!;
    expect(replan.lastUser).toContain('use a smaller step');
  }, 60_000);

  it('/orca-stop stops the plan as failed, with no model request', async () => {
    const { session, planId } = await waitingPlan('dev_stop', 'deviation');
    const out = await command(session.id, 'orca-stop');
    // The decision's words, then the stopped plan's outcome (notices/outcome-note.ts): the step that failed, with its error.
    expect(out.text.startsWith(forMarkdown(`Orca: Stop for step s1 recorded for plan ${planId}. Now: plan ${planId} stopped, 0 of 1 step done: SCENARIO:dev_stop goal\n✗ s1 (coder) stopped · broken dev_stop\nVerification: not run (the plan stopped before it).\nTotal: `))).toBe(true);
    expect(out.text).toContain(forMarkdown(`Each step's summary and history: orca show ${planId}`));
    expect(model.requests.length).toBe(out.before);
    expect(planFile(planId).status).toBe('failed');
  }, 60_000);

  it('orca decide from another terminal is picked up by the running server and the plan moves', async () => {
    const { planId } = await waitingPlan('cli', 'approval');
    const before = model.requests.length;
    const cli = spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli', 'main.js'), 'decide', planId, 'approve', '--dir', server.projectDir], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect([cli.status, cli.stderr]).toEqual([0, '']);
    expect(cli.stdout).toContain('applied by the running server');
    await waitFor(() => planFile(planId).status === 'completed', { timeoutMs: 20_000, description: 'the plan completes' });
    expect(planFile(planId).decisions.at(-1)).toMatchObject({ gate: 'approval', option: 'Approve', channel: 'cli' });
    expect(model.requests.slice(before).every((r) => ['coder', 'reviewer'].includes(agentOf(r)))).toBe(true);
  }, 60_000);

  it('a command with nothing to decide says so and changes nothing', async () => {
    const session = (await server.client.session.create({ title: 'idle' })).data!;
    const out = await command(session.id, 'orca-retry', 'plan_../../etc');
    // As the TUI shows it: no backslash before the underscore (1.18.33 shows a backslash escape as typed).
    expect(out.text).toMatch(/^Orca: `\/orca-retry` did nothing\. "plan_\.\.\/\.\.\/etc" is not a `plan_id`/);
    expect(model.requests.length).toBe(out.before);
  }, 30_000);
});
