// Seed 003's quality gate on the real opencode binary with a scripted model: the reviewer's
// FAIL → fix → review loop, its round limit, the same-error breaker, step hooks and the idle
// timeout. Every plan runs headless (hitl.auto: approve, stop on a failed step) and all of them
// run at once: one server for the gate and hooks, one with a 2 s idle timeout.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { dismiss, labels, nextQuestion } from './hitl-answers.js';
import { agentOf, builtPluginUrl, isFixRequest, isReviewRequest, orcaResumeRelay, scenarioOf, jsonReply } from './team.js';
import { allSessions } from '../support/all-sessions.js';

/** One single-step plan per scenario; step ids are unique so hooks and questions can tell them apart. */
const STEPS = {
  review_loop: { id: 'impl', agent: 'coder' },
  review_fail: { id: 'rework', agent: 'coder' },
  breaker: { id: 'stuck', agent: 'coder' },
  hooks: { id: 'hooked', agent: 'tester' },
  pre_block: { id: 'blocked', agent: 'tester' },
  idle: { id: 'slow', agent: 'tester' },
  // Two steps in a row under a budget of one dispatch: the plan pauses at the cap after the first.
  budget: { id: 'first', agent: 'researcher' },
} as const;
type Scenario = keyof typeof STEPS;
const IDLE_SCENARIOS: Scenario[] = ['idle'];
const BUDGET_SCENARIOS: Scenario[] = ['budget'];

const SUCCESS_CRITERIA = 'hello("Ada") returns "Hello, Ada!"';
const CODER_SCRATCH = 'CODER-SCRATCH-NOTE-7f3a';
const IDLE_SECONDS = 2;
// Far beyond the idle timeout, so a busy machine cannot blur "stopped by the idle watch" with "the tester answered".
const TESTER_DELAY_MS = 30_000;

const reviewError = (file: string, issue: string, line = 1) => ({
  id: 'ERROR-001',
  category: 'Logic',
  file,
  line,
  issue,
  found: 'return "Hello";',
  expected: 'return `Hello, ${name}!`;',
  fix: 'interpolate the name argument',
});
/** review_fail: a different error every round, so the same-error breaker never opens. */
const ROUND_ERRORS = [
  reviewError('hello.ts', 'greets nobody'),
  reviewError('hello.ts', 'missing export keyword', 3),
  reviewError('hello.test.ts', 'no test for the empty name', 7),
];

// Outside the project: a hook runs in its step's worktree, where a file it wrote would land in the project as the step's change.
const HOOK_LOG = join(mkdtempSync(join(tmpdir(), 'orca-hooks-')), 'hooks.log');
const LOG_LINE = `echo "$ORCA_HOOK $ORCA_PLAN_ID $ORCA_STEP_ID $ORCA_AGENT $ORCA_ATTEMPT $PWD" >> ${HOOK_LOG}`;
const GATE_OPTIONS = {
  hitl: { auto: { approval: 'approve', deviation: 'stop' } },
  review: { max_rounds: 3 },
  breakers: { same_error: 2 },
  hooks: {
    // The hook's output says which step it ran for, so the error shows the output, not just the command.
    pre_step: [LOG_LINE, 'if [ "$ORCA_STEP_ID" = blocked ]; then echo "lint broke in $ORCA_STEP_ID"; exit 2; fi'],
    post_step: [LOG_LINE, 'if [ "$ORCA_STEP_ID" = hooked ]; then echo "post hook broke in $ORCA_STEP_ID" >&2; exit 3; fi'],
  },
};
// In the shared tree: a worktree's OpenCode instance boots within the step's idle time, which a 2 s limit cannot tell from idleness
// (the relay of a worktree's events to the idle watch is shown by the tool-loop breaker and the usage meter in worktrees).
const IDLE_OPTIONS = { hitl: { auto: { approval: 'approve', deviation: 'stop' } }, timeouts: { step_idle_seconds: IDLE_SECONDS }, isolation: { mode: 'none' } };
const BUDGET_OPTIONS = { hitl: { auto: { approval: 'approve', budget: 'stop' } }, breakers: { max_dispatches: 1 } };

