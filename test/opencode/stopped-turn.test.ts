// A turn stopped by its signal (Esc releases the plan, a server stops, a chart leaves the state)
// never hands its result to its machine, nor what it cost (issue 27, item 6). What its prompts cost
// is journaled once (`aborted`), and counted in the plan once: at once if the plan runs on, else
// (`uncounted`) when the plan runs the turn again, resumed (`counted`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanPorts } from '../../src/machines/ports.js';
import { addUsage, ZERO_USAGE, type Usage } from '../../src/machines/usage.js';
import { entryText } from '../../src/notices/journal-words.js';
import { PromptAbortedError } from '../../src/opencode/prompt-aborted-error.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import type { PromptReply, SessionMessage, SessionsPort } from '../../src/opencode/sessions.js';
import { createTurnRunner, type TurnRunnerOptions, type TurnSpec } from '../../src/opencode/turn-runner.js';
import type { TurnRecord, UncountedTurnUsage } from '../../src/opencode/turn-port.js';
import { journalUncountedUsage, uncountedOf } from '../../src/opencode/uncounted-usage.js';
import { appendJournal, readJournal, type JournalEntry } from '../../src/persistence/journal.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../../src/schemas/specialist-output.js';
import { waitFor } from '../support/wait-for.js';

const ok = { type: 'success', summary: 'done', artifacts: ['a.ts'], key_findings: [] };
/** One prompt's usage: `calls` model requests, `n` tokens in. */
const usage = (n: number, calls = 1): Usage => ({ turns: 1, model_calls: calls, input: n, output: 2 * n, reasoning: 0, cache_read: 10 * n, cache_write: 0, cost: n / 1000 });
const sum = (...all: Usage[]) => all.reduce(addUsage);
/** The plan rounds its sums' cost (machines/budget.ts). */
const close = (u: Usage) => ({ ...u, cost: expect.closeTo(u.cost, 10) });

type Answer = PromptReply | 'hang';

/**
 * Our sessions port, prompts answered in order by `answers`; a `hang` prompt runs until its signal
 * aborts, then rejects as sessions.ts does: PromptAbortedError with what OpenCode recorded of it.
 */
function sessions(answers: Answer[], stoppedUsage: Usage, transcript: SessionMessage[] = []) {
  const prompts: Array<{ agent: string; text: string }> = [];
  const port: SessionsPort = {
    create: async () => ({ id: 'ses_new' }),
    async prompt({ sessionID, agent, text, signal }) {
      prompts.push({ agent, text });
      const answer = answers.shift() ?? 'hang';
      if (answer !== 'hang') return answer;
      return new Promise<PromptReply>((_resolve, reject) => {
        const stop = () => reject(new PromptAbortedError(sessionID, stoppedUsage, { cause: signal?.reason }));
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      });
    },
    abort: async () => {},
    messages: async () => transcript,
    busy: async () => false,
    children: async () => [],
    get: async () => null,
  };
  return { port, prompts };
}

const spec = (over: Partial<TurnSpec<unknown>> = {}): TurnSpec<unknown> => ({
  planId: 'plan_A',
  stepId: 's1',
  role: 'specialist',
  sessionId: 'ses_1',
  agent: 'coder',
  header: 'Orca · plan_A · step s1 (coder) · attempt 1',
  prompt: '# Your step: s1 (coder)\nWrite a.ts',
  schema: SpecialistOutputSchema,
  jsonSchema: specialistOutputJsonSchema(),
  label: 'coder output',
  idempotencyKey: 'plan_A:s1:1',
  rerun: true,
  signal: new AbortController().signal,
  ...over,
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'orca-stopped-'));
  dirs.push(dir);
  return dir;
};

/**
 * What the composition root does with the runner's reports, over a journal in a temp dir: each
 * record a `turn` line; a count goes to the plan only while it is `live` (a released plan is not).
 */
function planSide() {
  const dir = tempDir();
  const journalPathOf = (planId: string) => join(dir, `${planId}.journal.jsonl`);
  const plan = { live: true, counted: [] as UncountedTurnUsage[] };
  const options: TurnRunnerOptions = {
    onTurn: ({ plan_id, ...record }: TurnRecord) => appendJournal(journalPathOf(plan_id!), [{ at: new Date().toISOString(), kind: 'turn', ...record }]),
    countInPlan: (record) => plan.live && (plan.counted.push(record), true),
    uncounted: journalUncountedUsage(journalPathOf),
    isRecovering: () => true,
  };
  const lines = (planId = 'plan_A') => readJournal(journalPathOf(planId)).filter((e): e is Extract<JournalEntry, { kind: 'turn' }> => e.kind === 'turn');
  return { plan, options, lines };
}

