import { describe, expect, it } from 'vitest';
import { qualityPorts } from '../../src/opencode/quality-ports.js';
import type { SessionsPort } from '../../src/opencode/sessions.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { createTurnRunner } from '../../src/opencode/turn-runner.js';
import type { ThreadedContext } from '../../src/machines/types.js';
import { ONE_TURN, usage } from '../support/turns.js';
import { usageOfError } from '../../src/machines/turn.js';

const thread: ThreadedContext = {
  plan_id: 'plan_X',
  goal: 'Greet people',
  step: { id: 'impl', agent: 'coder', description: 'Write greet()', success: 'greet("") returns a greeting' },
  dependencies: [],
  relevant_files: ['src/greet.ts'],
  previous_attempts: [],
};
const error = { id: 'ERROR-001', category: 'Logic', file: 'src/greet.ts', line: 2, issue: 'empty name', found: 'x', expected: 'y', fix: 'z' };
const signal = new AbortController().signal;
const base = (sessions: SessionsPort, over: Partial<Parameters<typeof qualityPorts>[1]> = {}) =>
  qualityPorts(sessions, {
    directory: process.cwd(),
    hookTimeoutMs: 5_000,
    idle: { waitIdle: async () => {} },
    log: () => {},
    ...over,
  });

describe('quality ports', () => {
  it("should ask the reviewer with the step's criteria and the specialist's report, and read its verdict", async () => {
    const fake = fakeSessions(() => ({ type: 'fail', errors: [error] }));
    const verdict = await base(fake.port).runReview(
      { idempotencyKey: 'plan_X:impl:1:review:1', sessionId: 'ses_r', thread, work: { summary: 'wrote greet', artifacts: ['src/greet.ts'], key_findings: [] }, round: 1, maxRounds: 3 },
      signal,
    );
    expect(verdict).toEqual({ value: { type: 'fail', errors: [error] }, usage: ONE_TURN });
    expect(fake.prompts).toHaveLength(1);
    expect(fake.prompts[0]).toMatchObject({ sessionID: 'ses_r', agent: 'reviewer' });
    expect(fake.prompts[0]!.text.split('\n')[0]).toBe('Orca · plan_X · step impl (reviewer) · attempt 1 · review round 1');
    for (const part of ['round 1 of 3', 'Success criteria: greet("") returns a greeting', 'Summary: wrote greet', 'src/greet.ts', '"type":"fail"', '# Output protocol\nEnd your reply with one JSON object']) {
      expect(fake.prompts[0]!.text).toContain(part);
    }
  });

  it('should send a correction prompt for malformed reviewer output and then fail clearly', async () => {
    const fake = fakeSessions(() => 'looks fine to me');
    const work = { summary: 's', artifacts: [], key_findings: [] };
    const failure = await base(fake.port).runReview({ idempotencyKey: 'plan_X:impl:1:review:1', sessionId: 'ses_r', thread, work, round: 1, maxRounds: 3 }, signal).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/reviewer output/);
    expect(fake.prompts).toHaveLength(3);
    // The three prompts were paid for: the error carries their usage for the plan's sums.
    expect(usageOfError(failure)).toEqual(usage({ turns: 3, model_calls: 3, input: 300, output: 30, cost: 0.003 }));
  });

  it("should give the fixer every error report in seed 003's format, in the specialist's own session", async () => {
    const fake = fakeSessions(() => ({ type: 'success', summary: 'fixed', artifacts: ['src/greet.ts'] }));
    const result = await base(fake.port).runFix({ idempotencyKey: 'plan_X:impl:1:fix:1', sessionId: 'ses_c', agent: 'coder', thread, errors: [error], round: 1, rerun: false }, signal);
    expect(result).toMatchObject({ value: { type: 'success', summary: 'fixed' }, usage: ONE_TURN });
    expect(fake.prompts[0]).toMatchObject({ sessionID: 'ses_c', agent: 'coder' });
    expect(fake.prompts[0]!.text.split('\n')[0]).toBe('Orca · plan_X · step impl (coder) · attempt 1 · fix round 1');
    for (const part of ['[ERROR-001] Logic', 'File: src/greet.ts', 'Line: 2', 'Issue: empty name', 'Found: x', 'Expected: y', 'Fix: z', 'Fix ALL reported errors']) {
      expect(fake.prompts[0]!.text).toContain(part);
    }
  });

  it("should report a fixer turn aborted by the tool-loop breaker with the breaker's reason, and unguard the session", async () => {
    const fake = fakeSessions(() => 'no json');
    const guarded: string[] = [];
    const monitor = {
      guard: (id: string) => {
        guarded.push(id);
        return () => void guarded.splice(guarded.indexOf(id), 1);
      },
      abortReason: () => 'aborted after 4 identical failures of read: File not found',
      watchStatus: () => () => {},
    };
    const ports = base(fake.port, { turns: createTurnRunner(fake.port, { monitor }) });
    const result = await ports.runFix({ idempotencyKey: 'plan_X:impl:1:fix:1', sessionId: 'ses_c', agent: 'coder', thread, errors: [error], round: 1, rerun: false }, signal);
    expect(result.value).toEqual({ type: 'failure', error: 'aborted after 4 identical failures of read: File not found' });
    // The breaker ends the turn after the reply it aborted: no correction prompt, one turn paid for.
    expect(result.usage).toEqual(ONE_TURN);
    expect(guarded).toEqual([]);
  });

  it('should abort an idle session before reporting the timeout', async () => {
    const fake = fakeSessions(() => null);
    const out = await base(fake.port).watchIdle({ planId: 'plan_X', stepId: 'impl', sessionId: 'ses_c', idleMs: 1000 }, signal);
    expect(out).toEqual({ idleMs: 1000 });
    expect(fake.aborted).toEqual(['ses_c']);
  });

  it('should run post-step hooks to the end and return their failures, logged', async () => {
    const logs: string[] = [];
    const ports = base(fakeSessions(() => null).port, { log: (_l, m) => logs.push(m) });
    const out = await ports.runStepHooks(
      { phase: 'post_step', commands: ['exit 3', 'true'], planId: 'plan_X', stepId: 'impl', agent: 'coder', attempt: 1 },
      signal,
    );
    expect(out.failures).toHaveLength(1);
    expect(out.failures[0]).toMatch(/post_step hook "exit 3" failed \(exit 3\)/);
    expect(logs.some((l) => l.includes('exit 3'))).toBe(true);
  });

  it('should reject a failing pre-step hook with its command, exit code and output', async () => {
    const ports = base(fakeSessions(() => null).port);
    await expect(
      ports.runStepHooks(
        { phase: 'pre_step', commands: ['echo "lint broke on $ORCA_STEP_ID"; exit 2'], planId: 'plan_X', stepId: 'impl', agent: 'coder', attempt: 1 },
        signal,
      ),
    ).rejects.toThrow(/pre_step hook .* failed \(exit 2\)[\s\S]*lint broke on impl/);
  });
});
