// Usage and cost on the real opencode binary: the scripted model reports usage in its stream's
// usage chunk, the model config gives prices per million tokens, and Orca sums what OpenCode
// computed from them, pauses at the token budget, forecasts from this project's history and
// retitles orca_ask_planner's running tool call while the plan runs. A turn stopped by Esc is counted
// once: journaled (and in the history) when it stops, in the plan's usage when the plan resumes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { reopenProject, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply, type ScriptedUsage } from '../support/scripted-model.js';
import { runCli } from '../cli/fixtures.js';
import { nextQuestion, reply } from './hitl-answers.js';
import { agentOf, builtPluginUrl, isReviewRequest, orcaResumeRelay, scenarioOf, jsonReply } from './team.js';
import type { JournalEntry } from '../../src/persistence/journal.js';
import { RESTORE_TEXT } from '../../src/notices/session-notes.js';
import type { Usage } from '../../src/machines/usage.js';

/** Prices per million tokens, as a user's opencode.json gives them for a model. */
const PRICE = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

/** What each agent's requests report in the usage chunk (cached tokens are part of prompt_tokens, reasoning of completion_tokens). */
const REPORTED: Record<string, ScriptedUsage> = {
  planner: { prompt_tokens: 1000, completion_tokens: 100 },
  coder: { prompt_tokens: 3000, completion_tokens: 300, cached_tokens: 1000, reasoning_tokens: 50 },
  reviewer: { prompt_tokens: 1500, completion_tokens: 80, cached_tokens: 500 },
  'document-writer': { prompt_tokens: 800, completion_tokens: 120, reasoning_tokens: 20 },
};

/** OpenCode's rules: input = prompt − cached, output = completion − reasoning, reasoning at the output price. `times` model requests, each its own turn. */
function asOpencodeCounts(u: ScriptedUsage, times = 1): Usage {
  const cached = u.cached_tokens ?? 0;
  const reasoning = u.reasoning_tokens ?? 0;
  const input = u.prompt_tokens - cached;
  const output = u.completion_tokens - reasoning;
  const cost = (input * PRICE.input + output * PRICE.output + reasoning * PRICE.output + cached * PRICE.cache_read) / 1e6;
  return { turns: times, model_calls: times, input: input * times, output: output * times, reasoning: reasoning * times, cache_read: cached * times, cache_write: 0, cost: cost * times };
}
const sum = (...all: Usage[]): Usage =>
  all.reduce((a, b) => ({ turns: a.turns + b.turns, model_calls: a.model_calls! + b.model_calls!, input: a.input + b.input, output: a.output + b.output, reasoning: a.reasoning + b.reasoning, cache_read: a.cache_read + b.cache_read, cache_write: a.cache_write + b.cache_write, cost: a.cost + b.cost }));

