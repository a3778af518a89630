import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionMonitor } from '../../src/opencode/session-monitor.js';
import type { PromptReply, SessionMessage, SessionsPort } from '../../src/opencode/sessions.js';
import { journalProtocolMemory } from '../../src/opencode/protocol-memory.js';
import { createTurnRunner, isToolChoiceRefusal, TurnAbortedError, type ReconcileRecord, type TurnSpec } from '../../src/opencode/turn-runner.js';
import { readJournal } from '../../src/persistence/journal.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../../src/schemas/specialist-output.js';
import { ZERO_USAGE, type Usage } from '../../src/machines/usage.js';
import { usageOfError } from '../../src/machines/turn.js';
import type { CoercionRecord, TurnRecord } from '../../src/opencode/turn-port.js';
import { opencodePorts } from '../../src/opencode/session-ports.js';
import { specialistTurnPrompt } from '../../src/prompts/step-prompt.js';
import { fakeSessions } from '../support/fake-sessions.js';

const ok = { type: 'success', summary: 'done', artifacts: ['a.ts'] };
const usage = (n: number): Usage => ({ turns: 1, input: n, output: 2 * n, reasoning: 0, cache_read: 10 * n, cache_write: 1, cost: n / 10 });
const REFUSAL = 'Thinking mode does not support this tool_choice';

type Prompted = { sessionID: string; agent: string; text: string; structured: boolean };

/** A sessions port whose prompts are answered by `reply`; `messages` serves a scripted transcript. */
function sessions(reply: (p: Prompted, n: number) => PromptReply | Promise<PromptReply>, transcript: SessionMessage[] = []) {
  const prompts: Prompted[] = [];
  const aborted: string[] = [];
  const calls: string[] = [];
  const port: SessionsPort = {
    create: async () => ({ id: 'ses_new' }),
    async prompt({ sessionID, agent, text, jsonSchema }) {
      calls.push('prompt');
      const p = { sessionID, agent, text, structured: jsonSchema !== undefined };
      prompts.push(p);
      return reply(p, prompts.length);
    },
    abort: async (id) => void aborted.push(id),
    messages: async () => (calls.push('messages'), transcript),
    busy: async () => false,
    children: async () => [],
    get: async () => null,
  };
  return { port, prompts, aborted, calls };
}