describe('a turn stopped by its signal', () => {
  it('should journal its stopped prompt once, keep what the whole turn cost uncounted while its plan is released, and count it once when the restored turn runs again', async () => {
    const { plan, options, lines } = planSide();
    // The first reply does not validate; the correction prompt is in flight (two model requests made) when Esc lands.
    const first = sessions([{ text: 'thinking…', usage: usage(1) }, 'hang'], usage(2, 2));
    const esc = new AbortController();
    const turn = createTurnRunner(first.port, options).run(spec({ signal: esc.signal }));
    await waitFor(() => first.prompts.length === 2, { description: 'the correction prompt in flight' });
    plan.live = false; // PlanHost.release: the plan leaves the live plans, is written, then its actor is stopped
    esc.abort(new Error('plan released'));
    await expect(turn).rejects.toThrow('plan released');
    await waitFor(() => lines().length === 2, { description: "the stopped prompt's line" });
    expect(lines()).toEqual([
      expect.objectContaining({ role: 'specialist', correction: false, usage: usage(1) }),
      expect.objectContaining({ role: 'specialist', agent: 'coder', step_id: 's1', session_id: 'ses_1', idempotency_key: 'plan_A:s1:1', correction: true, usage: usage(2, 2), aborted: true, uncounted: sum(usage(1), usage(2, 2)) }),
    ]);
    expect(lines()[0]).not.toHaveProperty('aborted');
    expect(plan.counted).toEqual([]);

    // Resumed: the restored turn finds the correction unanswered in its session and runs again.
    plan.live = true;
    const sent = first.prompts[0]!.text;
    const again = sessions([{ text: JSON.stringify(ok), usage: usage(5) }], ZERO_USAGE, [
      { role: 'user', text: sent },
      { role: 'assistant', text: 'thinking…' },
      { role: 'user', text: first.prompts[1]!.text },
      { role: 'assistant', text: '', error: 'MessageAbortedError: Aborted' },
    ]);
    const outcome = await createTurnRunner(again.port, options).run(spec());
    // The turn's own result brings only its own prompt; the stopped run's cost reached the plan once, beside it.
    expect(outcome).toMatchObject({ value: ok, usage: usage(5) });
    expect(plan.counted).toEqual([{ plan_id: 'plan_A', step_id: 's1', role: 'specialist', usage: sum(usage(1), usage(2, 2)) }]);
    expect(lines().slice(2)).toEqual([
      expect.objectContaining({ correction: false, usage: ZERO_USAGE, counted: sum(usage(1), usage(2, 2)) }),
      expect.objectContaining({ correction: false, usage: usage(5) }),
    ]);

    // Restored once more (another restart before the plan moved on): nothing is counted twice.
    const third = sessions([], ZERO_USAGE, [{ role: 'user', text: sent }, { role: 'assistant', text: JSON.stringify(ok) }]);
    await expect(createTurnRunner(third.port, options).run(spec())).resolves.toMatchObject({ value: ok, usage: ZERO_USAGE, via: 'reconciled' });
    expect(plan.counted).toHaveLength(1);
    expect(uncountedOf(lines(), { role: 'specialist', sessionId: 'ses_1', idempotencyKey: 'plan_A:s1:1' })).toEqual(ZERO_USAGE);
  });

  it('should count it in the plan at once when its chart stopped it and the plan runs on, and owe nothing after', async () => {
    const { plan, options, lines } = planSide();
    const s = sessions(['hang'], usage(3, 2));
    const stop = new AbortController();
    const turn = createTurnRunner(s.port, options).run(spec({ signal: stop.signal }));
    await waitFor(() => s.prompts.length === 1, { description: 'the prompt in flight' });
    stop.abort(new Error('the step left the state'));
    await turn.catch(() => {});
    await waitFor(() => plan.counted.length === 1, { description: 'the count' });
    expect(plan.counted).toEqual([{ plan_id: 'plan_A', step_id: 's1', role: 'specialist', usage: usage(3, 2) }]);
    expect(lines()).toEqual([expect.objectContaining({ aborted: true, usage: usage(3, 2) })]);
    expect(lines()[0]).not.toHaveProperty('uncounted');
  });

  it("should count a prompt the idle watch's abort answered, which its machine then stopped, without a second line", async () => {
    const { plan, options, lines } = planSide();
    let runner!: ReturnType<typeof createTurnRunner>;
    const s = sessions([], ZERO_USAGE);
    s.port.prompt = async () => {
      runner.expectAbort('ses_1'); // the idle watch aborts the session; OpenCode answers the prompt with the abort
      return { text: '', error: 'MessageAbortedError: Aborted', usage: usage(4, 3) };
    };
    runner = createTurnRunner(s.port, options);
    const stop = new AbortController();
    const turn = runner.run(spec({ signal: stop.signal }));
    await waitFor(() => lines().length === 1, { description: "the answered prompt's line" });
    stop.abort(new Error('TIMEOUT'));
    await expect(turn).rejects.toThrow('TIMEOUT');
    await waitFor(() => plan.counted.length === 1, { description: 'the count' });
    expect(plan.counted[0]!.usage).toEqual(usage(4, 3));
    expect(lines()).toEqual([expect.objectContaining({ usage: usage(4, 3) })]);
  });

  it("should count a stopped planner turn (no idempotency key) at the plan's next planner turn, once", async () => {
    const { plan, options, lines } = planSide();
    const planner = { role: 'planner' as const, stepId: undefined, agent: 'planner', sessionId: 'ses_p', header: 'Orca · plan_A · planner', prompt: 'make a plan', idempotencyKey: undefined, rerun: undefined, label: 'planner output' };
    const s = sessions(['hang'], usage(7, 2));
    const esc = new AbortController();
    const turn = createTurnRunner(s.port, options).run(spec({ ...planner, signal: esc.signal }));
    await waitFor(() => s.prompts.length === 1, { description: 'the planner prompt in flight' });
    plan.live = false;
    esc.abort(new Error('Esc'));
    await turn.catch(() => {});
    await waitFor(() => lines().length === 1, { description: "the stopped prompt's line" });
    expect(lines()[0]).toMatchObject({ role: 'planner', aborted: true, usage: usage(7, 2), uncounted: usage(7, 2) });
    expect(lines()[0]).not.toHaveProperty('step_id');

    plan.live = true;
    const resumed = sessions([{ text: JSON.stringify(ok), usage: usage(1) }, { text: JSON.stringify(ok), usage: usage(1) }], ZERO_USAGE);
    const runner = createTurnRunner(resumed.port, options);
    await runner.run(spec(planner));
    await runner.run(spec(planner));
    expect(plan.counted).toEqual([{ plan_id: 'plan_A', role: 'planner', usage: usage(7, 2) }]);
  });

  it('should say each line in words: a stopped prompt, what the plan has yet to count, and the count', () => {
    const at = '2026-11-23T10:00:00.000Z';
    const base = { at, kind: 'turn' as const, role: 'specialist', agent: 'coder', step_id: 's1', session_id: 'ses_1', correction: false };
    expect(entryText({ ...base, correction: true, usage: usage(2, 2), aborted: true, uncounted: sum(usage(1), usage(2, 2)) })).toBe(
      "specialist (coder) turn, a correction, for step s1, stopped before it answered: 1 Orca turn, 2 model calls, 26 tokens, $0.002; the plan counts its turn's 2 Orca turns, 3 model calls, 39 tokens, $0.003 when it resumes",
    );
    expect(entryText({ ...base, usage: usage(3, 2), aborted: true })).toBe('specialist (coder) turn for step s1, stopped before it answered: 1 Orca turn, 2 model calls, 39 tokens, $0.003');
    expect(entryText({ ...base, usage: ZERO_USAGE, aborted: true, uncounted: usage(1) })).toBe(
      "specialist (coder) turn for step s1 stopped between prompts; the plan counts its turn's 1 Orca turn, 1 model call, 13 tokens, $0.001 when it resumes",
    );
    expect(entryText({ ...base, usage: ZERO_USAGE, counted: usage(1) })).toBe("specialist (coder) turn for step s1, stopped earlier: 1 Orca turn, 1 model call, 13 tokens, $0.001 now counted in the plan's usage");
  });
});

