// Deterministic human-in-the-loop on the real opencode binary: every gate is answered through
// OpenCode's question API exactly as the TUI answers it; no model decides anything. A server killed
// with the approval dialog open is test/e2e/crash-matrix.e2e.test.ts's pending_approval point.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { dismiss, labels, nextQuestion, reply } from './hitl-answers.js';
import { SHARED_TREE, agentOf, builtPluginUrl, jsonReply, scenarioOf, userTurns, orcaResumeRelay, passingReview } from './team.js';

const ok = (summary: string) => jsonReply({ type: 'success', summary, artifacts: [], key_findings: [] });
const failed = (error: string) => jsonReply({ type: 'failure', error });

const plan = (scenario: string, steps: Array<{ id: string; agent: string; depends_on?: string[]; description?: string }>) =>
  jsonReply({
    type: 'plan',
    goal: `SCENARIO:${scenario} goal`,
    steps: steps.map((s) => ({ description: `do ${s.id}`, ...s })),
    assumptions: [],
    risks: [],
    verification: [],
  });

/** Requests so far for an agent in a scenario (the current one included). */
let model: ScriptedModel;
const count = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario).length;

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    const turn = userTurns(req);
    switch (scenario) {
      case 'question':
        return turn === 1
          ? jsonReply({ type: 'question', questions: [{ header: 'Style', question: 'Formal or casual greeting?', options: [{ label: 'Formal' }, { label: 'Casual' }] }] })
          : jsonReply({ type: 'answer', content: `planner heard: ${req.lastUser.replace(/\s+/g, ' ')}` });
      case 'replan':
        return turn === 1
          ? plan(scenario, [{ id: 's1', agent: 'coder' }, { id: 's2', agent: 'tester', depends_on: ['s1'] }])
          : plan(scenario, [{ id: 's1', agent: 'coder' }, { id: 's3', agent: 'tester', depends_on: ['s1'] }]);
      case 'changes':
        // The revision after Request Changes: s2 reworded, s3 added.
        return turn === 1
          ? plan(scenario, [{ id: 's1', agent: 'coder' }, { id: 's2', agent: 'tester', depends_on: ['s1'] }])
          : plan(scenario, [
              { id: 's1', agent: 'coder' },
              { id: 's2', agent: 'tester', depends_on: ['s1'], description: 'do s2 in smaller pieces' },
              { id: 's3', agent: 'document-writer', depends_on: ['s2'] },
            ]);
      case 'approve':
        return plan(scenario, [{ id: 's1', agent: 'coder' }, { id: 's2', agent: 'tester', depends_on: ['s1'] }]);
      default:
        return plan(scenario, [{ id: 's1', agent: 'coder' }]);
    }
  }
  if (agent === 'coder') {
    if (scenario === 'retry') return count('coder', scenario) === 1 ? failed('tests are red') : ok('fixed on retry');
    if (scenario === 'limit' || scenario === 'stop') return failed(`compile error #${count('coder', scenario)}`);
    return ok(`coder did ${scenario}`);
  }
  if (agent === 'tester') {
    if (scenario === 'replan' && /Your step: s2/.test(req.lastUser)) return failed('no test runner');
    return ok(`tester did ${scenario}`);
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

describe('human-in-the-loop through the native question dialog', () => {
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, SHARED_TREE]] }, requestTimeoutMs: 180_000 });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  /** Start an Orca turn without waiting for it: it blocks while the plan waits on the human. */
  async function start(text: string) {
    const session = (await server.client.session.create({ title: text })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] });
    return { session, done };
  }
  const toolResult = (scenario: string) => {
    const last = model.chatRequests().filter((r) => agentOf(r) === 'orca' && scenarioOf(r) === scenario).at(-1)!;
    return JSON.parse(lastToolResult(last)!.content);
  };
  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));

  it('Approve: the dialog offers exactly Approve / Request Changes / Reject, then the plan completes', async () => {
    const { session, done } = await start('SCENARIO:approve');
    const q = await nextQuestion(server, /SCENARIO:approve goal/);
    expect(labels(q)).toEqual(['Approve', 'Request Changes', 'Reject']);
    // Raised from a direct child of the user's session, where the TUI shows it.
    const asker = (await server.client.session.get({ sessionID: q.sessionID })).data!;
    expect(asker.parentID).toBe(session.id);
    // 1.18 drops custom:false, so a typed answer is possible: it is no option, and the human is asked again.
    await reply(server, q, [['ship it now'], ['No guidance']]);
    const again = await nextQuestion(server, /^Note: "ship it now" is not offered at the approval gate/);
    expect(labels(again)).toEqual(['Approve', 'Request Changes', 'Reject']);
    await reply(server, again, [['Approve'], ['looks good']]);
    await done;
    const result = toolResult('approve');
    expect(result.status).toBe('completed');
    expect(planFile(result.plan_id).decisions).toMatchObject([{ gate: 'approval', option: 'Approve', channel: 'question', text: 'looks good' }]);
  }, 60_000);

  it("Request Changes: the planner's next prompt has the human's text and the plan returns for approval; Reject returns rejected", async () => {
    const { done } = await start('SCENARIO:changes');
    await reply(server, await nextQuestion(server, /SCENARIO:changes goal/), [['Request Changes'], ['smaller steps please']]);
    const again = await nextQuestion(server, /SCENARIO:changes goal/);
    const revision = model.chatRequests().filter((r) => agentOf(r) === 'planner' && scenarioOf(r) === 'changes').at(-1)!;
    expect(revision.lastUser).toContain('smaller steps please');
    // The second approval question shows what changed against the version the human saw.
    expect(again.questions[0]!.question).toContain('Changed: + s3 (document-writer); ~ s2: description');
    await reply(server, again, [['Reject'], ['No guidance']]);
    await done;
    const result = toolResult('changes');
    expect(result.status).toBe('rejected');
    expect(planFile(result.plan_id).status).toBe('rejected');
    // The plan file keeps the version the human asked to change.
    expect(planFile(result.plan_id).revisions.map((r: { steps: Array<{ id: string }> }) => r.steps.map((st) => st.id))).toEqual([['s1', 's2']]);
    expect(count('coder', 'changes')).toBe(0);
  }, 60_000);

  it('Retry: a failed step offers Retry / Replan / Stop; Retry with guidance succeeds', async () => {
    const { done } = await start('SCENARIO:retry');
    await reply(server, await nextQuestion(server, /SCENARIO:retry goal/), [['Approve'], ['No guidance']]);
    const deviation = await nextQuestion(server, /Step s1 \(coder\) failed/);
    expect(labels(deviation)).toEqual(['Retry', 'Replan', 'Stop']);
    expect(deviation.questions[0]!.question).toContain('tests are red');
    await reply(server, deviation, [['Retry'], ['use vitest']]);
    await done;
    expect(toolResult('retry').status).toBe('completed');
    const second = model.chatRequests().filter((r) => agentOf(r) === 'coder' && scenarioOf(r) === 'retry')[1]!;
    expect(second.lastUser).toContain('tests are red');
    expect(second.lastUser).toContain('use vitest');
  }, 60_000);

  it('After 10 failed attempts the dialog no longer offers Retry; Stop returns stopped', async () => {
    const { done } = await start('SCENARIO:limit');
    await reply(server, await nextQuestion(server, /SCENARIO:limit goal/), [['Approve'], ['No guidance']]);
    for (let failure = 1; failure <= 10; failure++) {
      const q = await nextQuestion(server, new RegExp(`compile error #${failure}\\b`));
      if (failure < 10) {
        expect(labels(q)).toEqual(['Retry', 'Replan', 'Stop']);
        await reply(server, q, [['Retry'], ['No guidance']]);
      } else {
        expect(labels(q)).toEqual(['Replan', 'Stop']);
        await reply(server, q, [['Stop'], ['No guidance']]);
      }
    }
    await done;
    const result = toolResult('limit');
    expect(result.status).toBe('stopped');
    const file = planFile(result.plan_id);
    expect(file.status).toBe('failed');
    expect(file.steps[0].failures).toHaveLength(10);
    expect(count('coder', 'limit')).toBe(10);
  }, 120_000);

  it('Replan: the planner gets the failure and guidance, completed steps are kept and not run again', async () => {
    const { done } = await start('SCENARIO:replan');
    await reply(server, await nextQuestion(server, /SCENARIO:replan goal/), [['Approve'], ['No guidance']]);
    await reply(server, await nextQuestion(server, /Step s2 \(tester\) failed/), [['Replan'], ['split the test']]);
    const revised = await nextQuestion(server, /SCENARIO:replan goal[\s\S]*s3/);
    const replanPrompt = model.chatRequests().filter((r) => agentOf(r) === 'planner' && scenarioOf(r) === 'replan').at(-1)!;
    expect(replanPrompt.lastUser).toContain('no test runner');
    expect(replanPrompt.lastUser).toContain('split the test');
    await reply(server, revised, [['Approve'], ['No guidance']]);
    await done;
    const result = toolResult('replan');
    expect(result.status).toBe('completed');
    expect(result.steps.map((s: { id: string }) => s.id)).toEqual(['s1', 's3']);
    expect(count('coder', 'replan')).toBe(1);
  }, 60_000);

  it('Stop: the tool returns stopped and the plan file says failed', async () => {
    const { done } = await start('SCENARIO:stop');
    await reply(server, await nextQuestion(server, /SCENARIO:stop goal/), [['Approve'], ['No guidance']]);
    await reply(server, await nextQuestion(server, /Step s1 \(coder\) failed/), [['Stop'], ['No guidance']]);
    await done;
    const result = toolResult('stop');
    expect(result.status).toBe('stopped');
    expect(planFile(result.plan_id)).toMatchObject({ status: 'failed', decisions: [{ option: 'Approve' }, { option: 'Stop', gate: 'deviation', step_id: 's1' }] });
  }, 60_000);

  it("A planner question shows the planner's own options and the answer reaches its next prompt", async () => {
    const { done } = await start('SCENARIO:question');
    const q = await nextQuestion(server, /Formal or casual greeting\?/);
    expect(q.questions).toHaveLength(1);
    expect(labels(q)).toEqual(['Formal', 'Casual']);
    await reply(server, q, [['Casual']]);
    await done;
    const result = toolResult('question');
    expect(result.status).toBe('answer');
    expect(result.content).toContain('A: Casual');
  }, 60_000);

  it('A dismissed dialog returns waiting with the reason; the plan stays at its gate', async () => {
    const { done } = await start('SCENARIO:dismiss');
    await dismiss(server, await nextQuestion(server, /SCENARIO:dismiss goal/));
    await done;
    const result = toolResult('dismiss');
    expect(result).toMatchObject({ status: 'waiting', waiting_for: 'approval' });
    expect(result.reason).toMatch(/dismissed the approval question/);
    expect(planFile(result.plan_id)).toMatchObject({ status: 'pending_approval', waiting_for: 'approval', decisions: [] });
    expect(count('coder', 'dismiss')).toBe(0);
  }, 60_000);

  it('No agent is offered a tool that could approve a plan or pick a deviation option', async () => {
    const offered = new Set(model.chatRequests().flatMap((r) => r.tools));
    expect([...offered].filter((t) => /approv|reject|retry|replan|deviation|decide|orca_plan|orca_step/i.test(t))).toEqual([]);
    const agents = (await (await server.fetch('/agent')).json()) as Array<{ name: string; permission: Array<{ permission: string; action: string }> }>;
    for (const agent of agents) {
      const allowed = agent.permission.filter((p) => p.action === 'allow').map((p) => p.permission);
      expect(allowed.filter((p) => /approv|retry|replan|deviation|decide/i.test(p)), agent.name).toEqual([]);
    }
  });
});