const spec = (over: Partial<TurnSpec<unknown>> = {}): TurnSpec<unknown> => ({
  planId: 'plan_A',
  role: 'specialist',
  sessionId: 'ses_1',
  agent: 'coder',
  header: 'Orca · plan_A · step s1 (coder) · attempt 1',
  prompt: '# Your step: s1 (coder)\nWrite a.ts',
  schema: SpecialistOutputSchema,
  jsonSchema: specialistOutputJsonSchema(),
  label: 'coder output',
  signal: new AbortController().signal,
  ...over,
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the turn runner', () => {
  it('should use the text protocol by default, with the header as the first line, and return the value with its usage', async () => {
    const s = sessions(() => ({ text: `All done.\n${JSON.stringify(ok)}`, usage: usage(1) }));
    const outcome = await createTurnRunner(s.port).run(spec());
    expect(outcome).toEqual({ value: ok, usage: usage(1), corrections: 0, via: 'scan', protocol: 'text' });
    expect(s.prompts).toHaveLength(1);
    expect(s.prompts[0]).toMatchObject({ sessionID: 'ses_1', agent: 'coder', structured: false });
    expect(s.prompts[0]!.text.split('\n')[0]).toBe('Orca · plan_A · step s1 (coder) · attempt 1');
    expect(s.prompts[0]!.text).toContain('# Output protocol\nEnd your reply with one JSON object');
  });

  it('should use structured output for an agent configured with it', async () => {
    const s = sessions(() => ({ structured: ok, text: '', usage: usage(1) }));
    const runner = createTurnRunner(s.port, { protocolOf: (agent) => (agent === 'coder' ? 'structured' : 'text') });
    await expect(runner.run(spec())).resolves.toMatchObject({ value: ok, via: 'structured', protocol: 'structured' });
    await runner.run(spec({ agent: 'tester' })).catch(() => {});
    expect(s.prompts.map((p) => [p.agent, p.structured])).toEqual([['coder', true], ['tester', false]]);
  });

  it('should sum the usage of every prompt of the turn, corrections included', async () => {
    const s = sessions((_p, n) => (n < 3 ? { text: 'thinking…', usage: usage(n) } : { text: JSON.stringify(ok), usage: usage(n) }));
    const outcome = await createTurnRunner(s.port).run(spec());
    expect(outcome.corrections).toBe(2);
    expect(outcome.usage).toEqual({ turns: 3, input: 6, output: 12, reasoning: 0, cache_read: 60, cache_write: 3, cost: expect.closeTo(0.6, 10) });
    expect(s.prompts.map((p) => p.sessionID)).toEqual(['ses_1', 'ses_1', 'ses_1']);
    expect(s.prompts[1]!.text).toMatch(/^Your previous reply could not be used: no JSON object found/);
  });

  it('should ask again with the text protocol in the same session when the provider refuses structured output, and remember it for the plan', async () => {
    const s = sessions((p) =>
      p.structured ? { text: '', error: `APIError: ${REFUSAL}`, usage: usage(1) } : { text: JSON.stringify(ok), usage: usage(2) },
    );
    const logs: string[] = [];
    const runner = createTurnRunner(s.port, { protocolOf: () => 'structured', log: (_l, m) => logs.push(m) });
    const outcome = await runner.run(spec());
    expect(outcome).toMatchObject({ value: ok, corrections: 0, protocol: 'text', usage: { turns: 2 } });
    expect(s.prompts.map((p) => [p.sessionID, p.structured])).toEqual([['ses_1', true], ['ses_1', false]]);
    expect(s.prompts[1]!.text.split('\n')[0]).toBe('Orca · plan_A · step s1 (coder) · attempt 1');
    expect(logs.join('\n')).toContain("coder's model refused structured output");

    // The plan's next coder turn skips the failing attempt; another plan still tries structured output.
    await runner.run(spec({ sessionId: 'ses_2', header: 'Orca · plan_A · step s2 (coder) · attempt 1' }));
    await runner.run(spec({ planId: 'plan_B', sessionId: 'ses_3' }));
    expect(s.prompts.slice(2).map((p) => [p.sessionID, p.structured])).toEqual([['ses_2', false], ['ses_3', true], ['ses_3', false]]);
  });

  it('should abort a structured prompt that OpenCode keeps retrying because the provider refuses the tool choice', async () => {
    const monitor = createSessionMonitor({ abort: async () => {}, log: () => {} });
    let release!: (reply: PromptReply) => void;
    const s = sessions((p) => {
      if (!p.structured) return { text: JSON.stringify(ok), usage: usage(2) };
      // OpenCode retries the refused request and reports it in the session's status, forever.
      setTimeout(() => monitor.observe({ type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'retry', attempt: 1, message: REFUSAL, next: Date.now() + 2000 } } }), 5);
      return new Promise<PromptReply>((resolve) => (release = resolve));
    });
    const abort = s.port.abort;
    s.port.abort = async (id) => {
      await abort(id);
      release({ text: '', error: 'MessageAbortedError: Aborted', usage: usage(1) });
    };
    const outcome = await createTurnRunner(s.port, { monitor, protocolOf: () => 'structured' }).run(spec());
    expect(s.aborted).toEqual(['ses_1']);
    expect(outcome).toMatchObject({ value: ok, protocol: 'text', usage: { turns: 2 } });
  });

  it('should not take other retries for a refusal', async () => {
    expect(isToolChoiceRefusal('Thinking mode does not support this tool_choice')).toBe(true);
    expect(isToolChoiceRefusal('APIError: tool_choice "required" is not supported by this model')).toBe(true);
    expect(isToolChoiceRefusal('Rate limit exceeded')).toBe(false);
    expect(isToolChoiceRefusal(undefined)).toBe(false);
  });

  it("should keep what it learned in the plan's journal, so a restarted server skips the refused attempt too", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orca-turns-'));
    dirs.push(dir);
    const journalPathOf = (planId: string) => join(dir, `${planId}.journal.jsonl`);
    const memory = () => journalProtocolMemory({ journalPathOf, modelOf: (agent) => (agent === 'coder' ? 'deep/thinker' : undefined) });
    const s = sessions((p) => (p.structured ? { text: '', error: `APIError: ${REFUSAL}`, usage: usage(1) } : { text: JSON.stringify(ok), usage: usage(1) }));
    await createTurnRunner(s.port, { protocolOf: () => 'structured', memory: memory() }).run(spec());
    expect(readJournal(journalPathOf('plan_A'))).toEqual([
      expect.objectContaining({ kind: 'protocol', agent: 'coder', model: 'deep/thinker', protocol: 'text', reason: `APIError: ${REFUSAL}`, session_id: 'ses_1' }),
    ]);
    const later = memory();
    expect(later.needsText('plan_A', 'coder')).toBe(true);
    expect(later.needsText('plan_A', 'tester')).toBe(false);
    expect(later.needsText('plan_B', 'coder')).toBe(false);
    // A different model configured for the agent is tried again.
    expect(journalProtocolMemory({ journalPathOf, modelOf: () => 'other/model' }).needsText('plan_A', 'coder')).toBe(false);
  });

  it('should reuse the finished result a restarted turn left in its session, without prompting (the process that ran it paid for it)', async () => {
    const first = `Orca · plan_A · step s1 (coder) · attempt 1\n\n# Your step: s1 (coder)\nWrite a.ts\n\n# Output protocol\n…`;
    const s = sessions(() => ({ text: 'unused', usage: usage(9) }), [
      { role: 'user', text: first },
      { role: 'assistant', text: '' },
      { role: 'assistant', text: `Done: ${JSON.stringify(ok)}` },
    ]);
    const records: ReconcileRecord[] = [];
    const runner = createTurnRunner(s.port, { isRecovering: (key) => key === 'plan_A:s1:1', onReconcile: (r) => records.push(r) });
    const outcome = await runner.run(spec({ idempotencyKey: 'plan_A:s1:1' }));
    expect(outcome).toMatchObject({ value: ok, via: 'reconciled', corrections: 0, usage: ZERO_USAGE });
    expect(s.calls).toEqual(['messages']);
    expect(records).toEqual([{ plan_id: 'plan_A', role: 'specialist', session_id: 'ses_1', idempotency_key: 'plan_A:s1:1', decision: 'reused' }]);
    // A fresh dispatch (not recovering) never looks.
    await runner.run(spec({ idempotencyKey: 'plan_A:s1:2' })).catch(() => {});
    expect(s.calls).toEqual(['messages', 'prompt', 'prompt', 'prompt']);
  });

  it('should end a turn the tool-loop breaker aborted with its reason and what the turn cost, and unguard the session', async () => {
    const guarded = new Set<string>();
    const monitor = {
      guard: (id: string) => (guarded.add(id), () => void guarded.delete(id)),
      abortReason: (id: string) => (guarded.has(id) ? 'aborted after 4 identical failures of read: File not found' : undefined),
      watchStatus: () => () => {},
    };
    const s = sessions(() => ({ text: '', error: 'MessageAbortedError: Aborted', usage: usage(3) }));
    const error = await createTurnRunner(s.port, { monitor }).run(spec({ guard: true })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnAbortedError);
    expect(error).toMatchObject({ reason: 'aborted after 4 identical failures of read: File not found' });
    expect(usageOfError(error)).toEqual(usage(3));
    expect(guarded.size).toBe(0);
    expect(s.prompts).toHaveLength(1);
  });

  it("should leave a turn whose session Orca aborts for the idle watch to be stopped by its machine, not failed with the abort", async () => {
    let runner!: ReturnType<typeof createTurnRunner>;
    const s = sessions(() => {
      runner.expectAbort('ses_1'); // the idle watch fires while the model works
      return { text: '', error: 'MessageAbortedError: Aborted', usage: usage(1) };
    });
    runner = createTurnRunner(s.port);
    const controller = new AbortController();
    const turn = runner.run(spec({ signal: controller.signal }));
    const settled = await Promise.race([turn.then(() => 'settled', () => 'settled'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 50))]);
    expect(settled).toBe('waiting');
    const reason = new Error('the step machine stopped the turn (TIMEOUT)');
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
    expect(s.prompts).toHaveLength(1);
  });

  it('should report a restarted turn that left no result as interrupted when it may not run again, and run it when it may', async () => {
    const first = `Orca · plan_A · step s1 (coder) · attempt 1\n\n# Your step: s1 (coder)\nWrite a.ts\n\n# Output protocol\n…`;
    const s = sessions(() => ({ text: JSON.stringify(ok), usage: usage(1) }), [{ role: 'user', text: first }]);
    const records: ReconcileRecord[] = [];
    const runner = createTurnRunner(s.port, { onReconcile: (r) => records.push(r) });
    await expect(runner.run(spec({ idempotencyKey: 'plan_A:s1:1', rerun: false }))).resolves.toMatchObject({
      interrupted: { type: 'interrupted', session_id: 'ses_1', detail: 'its turn never finished' },
    });
    expect(s.prompts).toHaveLength(0);
    await expect(runner.run(spec({ idempotencyKey: 'plan_A:s1:1', rerun: true }))).resolves.toMatchObject({ value: ok });
    expect(s.prompts).toHaveLength(1);
    expect(records.map((r) => r.decision)).toEqual(['interrupted', 'redispatch']);
  });

  it('should send a specialist exactly the prompt specialistTurnPrompt renders (what the plan viewer sizes)', async () => {
    const fake = fakeSessions(() => ok);
    const thread = { plan_id: 'plan_A', goal: 'g', step: { id: 's1', agent: 'coder' as const, description: 'do s1', depends_on: [] }, dependencies: [], relevant_files: ['a.ts'], previous_attempts: [{ attempt: 1, error: 'red tests' }] };
    await opencodePorts(fake.port, { isRecovering: () => false }).runSpecialist({ idempotencyKey: 'plan_A:s1:2', sessionId: 'ses_1', agent: 'coder', thread, rerun: true } as never, new AbortController().signal);
    expect(fake.prompts[0]!.text).toBe(specialistTurnPrompt(thread as never, 2));
    expect(fake.prompts[0]!.text.split('\n')[0]).toBe('Orca · plan_A · step s1 (coder) · attempt 2');
  });

  it('should report every prompt of the turn once answered, the refused attempt and the corrections included', async () => {
    const s = sessions((p, n) => (p.structured ? { text: '', error: `APIError: ${REFUSAL}`, usage: usage(1) } : n === 2 ? { text: 'hmm', usage: usage(2) } : { text: JSON.stringify(ok), usage: usage(3) }));
    const turns: TurnRecord[] = [];
    await createTurnRunner(s.port, { protocolOf: () => 'structured', onTurn: (t) => turns.push(t) }).run(spec({ stepId: 's1', idempotencyKey: 'plan_A:s1:1' }));
    expect(turns.map(({ correction, usage: u }) => [correction, u.input])).toEqual([[false, 1], [false, 2], [true, 3]]);
    expect(turns[0]).toMatchObject({ plan_id: 'plan_A', step_id: 's1', role: 'specialist', agent: 'coder', session_id: 'ses_1', idempotency_key: 'plan_A:s1:1' });
  });

  it('should report an answer accepted with slips forgiven once, without a correction prompt', async () => {
    const sloppy = '```jsonc\n{\n  "type": "success", // the step is done\n  "summary": "Read the docs",\n  "key_findings": "The API is paginated",\n}\n```';
    const s = sessions(() => ({ text: sloppy, usage: usage(1) }));
    const coercions: CoercionRecord[] = [];
    const outcome = await createTurnRunner(s.port, { onCoercion: (c) => coercions.push(c) }).run(spec({ stepId: 's1' }));
    expect(outcome).toMatchObject({ value: { type: 'success', artifacts: [], key_findings: ['The API is paginated'] }, corrections: 0 });
    expect(s.prompts).toHaveLength(1);
    expect(coercions).toEqual([
      {
        plan_id: 'plan_A',
        step_id: 's1',
        role: 'specialist',
        agent: 'coder',
        session_id: 'ses_1',
        coerced: ['JSONC: comments removed', 'JSONC: trailing commas removed', 'artifacts: missing, taken as none (nothing was changed)', 'key_findings: a string taken as a one-item list'],
      },
    ]);
  });

  it('should report no coercion for a clean answer, and not fail a turn whose coercion listener throws', async () => {
    const clean = sessions(() => ({ text: JSON.stringify(ok), usage: usage(1) }));
    const coercions: CoercionRecord[] = [];
    await createTurnRunner(clean.port, { onCoercion: (c) => coercions.push(c) }).run(spec());
    expect(coercions).toEqual([]);

    const sloppy = sessions(() => ({ text: '{"type": "success", "summary": "ok"}', usage: usage(1) }));
    const logs: string[] = [];
    const runner = createTurnRunner(sloppy.port, { onCoercion: () => { throw new Error('disk full'); }, log: (_level, message) => void logs.push(message) });
    await expect(runner.run(spec())).resolves.toMatchObject({ value: { artifacts: [] } });
    expect(logs).toEqual([expect.stringContaining('were not recorded: disk full')]);
  });
});