const ok = (summary: string) => jsonReply({ type: 'success', summary, artifacts: [], key_findings: [] });
const planOf = (scenario: string, steps: Array<{ id: string; agent: string; depends_on?: string[] }>) =>
  jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} goal`, steps: steps.map((s) => ({ description: `do ${s.id}`, ...s })), assumptions: [], risks: [], verification: [] });

let model: ScriptedModel;
let server: OpencodeServer;
/** The escape scenario's coder answer, held until the test ends: Esc stops the turn while it waits. */
let releaseHeld: () => void = () => {};
const held = new Promise<void>((resolve) => (releaseHeld = resolve));
/** Chat requests of one agent in one scenario (model requests, not turns: a tool call makes two). */
const requestsOf = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req);
  const usage = REPORTED[agent];
  const withUsage = (r: ScriptedReply): ScriptedReply => (usage ? { ...r, usage } : r);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    return withUsage(
      scenario === 'sums'
        ? planOf(scenario, [{ id: 'impl', agent: 'coder' }, { id: 'docs', agent: 'document-writer', depends_on: ['impl'] }])
        : scenario === 'escape'
          ? planOf(scenario, [{ id: 'impl', agent: 'coder' }])
          : planOf(scenario, [{ id: 's1', agent: 'document-writer' }, { id: 's2', agent: 'document-writer', depends_on: ['s1'] }]),
    );
  }
  if (agent === 'coder' && scenario === 'escape') {
    // A read, then the answer Esc stops while it is in flight; the turn run again after the resume answers at once.
    const n = requestsOf('coder', scenario).length;
    if (n === 1) return withUsage({ toolCalls: [{ name: 'read', arguments: { filePath: join(server.projectDir, 'README.md') } }] });
    if (n === 2) await held;
    return withUsage(ok('greet() written'));
  }
  if (agent === 'coder') {
    // A turn with a tool call: two model requests, two assistant messages; only the last is the prompt's reply.
    if (!req.messages.some((m) => m.role === 'tool')) return withUsage({ toolCalls: [{ name: 'read', arguments: { filePath: join(server.projectDir, 'README.md') } }] });
    return withUsage(ok('greet() written'));
  }
  if (agent === 'reviewer' && isReviewRequest(req)) return withUsage(jsonReply({ type: 'pass', summary: 'meets the criteria' }));
  // sums' docs step runs 2.5 s: longer than the pause between two retitles of the running call (1 s), so its title is shown.
  if (agent === 'document-writer') return { ...withUsage(ok(`documented ${/Your step: (\w+)/.exec(req.lastUser)?.[1]}`)), ...(scenario === 'sums' ? { delayMs: 2500 } : {}) };
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

const planPath = (planId: string) => join(server.projectDir, '.opencode', 'plans', `${planId}.json`);
const planFile = (planId: string) => JSON.parse(readFileSync(planPath(planId), 'utf8'));
const turnLines = (planId: string) =>
  readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.journal.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEntry)
    .filter((e): e is Extract<JournalEntry, { kind: 'turn' }> => e.kind === 'turn');

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

describe('usage and cost of a plan on the real server', () => {
  reportOnFailure(() => ({ server, model }));
  const cost = { provider: { fake: { models: { 'fake-model': { cost: PRICE } } } } };

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [builtPluginUrl], config: cost, requestTimeoutMs: 180_000 });
  }, 60_000);

  afterAll(async () => {
    releaseHeld();
    await server?.stop();
    await model?.close();
  });

  let firstPlan: string;

  it('should sum every turn per step and per plan as OpenCode computed it, retitle the running call, and forecast nothing without history', async () => {
    const started = Date.now();
    const { session, done } = await start('SCENARIO:sums');
    const approval = await nextQuestion(server, /SCENARIO:sums goal/);
    expect(approval.questions[0]!.question).toContain('Forecast: at least 3 dispatches (2 steps + 1 reviewer round); tokens and cost: no history yet');
    await reply(server, approval, [['Approve'], ['No guidance']]);
    await done;
    const result = toolResult('sums');
    expect(result.status).toBe('completed');
    firstPlan = result.plan_id;

    const planner = asOpencodeCounts(REPORTED.planner!, requestsOf('planner', 'sums').length);
    // The coder's turn made two model requests (a read, then its answer): both are in its usage, as one turn.
    expect(requestsOf('coder', 'sums')).toHaveLength(2);
    const coder = { ...asOpencodeCounts(REPORTED.coder!, 2), turns: 1 };
    const reviewer = asOpencodeCounts(REPORTED.reviewer!, requestsOf('reviewer', 'sums').length);
    const impl = sum(coder, reviewer);
    const docs = asOpencodeCounts(REPORTED['document-writer']!, requestsOf('document-writer', 'sums').length);
    const file = planFile(firstPlan);
    const close = (u: Usage) => ({ ...u, cost: expect.closeTo(u.cost, 10) });
    expect(file.steps.map((s: { id: string; usage: Usage }) => [s.id, s.usage])).toEqual([
      ['impl', close(impl)],
      ['docs', close(docs)],
    ]);
    // One Orca turn of the coder, two model calls (OpenCode's two assistant messages); the reviewer's turn is the reviewer's.
    expect(coder).toMatchObject({ turns: 1, model_calls: 2 });
    expect(file.steps[0].usage_by_role).toEqual({ specialist: close(coder), reviewer: close(reviewer) });
    expect(file.usage).toEqual(close(sum(planner, impl, docs)));
    expect(result.usage).toEqual(file.usage);
    expect(result.spent).toMatch(/^4 Orca turns, 5 model calls, [\d,]+ tokens, \$0\.\d+$/);
    expect(result.steps[0].spent).toMatch(/^2 Orca turns, 3 model calls, [\d,]+ tokens, \$0\.\d+ \(specialist 1 Orca turn, 2 model calls, 6,600 tokens, \$0\.\d+; reviewer 1 Orca turn, 1 model call, [\d,]+ tokens, \$0\.\d+\)$/);
    expect(result).not.toHaveProperty('failures');
    expect(result.decisions).toEqual(['Approve at approval by the user in the dialog']);

    // One journal line per turn, with what it cost.
    const journal = readFileSync(join(server.projectDir, '.opencode', 'plans', `${firstPlan}.journal.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.kind === 'turn');
    expect(journal.map((e) => [e.role, e.agent, e.step_id ?? null])).toEqual([
      ['planner', 'planner', null],
      ['specialist', 'coder', 'impl'],
      ['reviewer', 'reviewer', 'impl'],
      ['specialist', 'document-writer', 'docs'],
    ]);

    // The running orca_ask_planner call was retitled as the plan went (message.part.updated).
    const titles = server.events
      .ofType('message.part.updated')
      .map((e) => e.properties.part)
      .filter((p) => p?.type === 'tool' && p.tool === 'orca_ask_planner' && p.sessionID === session.id && p.state?.status === 'running')
      .map((p) => p.state.title as string | undefined)
      .filter((t): t is string => typeof t === 'string');
    const distinct = [...new Set(titles)];
    // At most one retitle a second, the newest winning: the short impl step may be skipped, the long docs step is shown.
    expect(distinct).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${firstPlan} · 1/2 done · docs \\(document-writer\\) running · \\$0\\.\\d+$`))]));
    // The tool's own result closed the part: its final title is the outcome with the total. The event
    // stream may bring that last update after the prompt's reply: wait for the part to be done.
    const final = await waitFor(
      () => {
        const last = server.events
          .ofType('message.part.updated')
          .map((e) => e.properties.part)
          .filter((p) => p?.type === 'tool' && p.tool === 'orca_ask_planner' && p.sessionID === session.id)
          .at(-1);
        return last?.state?.status === 'running' ? undefined : last;
      },
      { timeoutMs: 10_000, description: 'the call part closed in the event stream' },
    );
    expect(final.state).toMatchObject({ status: 'completed', title: expect.stringMatching(new RegExp(`^plan ${firstPlan}: completed · 4 Orca turns, 5 model calls`)) });
    console.info(`usage e2e: first plan (sums, titles) ${Date.now() - started} ms; titles seen: ${distinct.join(' | ')}`);
  }, 120_000);

  it('should print the usage per plan and per step in orca plans and orca show', async () => {
    const show = await runCli(['show', firstPlan, '--dir', server.projectDir]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^ {2}usage {4}4 Orca turns, 5 model calls, [\d,]+ tokens, \$0\.\d+$/m);
    expect(show.stdout).toMatch(/^ {6}usage: 2 Orca turns, 3 model calls, [\d,]+ tokens, \$0\.\d+ \(in [\d,]+ · out [\d,]+ · reasoning 100 · cache read 2,500 · cache write 0 · cache hits \d+%\)$/m);
    expect(show.stdout).toMatch(/^ {8}specialist 1 Orca turn, 2 model calls, 6,600 tokens, \$0\.\d+$/m);
    expect(show.stdout).toMatch(/^ {8}reviewer 1 Orca turn, 1 model call, [\d,]+ tokens, \$0\.\d+$/m);
    expect(show.stdout).toMatch(/specialist \(coder\) turn for step impl: 1 Orca turn, 2 model calls, 6,600 tokens, \$0\.\d+/);
    const plans = await runCli(['plans', '--dir', server.projectDir]);
    expect(plans.stdout).toMatch(new RegExp(`^${firstPlan}\\s+completed\\s+-\\s+SCENARIO:sums goal\\s+2/2\\s+[\\d,]+\\s+\\$0\\.\\d+\\s`, 'm'));
    console.info(`orca show ${firstPlan}:\n${show.stdout.split('\nHistory')[0]}`);
  });

  it('should count a turn stopped by Esc once: journaled and in the history when it stops, in the plan when the plan resumes', async () => {
    const started = Date.now();
    const { session, done } = await start('SCENARIO:escape');
    const approval = await nextQuestion(server, /SCENARIO:escape goal/);
    const planId = /plan_\w{26}/.exec(approval.questions[0]!.question)![0];
    await reply(server, approval, [['Approve'], ['No guidance']]);
    await waitFor(() => requestsOf('coder', 'escape').length === 2, { timeoutMs: 30_000, description: 'the coder answering after its read' });
    await server.client.session.abort({ sessionID: session.id }); // Esc
    await done.catch(() => {});

    // What OpenCode recorded of the stopped turn: the read's request with its tokens, and the answer in flight (no tokens yet).
    const stopped: Usage = { ...asOpencodeCounts(REPORTED.coder!), model_calls: 2 };
    const close = (u: Usage) => ({ ...u, cost: expect.closeTo(u.cost, 10) });
    const line = await waitFor(() => turnLines(planId).find((e) => e.aborted), { timeoutMs: 10_000, description: "the stopped turn's journal line" });
    expect(line).toMatchObject({ role: 'specialist', agent: 'coder', step_id: 'impl', correction: false, usage: close(stopped), uncounted: close(stopped) });
    // The file Esc wrote holds the planner's turn only: the coder's was stopped after that write.
    const planner = asOpencodeCounts(REPORTED.planner!, requestsOf('planner', 'escape').length);
    expect(planFile(planId).usage).toEqual(close(planner));

    // Resumed in the same session, once Orca's note says the plan is paused: the coder's turn left no result, so the
    // resume gate asks; what the stopped turn cost is counted before it asks.
    // (The note is said back by a hidden turn, then a hidden message gives the session its own agent back: a
    // prompt sent before that lands among them.)
    await waitFor(
      async () => {
        const messages = (await server.client.session.messages({ sessionID: session.id })).data ?? [];
        const said = messages.some((m) => m.info.role === 'assistant' && m.parts.some((p) => p.type === 'text' && p.text.includes('is paused and saved')));
        const restored = messages.at(-1)?.parts.some((p) => p.type === 'text' && p.text === RESTORE_TEXT);
        return said && restored;
      },
      { timeoutMs: 20_000, description: 'the paused note in the session, and its own agent given back' },
    );
    const resumed = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:escape RESUME ${planId}` }] });
    const gate = await nextQuestion(server, new RegExp(`Plan ${planId}: step impl`));
    await waitFor(() => planFile(planId).usage.turns === 2, { timeoutMs: 10_000, description: 'the stopped turn counted in the plan' });
    expect(planFile(planId).usage).toEqual(close(sum(planner, stopped)));
    await reply(server, gate, [['Re-run'], ['No guidance']]);
    await resumed;
    const result = toolResult('escape');
    expect(result.status).toBe('completed');

    const rerun = asOpencodeCounts(REPORTED.coder!);
    const reviewer = asOpencodeCounts(REPORTED.reviewer!, requestsOf('reviewer', 'escape').length);
    const file = planFile(planId);
    expect(file.steps[0].usage_by_role).toEqual({ specialist: close(sum(stopped, rerun)), reviewer: close(reviewer) });
    expect(file.usage).toEqual(close(sum(planner, stopped, rerun, reviewer)));
    expect(result.usage).toEqual(file.usage);
    // Journaled once when it stopped, counted once when the plan resumed.
    const lines = turnLines(planId);
    expect(lines.filter((e) => e.aborted)).toHaveLength(1);
    expect(lines.filter((e) => e.counted)).toEqual([expect.objectContaining({ role: 'specialist', step_id: 'impl', counted: close(stopped) })]);
    // The history behind forecasts has the stopped turn among the coder's turns, then the one run again.
    const history = JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', '.usage-history'), 'utf8'));
    const tokens = (u: Usage) => u.input + u.output + u.reasoning + u.cache_read + u.cache_write;
    expect(history.agents.coder.slice(-2)).toEqual([
      [tokens(stopped), expect.closeTo(stopped.cost, 10)],
      [tokens(rerun), expect.closeTo(rerun.cost, 10)],
    ]);
    console.info(`usage e2e: a turn stopped by Esc, resumed ${Date.now() - started} ms`);
  }, 120_000);

  describe('with budget.max_tokens 2,000', () => {
    beforeAll(async () => {
      // The project's config changed and OpenCode restarted on it: the same plans and usage history.
      server = await reopenProject(server, { config: { ...cost, plugin: [[builtPluginUrl, { budget: { max_tokens: 2000 } }]] }, plugins: [] });
    }, 60_000);

    it('should forecast from the first plan, pause at the budget gate after the first step, and complete on Continue', async () => {
      const started = Date.now();
      const { done } = await start('SCENARIO:budgetgo');
      const approval = await nextQuestion(server, /SCENARIO:budgetgo goal/);
      // The first plan's document-writer turn: 920 tokens, $0.0042 (800 in at $3, 100 out and 20 reasoning at $15 per million).
      expect(approval.questions[0]!.question).toContain(
        'Forecast: at least 2 dispatches (2 steps); about 1,840 tokens and $0.0084, from the medians of 1 recorded turn (document-writer 1).',
      );
      console.info(`approval question of the second plan:\n${approval.questions[0]!.question}`);
      await reply(server, approval, [['Approve'], ['No guidance']]);
      const budget = await nextQuestion(server, /has reached its budget/);
      console.info(`budget question:\n${budget.questions[0]!.question}`);
      expect(budget.questions[0]!.header).toBe('Token budget reached');
      // The planner's 1,100 tokens and s1's 920 cross the 2,000.
      expect(budget.questions[0]!.question).toContain('2,020 tokens of the 2,000 limit (budget.max_tokens)');
      expect(budget.questions[0]!.question).toContain('on s1 (document-writer, completed) 1 Orca turn, 1 model call, 920 tokens, $0.0042');
      expect(budget.questions[0]!.question).toContain('Continue raises the token limit by 2,000 to 4,020');
      expect(budget.questions[0]!.options.map((o) => o.label)).toEqual(['Continue', 'Stop']);
      const paused = planFile(toolPlanId(budget.questions[0]!.question));
      expect([paused.waiting_for, paused.steps.map((s: { status: string }) => s.status)]).toEqual(['budget', ['completed', 'pending']]);
      await reply(server, budget, [['Continue'], ['No guidance']]);
      await done;
      const result = toolResult('budgetgo');
      expect(result.status).toBe('completed');
      const file = planFile(result.plan_id);
      expect(file.decisions.map((d: { gate: string; option: string }) => `${d.gate}:${d.option}`)).toEqual(['approval:Approve', 'budget:Continue']);
      expect(file.budget).toEqual({ dispatches: 2, dispatch_cap: 100, max_cost: null, max_tokens: 4020 });
      console.info(`usage e2e: budget Continue ${Date.now() - started} ms`);
    }, 120_000);

    it('should forecast from every recorded turn of the agent, and end the plan on Stop', async () => {
      const started = Date.now();
      const { done } = await start('SCENARIO:budgetstop');
      const approval = await nextQuestion(server, /SCENARIO:budgetstop goal/);
      expect(approval.questions[0]!.question).toMatch(
        /Forecast: at least 2 dispatches \(2 steps\); about 1,840 tokens and \$0\.0084, from the medians of 3 recorded turns \(document-writer 3\)\./,
      );
      await reply(server, approval, [['Approve'], ['No guidance']]);
      const budget = await nextQuestion(server, /has reached its budget/);
      await reply(server, budget, [['Stop'], ['too expensive']]);
      await done;
      const result = toolResult('budgetstop');
      expect(result.status).toBe('stopped');
      expect(result.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
        ['s1', 'completed'],
        ['s2', 'pending'],
      ]);
      expect(planFile(result.plan_id).decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Stop', channel: 'question', text: 'too expensive' });
      expect(result.decisions).toEqual(['Approve at approval by the user in the dialog', 'Stop at the budget limit by the user in the dialog: "too expensive"']);
      expect(requestsOf('document-writer', 'budgetstop')).toHaveLength(1);
      console.info(`usage e2e: budget Stop ${Date.now() - started} ms`);
    }, 120_000);
  });
});

const toolPlanId = (question: string) => /Plan (plan_\w+) has reached its budget/.exec(question)![1]!;