describe('an Esc through the plan host', () => {
  const plan = { type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'do s1', depends_on: [] }], assumptions: [], risks: [], verification: [] };
  const at = '2026-01-01T00:00:00.000Z';
  const never = () => new Promise<never>(() => {});
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  /** A server's Orca: the real runner and session ports over our fake sessions port, the composition root's reports. */
  function serverOf(store: PlanStore, port: SessionsPort) {
    let host!: PlanHost;
    const runner = createTurnRunner(port, {
      isRecovering: (key) => host.isRecovering(key),
      onTurn: ({ plan_id, ...record }) => appendJournal(store.journalPathOf(plan_id!), [{ at: new Date().toISOString(), kind: 'turn', ...record }]),
      countInPlan: ({ plan_id, step_id, role, usage: u }) => {
        if (!host.isLive(plan_id) || host.open(plan_id).getSnapshot().status !== 'active') return false;
        host.send(plan_id, { type: 'usage.recorded', ...(step_id !== undefined && role !== 'planner' && role !== 'verifier' ? { stepId: step_id, role } : {}), usage: u });
        return true;
      },
      uncounted: journalUncountedUsage((planId) => store.journalPathOf(planId)),
    });
    const ports = { ...opencodePorts(port, { turns: runner, isRecovering: (key) => host.isRecovering(key) }), watchIdle: never } as unknown as PlanPorts;
    host = new PlanHost({ store, ports, policy: { review_agents: [] } });
    return host;
  }

  it('should leave the stopped turn out of the file Esc writes, count it once on resume, and sum every turn once at the end', async () => {
    const store = new PlanStore(join(tempDir(), 'plans'));
    const planner = usage(10);
    const stopped = usage(20, 2); // a read, then the answer in flight when Esc landed
    const rerun = usage(30);
    const prompts: Array<{ agent: string; text: string }> = [];
    let created = 0;
    const coder = sessions(['hang', { text: JSON.stringify(ok), usage: rerun }], stopped);
    const port: SessionsPort = {
      ...coder.port,
      create: async () => ({ id: `ses_${++created}` }),
      async prompt(input) {
        prompts.push({ agent: input.agent, text: input.text });
        return input.agent === 'planner' ? { text: JSON.stringify(plan), usage: planner } : coder.port.prompt(input);
      },
    };
    const fake = { port };

    const first = serverOf(store, fake.port);
    const planId = first.create({ message: 'm', callerSessionId: 'ses_caller' }).getSnapshot().context.plan_id;
    await tick();
    first.send(planId, { type: 'approval.approve', channel: 'auto', at });
    await waitFor(() => prompts.some((p) => p.agent === 'coder'), { description: 'the coder at work' });
    await first.release(planId); // what orca_ask_planner does on Esc
    const journalTurns = () => readJournal(store.journalPathOf(planId)).filter((e): e is Extract<JournalEntry, { kind: 'turn' }> => e.kind === 'turn');
    await waitFor(() => journalTurns().some((e) => e.aborted), { description: "the stopped turn's line" });
    // The file Esc wrote holds the planner's turn only: the coder's was stopped after that write.
    expect(store.load(planId).usage).toEqual(planner);
    expect(journalTurns().map((e) => [e.role, e.usage, e.aborted ?? false, e.uncounted ?? null])).toEqual([
      ['planner', planner, false, null],
      ['specialist', stopped, true, stopped],
    ]);

    // Resumed by another server: the coder's session holds the prompt and the stopped answer; it asks before running again.
    fake.port.messages = async () => [
      { role: 'user', text: prompts.find((p) => p.agent === 'coder')!.text },
      { role: 'assistant', text: '', error: 'MessageAbortedError: Aborted' },
    ];
    const second = serverOf(store, fake.port);
    second.open(planId);
    await waitFor(() => second.open(planId).getSnapshot().context.usage?.turns === 2, { description: 'the stopped turn counted' });
    await second.settled(planId);
    const resumed = store.load(planId);
    expect(resumed.waiting_for).toBe('resume');
    expect(resumed.usage).toEqual(close(sum(planner, stopped)));
    expect(resumed.steps[0]!.usage_by_role).toEqual({ specialist: close(stopped) });

    second.send(planId, { type: 'resume.rerun', stepId: 's1', channel: 'auto', at });
    await waitFor(() => store.load(planId).status === 'completed', { description: 'the plan completed' });
    const done = store.load(planId);
    expect(done.usage).toEqual(close(sum(planner, stopped, rerun)));
    expect(done.steps[0]!.usage).toEqual(close(sum(stopped, rerun)));
    expect(done.steps[0]!.usage_by_role).toEqual({ specialist: close(sum(stopped, rerun)) });
    expect(journalTurns().map((e) => [e.role, e.aborted ?? false, e.uncounted ? 'uncounted' : e.counted ? 'counted' : 'prompt'])).toEqual([
      ['planner', false, 'prompt'],
      ['specialist', true, 'uncounted'],
      ['specialist', false, 'counted'],
      ['specialist', false, 'prompt'],
    ]);
    await second.dispose();
  });
});
