import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VerifyPlanInput } from '../../src/machines/ports.js';
import { createTurnRunner } from '../../src/opencode/turn-runner.js';
import { verifyPort } from '../../src/opencode/verify-port.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { ONE_TURN } from '../support/turns.js';

const signal = new AbortController().signal;
const input: VerifyPlanInput = {
  idempotencyKey: 'plan_X:verify:1',
  planId: 'plan_X',
  goal: 'A usage line for the CLI',
  verification: ['npm test passes', 'node cli.js --help prints the usage line'],
  commands: [],
  turn: true,
  steps: [
    { id: 'impl', agent: 'coder', summary: 'parseArgs takes --help' },
    { id: 'docs', agent: 'document-writer', summary: 'README documents --help' },
  ],
  parentSessionId: 'ses_root',
  base: null,
};

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orca-verify-port-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function port(reply: Parameters<typeof fakeSessions>[0], tree?: Parameters<typeof verifyPort>[2]['tree'], baseChecks?: Parameters<typeof verifyPort>[2]['baseChecks']) {
  const fake = fakeSessions(reply);
  const logs: string[] = [];
  const verify = verifyPort(fake.port, createTurnRunner(fake.port, { isRecovering: () => false }), {
    directory: dir,
    commandTimeoutMs: 5_000,
    ...(tree ? { tree } : {}),
    ...(baseChecks ? { baseChecks } : {}),
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  return { ...fake, verify, logs };
}

describe('verifyPort', () => {
  it("should run the configured commands in the project, then the verifier's turn for the plan's list in a child session of the caller's", async () => {
    writeFileSync(join(dir, 'ok.sh'), 'echo all 12 tests pass\n');
    const p = port(() => ({ type: 'success', summary: 'both hold', artifacts: [], key_findings: ['npm test: 12 passing', '--help prints "usage: cli [--help]"'] }));

    const outcome = await p.verify.verifyPlan({ ...input, commands: ['sh ok.sh'] }, signal);

    expect(outcome.usage).toEqual(ONE_TURN);
    expect(outcome.value).toEqual({
      passed: true,
      where: dir,
      checks: [
        { kind: 'command', name: 'sh ok.sh', passed: true, output: expect.stringMatching(/^passed \(exit 0\) after [\d.]+ s:\nall 12 tests pass$/) },
        { kind: 'turn', name: "the plan's verification list", passed: true, output: 'both hold\n- npm test: 12 passing\n- --help prints "usage: cli [--help]"' },
      ],
      changed: [],
      at: expect.any(String),
    });
    expect(p.created).toEqual([
      { id: 'ses_1', parentID: 'ses_root', title: 'Orca verification · plan_X', metadata: { orca: { plan_id: 'plan_X', agent: 'verifier', idempotency_key: 'plan_X:verify:1' } } },
    ]);
    const prompt = p.prompts[0]!;
    // The hidden verifier agent (its prompt says who it is and that it changes nothing: test/prompts/role-requests.test.ts).
    expect(prompt).toMatchObject({ sessionID: 'ses_1', agent: 'verifier' });
    expect(prompt.text.split('\n')[0]).toBe('Orca · plan_X · verifier · verification');
    for (const part of [
      '# Verification of plan plan_X\nGoal: A usage line for the CLI',
      "# The plan's verification list\n- npm test passes\n- node cli.js --help prints the usage line",
      '- impl (coder): parseArgs takes --help\n- docs (document-writer): README documents --help',
    ]) {
      expect(prompt.text).toContain(part);
    }
  });

  it('should fail on a failing command with its exit and output, and on a failure the turn reports, still running both', async () => {
    const p = port(() => ({ type: 'failure', error: '--help prints nothing', cause: 'parseArgs returns before printing' }));
    const outcome = await p.verify.verifyPlan({ ...input, commands: ['echo "1 failing: parseArgs" >&2; exit 1'] }, signal);
    expect(outcome.value.passed).toBe(false);
    expect(outcome.value.checks).toEqual([
      { kind: 'command', name: 'echo "1 failing: parseArgs" >&2; exit 1', passed: false, output: expect.stringMatching(/^hook "echo .*" failed \(exit 1\) after [\d.]+ s:\n1 failing: parseArgs$/) },
      { kind: 'turn', name: "the plan's verification list", passed: false, output: '--help prints nothing\nparseArgs returns before printing' },
    ]);
  });

  it('should run no turn when the turn is off or the plan lists nothing, and no command when none is configured', async () => {
    const p = port(() => {
      throw new Error('no turn expected');
    });
    expect((await p.verify.verifyPlan({ ...input, turn: false, commands: ['true'] }, signal)).value.checks).toMatchObject([{ kind: 'command', name: 'true', passed: true }]);
    expect((await p.verify.verifyPlan({ ...input, verification: [] }, signal)).value).toMatchObject({ passed: true, checks: [] });
    expect(p.prompts).toEqual([]);
  });

  it('should report, and log, the files the verification changed in the project', async () => {
    const states: string[] = [];
    const tree = {
      state: async () => {
        states.push(readFileSync(join(dir, 'coverage.txt'), 'utf8'));
        return 'c0';
      },
      changedSince: async (state: string) => (state === 'c0' && readFileSync(join(dir, 'coverage.txt'), 'utf8') === 'after\n' ? ['coverage.txt'] : []),
    };
    writeFileSync(join(dir, 'coverage.txt'), 'before\n');
    const p = port(() => ({ type: 'success', summary: 'ok', artifacts: [] }), tree);
    const outcome = await p.verify.verifyPlan({ ...input, turn: false, commands: ['echo after > coverage.txt'] }, signal);
    expect(states).toEqual(['before\n']);
    expect(outcome.value).toMatchObject({ passed: true, changed: ['coverage.txt'] });
    expect(p.logs).toEqual(['warn: plan plan_X: its verification changed 1 file(s) in the project: coverage.txt']);
  });

  it("should run each failed command again on the plan's base, and only those, saying how each did there", async () => {
    const asked: Array<{ commit: string; commands: readonly string[] }> = [];
    const baseChecks = {
      of: async (commit: string, commands: readonly string[]) => {
        asked.push({ commit, commands });
        return commands.map((command) => ({ command, passed: false, output: 'hook "x" failed (exit 1) after 9.9 s:\n1 failing' }));
      },
    };
    const p = port(() => ({ type: 'success', summary: 'ok', artifacts: [] }), undefined, baseChecks);
    const outcome = await p.verify.verifyPlan({ ...input, turn: false, base: 'b0', commands: ['true', 'echo "1 failing"; exit 1'] }, signal);
    expect(asked).toEqual([{ commit: 'b0', commands: ['echo "1 failing"; exit 1'] }]);
    expect(outcome.value.checks[0]).not.toHaveProperty('before');
    expect(outcome.value.checks[1]).toMatchObject({ passed: false, before: { passed: false, output: expect.stringContaining('1 failing') } });
    expect(outcome.value).toMatchObject({ passed: false, base: 'b0' });
  });

  it('should leave a failure as it is, and say why, when it cannot run on the base, or there is none', async () => {
    const failing = { of: async () => Promise.reject(new Error('no slot free')) };
    const p = port(() => ({ type: 'success', summary: 'ok', artifacts: [] }), undefined, failing);
    const outcome = await p.verify.verifyPlan({ ...input, turn: false, base: 'b0', commands: ['exit 1'] }, signal);
    expect(outcome.value.checks[0]).not.toHaveProperty('before');
    expect(outcome.value).not.toHaveProperty('base');
    expect(p.logs).toEqual([expect.stringMatching(/^warn: plan plan_X: the failed checks could not run on the plan's base.*no slot free$/)]);
    const unasked = port(() => ({ type: 'success', summary: 'ok', artifacts: [] }), undefined, { of: async () => Promise.reject(new Error('must not be asked')) });
    expect((await unasked.verify.verifyPlan({ ...input, turn: false, base: null, commands: ['exit 1'] }, signal)).value.checks[0]).not.toHaveProperty('before');
    expect(unasked.logs).toEqual([]);
  });
});