const success = (summary: string, artifacts: string[] = []) => jsonReply({ type: 'success', summary, artifacts, key_findings: [] });

let model: ScriptedModel;
const requests = (agent: string, scenario: Scenario) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const scenario = scenarioOf(req) as Scenario;
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') {
    const step = STEPS[scenario];
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${scenario} goal`,
      steps: [
        { ...step, description: `Create hello.ts exporting hello(name) (${step.id})`, success: SUCCESS_CRITERIA },
        ...(scenario === 'budget' ? [{ id: 'second', agent: 'researcher', description: 'Find the callers of hello()', depends_on: ['first'] }] : []),
      ],
      assumptions: [],
      risks: [],
      verification: [],
    });
  }
  const turn = requests(agent, scenario).length; // this request included
  if (agent === 'coder') {
    if (isFixRequest(req)) return success(scenario === 'review_loop' ? 'hello() now greets its argument' : `fix ${turn - 1} for ${scenario}`, ['hello.ts']);
    // The prose before the JSON answer is transcript only: the reviewer must never see it.
    return jsonReply({ type: 'success', summary: 'hello() written', artifacts: ['hello.ts'], key_findings: [] }, `${CODER_SCRATCH} thinking out loud`);
  }
  if (agent === 'reviewer' && isReviewRequest(req)) {
    if (turn > 5) throw new Error(`runaway review loop in ${scenario}`);
    if (scenario === 'review_loop' && turn === 1) return jsonReply({ type: 'fail', summary: 'one error', errors: [reviewError('hello.ts', 'greets nobody')] });
    if (scenario === 'review_fail') return jsonReply({ type: 'fail', errors: [ROUND_ERRORS[turn - 1]] });
    if (scenario === 'breaker') return jsonReply({ type: 'fail', errors: [reviewError('hello.ts', 'greets nobody')] });
    return jsonReply({ type: 'pass', summary: `scripted reviewer passes round ${turn}` });
  }
  if (agent === 'researcher') return success(`researcher did ${scenario} turn ${turn}`);
  if (agent === 'tester') {
    // Nothing happens in the tester's session while the model "thinks": the idle watch must fire.
    if (scenario === 'idle') return { ...success('too late'), delayMs: TESTER_DELAY_MS };
    return success(`tester did ${scenario}`);
  }
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

describe('the quality gate, step hooks and the idle timeout', () => {
  let gate: OpencodeServer;
  let idle: OpencodeServer;
  let budget: OpencodeServer;
  reportOnFailure(() => ({ server: gate, model }));
  reportOnFailure(() => ({ server: idle }));
  reportOnFailure(() => ({ server: budget }));
  const runs = new Map<Scenario, { sessionID: string; done: Promise<unknown> }>();

  const serverOf = (scenario: Scenario) => (IDLE_SCENARIOS.includes(scenario) ? idle : BUDGET_SCENARIOS.includes(scenario) ? budget : gate);
  const planFile = (scenario: Scenario, planId: string) =>
    JSON.parse(readFileSync(join(serverOf(scenario).projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  /** What orca_ask_planner returned to Orca once the scenario's run is over. */
  async function result(scenario: Scenario) {
    await runs.get(scenario)!.done;
    return JSON.parse(lastToolResult(requests('orca', scenario).at(-1)!)!.content);
  }
  const promptText = (req: RecordedRequest) => JSON.stringify(req.messages);

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    // Both start at once; settle both before failing, so afterAll stops whichever did start.
    const started = await Promise.allSettled([
      startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, GATE_OPTIONS]] }, requestTimeoutMs: 120_000 }).then((s) => (gate = s)),
      startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, IDLE_OPTIONS]] }, requestTimeoutMs: 120_000 }).then((s) => (idle = s)),
      startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, BUDGET_OPTIONS]] }, requestTimeoutMs: 120_000 }).then((s) => (budget = s)),
    ]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    // Every plan starts now and runs alongside the others; each test awaits its own.
    for (const scenario of Object.keys(STEPS) as Scenario[]) {
      const server = serverOf(scenario);
      const session = (await server.client.session.create({ title: scenario })).data!;
      const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
      done.catch(() => {}); // awaited (and reported) by the scenario's test
      runs.set(scenario, { sessionID: session.id, done });
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([gate?.stop(), idle?.stop(), budget?.stop()]);
    await model?.close();
  });

  it('FAIL → fix → PASS: the fixer gets the error report, the reviewer the criteria and the report, never the transcript', async () => {
    const res = await result('review_loop');
    expect(res).toMatchObject({ status: 'completed', steps: [{ id: 'impl', status: 'completed', summary: 'hello() now greets its argument' }] });
    const coder = requests('coder', 'review_loop');
    const reviewer = requests('reviewer', 'review_loop');
    expect(coder).toHaveLength(2);
    expect(reviewer).toHaveLength(2);

    const [review1, review2] = reviewer;
    // The first line says, in the reviewer's session, what it is; then the review prompt.
    expect(review1!.lastUser).toMatch(/^Orca · plan_\w+ · step impl \(reviewer\) · attempt 1 · review round 1\n\n# Quality gate: review of step impl \(coder\) of plan plan_\w+, round 1 of 3/);
    expect(review1!.lastUser).toContain(`Success criteria: ${SUCCESS_CRITERIA}`);
    expect(review1!.lastUser).toContain('Summary: hello() written');
    expect(review1!.lastUser).toContain('Files created or changed: hello.ts');
    expect(review2!.lastUser).toContain('round 2 of 3');
    expect(review2!.lastUser).toContain('Summary: hello() now greets its argument');
    for (const req of reviewer) expect(promptText(req)).not.toContain(CODER_SCRATCH);

    const fix = coder[1]!.lastUser;
    expect(fix).toMatch(/^Orca · plan_\w+ · step impl \(coder\) · attempt 1 · fix round 1\n\n# Fix required: the reviewer failed your work on step impl \(review round 1\)/);
    for (const field of ['[ERROR-001] Logic', 'File: hello.ts', 'Line: 1', 'Issue: greets nobody', 'Found: return "Hello";', 'Expected: return `Hello, ${name}!`;', 'Fix: interpolate the name argument']) {
      expect(fix).toContain(field);
    }
    expect(fix).toContain('Fix ALL reported errors');
    // The fixer works in the coder's own session: its transcript so far is there.
    expect(promptText(coder[1]!)).toContain(CODER_SCRATCH);

    const file = planFile('review_loop', res.plan_id);
    expect(file).toMatchObject({ status: 'completed', steps: [{ id: 'impl', status: 'completed', attempts: 1, failures: [] }] });
    expect(file.steps[0].output.summary).toBe('hello() now greets its argument');
    expect(file.steps[0].warnings).toBeUndefined();

    // The reviewer runs in its own child session of the user's Orca session.
    const sessions = await allSessions(gate.client);
    const children = sessions.filter((s) => s.parentID === runs.get('review_loop')!.sessionID).map((s) => s.title);
    expect(children).toEqual(expect.arrayContaining([expect.stringMatching(/^Orca coder · impl attempt 1/), expect.stringMatching(/^Orca reviewer · impl attempt 1/)]));
  }, 150_000); // every scenario runs at once from beforeAll: a busy machine slows them all

  it('three FAILs with different errors: the step fails with REVIEW FAILED in round 3 of 3 and the plan stops', async () => {
    const res = await result('review_fail');
    expect(res).toMatchObject({ status: 'stopped', steps: [{ id: 'rework', status: 'stopped' }] });
    expect(requests('reviewer', 'review_fail')).toHaveLength(3);
    expect(requests('coder', 'review_fail')).toHaveLength(3);
    expect(requests('coder', 'review_fail').filter(isFixRequest)).toHaveLength(2);

    const file = planFile('review_fail', res.plan_id);
    expect(file.status).toBe('failed');
    expect(file.steps[0].failures).toHaveLength(1);
    const error: string = file.steps[0].failures[0].error;
    expect(error).toMatch(/^REVIEW FAILED in round 3 of 3: 1 error\n/);
    for (const field of ['File: hello.test.ts', 'Line: 7', 'Issue: no test for the empty name', 'Fix: interpolate the name argument']) expect(error).toContain(field);
    expect(file.steps[0].breaker).toBeUndefined();
    expect(file.decisions).toMatchObject([
      { gate: 'approval', option: 'Approve', channel: 'auto' },
      { gate: 'deviation', option: 'Stop', channel: 'auto', step_id: 'rework' },
    ]);
  }, 150_000);

  it('the same errors in rounds 1 and 2 (breakers.same_error 2) open the breaker: the auto policy stands aside and a human decides', async () => {
    const question = await nextQuestion(gate, /^Step stuck \(coder\) failed/, 40_000);
    expect(question.questions[0]!.question).toContain('REVIEW FAILED in round 2 of 3');
    expect(question.questions[0]!.question).toContain('Circuit breaker: the same error 2 times in a row on step stuck');
    expect(labels(question)).toEqual(['Retry', 'Replan', 'Stop']);
    expect(requests('reviewer', 'breaker')).toHaveLength(2);
    expect(requests('coder', 'breaker')).toHaveLength(2);
    await waitFor(() => gate.logs().includes('auto policy paused by the circuit breaker: hitl.auto.deviation=stop not applied to step stuck'), {
      description: 'the logged pause of the auto policy',
    });

    await dismiss(gate, question);
    const res = await result('breaker');
    expect(res).toMatchObject({ status: 'waiting', waiting_for: 'deviation' });
    const file = planFile('breaker', res.plan_id);
    expect(file).toMatchObject({ status: 'in_progress', waiting_for: 'deviation', decisions: [{ gate: 'approval', channel: 'auto' }] });
    expect(file.decisions).toHaveLength(1); // no automatic Stop
    expect(file.steps[0].breaker).toMatch(/^circuit breaker: the same error 2 times in a row on step stuck/);
    expect(file.steps[0].failures[0].error).toMatch(/^REVIEW FAILED in round 2 of 3/);

    // A human stops it with the slash command, with no model request.
    const reply = await gate.fetch(`/session/${runs.get('breaker')!.sessionID}/command`, {
      method: 'POST',
      body: JSON.stringify({ command: 'orca-stop', arguments: '' }),
      timeoutMs: 20_000,
    });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { parts: Array<{ type: string; text?: string }> };
    // The command's reply, then where the plan is now (it stopped at once).
    expect(body.parts.map((p) => p.text ?? '').join('')).toMatch(new RegExp(`^Orca: Stop for step stuck recorded for plan \`${res.plan_id}\`\\. Now: plan \`${res.plan_id}\` stopped, 0 of 1 step done`));
    expect(planFile('breaker', res.plan_id)).toMatchObject({ status: 'failed', waiting_for: null });
    expect(planFile('breaker', res.plan_id).decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Stop', channel: 'command', step_id: 'stuck' });
    expect(requests('reviewer', 'breaker')).toHaveLength(2);
  }, 150_000);

  it('step hooks: pre and post run with the ORCA_* env; a failing post hook is a warning; a failing pre hook blocks the step', async () => {
    const hooked = await result('hooks');
    const blocked = await result('pre_block');
    const log = readFileSync(HOOK_LOG, 'utf8').trim().split('\n');
    const linesOf = (step: string) => log.filter((line) => line.split(' ')[2] === step).map((line) => line.split(' ').slice(0, 5).join(' '));
    // Each file-changing step's hooks ran in its own worktree, never in the project directory.
    const dirs = new Set(log.map((line) => line.split(' ').slice(5).join(' ')));
    expect([...dirs].filter((dir) => dir === gate.projectDir)).toEqual([]);
    for (const dir of dirs) expect(dir).toContain('/opencode-orca/worktrees/');

    expect(hooked).toMatchObject({ status: 'completed', steps: [{ id: 'hooked', status: 'completed', summary: 'tester did hooks' }] });
    expect(linesOf('hooked')).toEqual([`pre_step ${hooked.plan_id} hooked tester 1`, `post_step ${hooked.plan_id} hooked tester 1`]);
    const warnings: string[] = planFile('hooks', hooked.plan_id).steps[0].warnings;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^post_step hook ".*" failed \(exit 3\) after [\d.]+ s:\npost hook broke in hooked$/);

    expect(blocked).toMatchObject({ status: 'stopped', steps: [{ id: 'blocked', status: 'stopped' }] });
    expect(linesOf('blocked')).toEqual([`pre_step ${blocked.plan_id} blocked tester 1`]);
    const error: string = planFile('pre_block', blocked.plan_id).steps[0].failures[0].error;
    expect(error).toMatch(/^pre_step hook ".*" failed \(exit 2\) after [\d.]+ s:\nlint broke in blocked$/);
    // No specialist (nor reviewer) was asked anything for the blocked step.
    expect(new Set(model.chatRequests().filter((r) => scenarioOf(r) === 'pre_block').map(agentOf))).toEqual(new Set(['orca', 'planner']));

    // Hooks wrap the attempt: the review loop's fix rounds run no pre hook again, the post hook runs once after the PASS.
    const loop = await result('review_loop');
    expect(linesOf('impl')).toEqual([`pre_step ${loop.plan_id} impl coder 1`, `post_step ${loop.plan_id} impl coder 1`]);
  }, 150_000);

  it(`an idle specialist is aborted after timeouts.step_idle_seconds (${IDLE_SECONDS} s) and the step fails with TIMEOUT`, async () => {
    const res = await result('idle');
    // Orca is told why the step stopped, not only that it did.
    expect(res).toMatchObject({ status: 'stopped', steps: [{ id: 'slow', status: 'stopped', last_error: expect.stringMatching(/^TIMEOUT: /) }] });
    const [tester] = requests('tester', 'idle');
    expect(requests('tester', 'idle')).toHaveLength(1);
    // The abort closed the model request before its scripted answer was sent.
    await waitFor(() => tester!.aborted, { timeoutMs: 5_000, description: "the tester's model request to be aborted" });
    const stoppedAt = requests('orca', 'idle').at(-1)!.at;
    expect(stoppedAt - tester!.at).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000);
    expect(stoppedAt - tester!.at).toBeLessThan(TESTER_DELAY_MS - 1_000);

    const file = planFile('idle', res.plan_id);
    expect(file.status).toBe('failed');
    expect(file.steps[0].failures).toHaveLength(1);
    expect(file.steps[0].failures[0].error).toBe(
      `TIMEOUT: the tester was idle for ${IDLE_SECONDS} s (timeouts.step_idle_seconds); its session was aborted`,
    );
    expect(file.decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Stop', channel: 'auto', step_id: 'slow' });
    await waitFor(() => /step slow: session \S+ idle for 2 s; aborting it \(TIMEOUT\)/.test(idle.logs()), { description: 'the logged TIMEOUT abort' });
  }, 150_000);

  it('the dispatch cap (breakers.max_dispatches 1) pauses the plan before its second step; hitl.auto.budget=stop ends it', async () => {
    const res = await result('budget');
    expect(res).toMatchObject({ status: 'stopped' });
    expect(requests('researcher', 'budget')).toHaveLength(1);
    const file = planFile('budget', res.plan_id);
    expect(file.status).toBe('failed');
    expect(file.steps.map((st: { id: string; status: string }) => `${st.id}:${st.status}`)).toEqual(['first:completed', 'second:pending']);
    expect(file.decisions.at(-1)).toMatchObject({ gate: 'budget', option: 'Stop', channel: 'auto' });
    expect(file.snapshot.context).toMatchObject({ dispatches: 1, dispatch_cap: 1 });
  }, 150_000);
});
