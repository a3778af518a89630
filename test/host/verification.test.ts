import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoChoice } from '../../src/decisions/auto-policy.js';
import { drivePlan } from '../../src/host/drive.js';
import { PlanHost } from '../../src/host/plan-host.js';
import { decisionEvent, openGates, type Gate } from '../../src/machines/gates.js';
import type { PlanPorts, VerifyPlanInput } from '../../src/machines/ports.js';
import type { PlannerOutput, PlanVerification } from '../../src/machines/types.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { renderDrive } from '../../src/tools/render.js';
import type { AutoPolicy } from '../../src/config/options.js';
import { instantPorts } from '../support/instant-ports.js';
import { turn } from '../support/turns.js';

const plan = (verification: string[], steps = ['a', 'b']): PlannerOutput => ({
  type: 'plan',
  goal: 'Two parallel changes',
  steps: steps.map((id) => ({ id, agent: 'coder', description: `change ${id}` })),
  assumptions: [],
  risks: [],
  verification,
});

const result = (passed: boolean): PlanVerification => ({
  passed,
  where: '/project',
  checks: [
    { kind: 'command', name: 'npm test', passed, output: passed ? 'passed (exit 0) after 0.4 s' : 'hook "npm test" failed (exit 1) after 0.4 s:\n1 failing: parseArgs' },
    { kind: 'turn', name: "the plan's verification list", passed: true, output: 'usage line printed' },
  ],
  changed: passed ? [] : ['coverage.txt'],
  at: '2026-01-01T00:00:00.000Z',
});

let dir: string;
const hosts: PlanHost[] = [];
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orca-verify-'))));
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

/** A host whose steps all succeed and whose verification answers from `verdicts`, one per run; `policy` answers every gate. */
function setup(proposal: PlannerOutput | ((message: string, n: number) => PlannerOutput), verdicts: boolean[], policy: AutoPolicy, planPolicy: Record<string, unknown> = {}) {
  const asked: VerifyPlanInput[] = [];
  const ports: PlanPorts = {
    ...instantPorts(proposal),
    verifyPlan: async (input) => {
      asked.push(input);
      return turn(result(verdicts[asked.length - 1] ?? true));
    },
  };
  const store = new PlanStore(join(dir, 'plans'));
  const host = new PlanHost({ store, ports, policy: { review_agents: [], ...planPolicy } });
  hosts.push(host);
  const gates: Gate[] = [];
  const resolve = async (gate: Gate) => {
    gates.push(gate);
    const choice = autoChoice(gate, { approval: 'approve', ...policy });
    return choice ? { event: decisionEvent(gate, choice, { channel: 'auto', at: '2026-01-01T00:00:00.000Z' }) } : { waiting: 'no channel' };
  };
  const run = async () => {
    const planId = host.create({ message: 'change a and b', callerSessionId: 'ses_root' }).getSnapshot().context.plan_id;
    const driven = await drivePlan(host, planId, resolve, new AbortController().signal);
    // Written behind: every write started so far on disk before the file is read.
    await host.settled(planId);
    return { planId, driven, file: () => JSON.parse(readFileSync(store.pathOf(planId), 'utf8')) };
  };
  return { asked, gates, run, host };
}

describe("a plan's verification in the user's project, once every step landed", () => {
  it('should run it after the last step, with the plan list, the configured commands and what each step did, and complete when it passes', async () => {
    const t = setup(plan(['npm test passes', 'the usage line prints']), [true], {}, { verify_commands: ['npm test'] });
    const { planId, driven, file } = await t.run();
    expect(driven.kind === 'outcome' && driven.tag).toBe('outcome.completed');
    expect(t.asked).toEqual([
      {
        idempotencyKey: `${planId}:verify:1`,
        planId,
        goal: 'Two parallel changes',
        verification: ['npm test passes', 'the usage line prints'],
        commands: ['npm test'],
        turn: true,
        steps: [
          { id: 'a', agent: 'coder', summary: 'a done' },
          { id: 'b', agent: 'coder', summary: 'b done' },
        ],
        parentSessionId: 'ses_root',
        base: null,
      },
    ]);
    expect(file()).toMatchObject({ status: 'completed', verification_result: { passed: true, where: '/project' } });
    const rendered = renderDrive(driven) as { verification: { passed: boolean; where: string; checks: string[] } };
    expect(rendered.verification).toEqual({
      passed: true,
      where: '/project',
      checks: ['passed: npm test: passed (exit 0) after 0.4 s', "passed: the plan's verification list: usage line printed"],
    });
  });

  it('should not verify a plan that names nothing and has no command configured, and say so in the result', async () => {
    const t = setup(plan([]), [], {});
    const { driven, file } = await t.run();
    expect(driven.kind === 'outcome' && driven.tag).toBe('outcome.completed');
    expect(t.asked).toEqual([]);
    expect(file().verification_result).toBeUndefined();
    expect((renderDrive(driven) as { verification: string }).verification).toMatch(/^not carried out in the user's project/);
  });

  it('should not run the turn with verification.turn false, and still run the configured commands', async () => {
    const off = setup(plan(['npm test passes']), [], {}, { verify_turn: false });
    await off.run();
    expect(off.asked).toEqual([]);
    const commands = setup(plan(['npm test passes']), [true], {}, { verify_turn: false, verify_commands: ['make check'] });
    await commands.run();
    expect(commands.asked).toMatchObject([{ turn: false, commands: ['make check'] }]);
  });

  it('should wait at the verification gate when it fails, with what failed, and stop there with hitl.auto.verification=stop', async () => {
    const t = setup(plan(['npm test passes']), [false], { verification: 'stop' });
    const { driven, file } = await t.run();
    expect(driven.kind === 'outcome' && driven.tag).toBe('outcome.stopped');
    const gate = t.gates.find((g) => g.kind === 'verification');
    expect(gate).toMatchObject({ kind: 'verification', runs: 1, planned: ['npm test passes'], options: ['Replan', 'Accept as is', 'Stop'], autoOptions: ['Replan', 'Accept as is', 'Stop'] });
    expect(file()).toMatchObject({
      status: 'failed',
      verification_result: { passed: false, changed: ['coverage.txt'] },
      decisions: [{ gate: 'approval' }, { gate: 'verification', option: 'Stop', channel: 'auto', text: 'auto policy hitl.auto.verification=stop' }],
    });
    // The steps' changes are not undone: they completed and landed.
    expect(file().steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'completed']);
  });

  it('should end completed with the failure on record on Accept as is', async () => {
    const t = setup(plan(['npm test passes']), [false], { verification: 'accept' });
    const { driven, file } = await t.run();
    expect(driven.kind === 'outcome' && driven.tag).toBe('outcome.completed');
    expect(file()).toMatchObject({ status: 'completed', verification_result: { passed: false } });
    expect((renderDrive(driven) as { verification: { passed: boolean } }).verification.passed).toBe(false);
  });

  it('should send the planner what failed on Replan, and verify the revised plan again once its new steps land', async () => {
    const messages: string[] = [];
    const proposals = (message: string, n: number) => {
      messages.push(message);
      return n === 1 ? plan(['npm test passes']) : plan(['npm test passes'], ['a', 'b', 'fix']);
    };
    const t = setup(proposals, [false, true], { verification: 'replan' });
    const { planId, driven, file } = await t.run();
    expect(driven.kind === 'outcome' && driven.tag).toBe('outcome.completed');
    expect(messages[1]).toContain("the plan's verification failed there, and the user chose Replan");
    expect(messages[1]).toContain('Failed: npm test\nhook "npm test" failed (exit 1) after 0.4 s:\n1 failing: parseArgs');
    expect(messages[1]).toContain('The verification changed these files: coverage.txt');
    expect(t.asked.map((a) => a.idempotencyKey)).toEqual([`${planId}:verify:1`, `${planId}:verify:2`]);
    // Completed steps were kept; only the new one ran.
    expect(file().steps.map((s: { id: string; attempts: number }) => [s.id, s.attempts])).toEqual([
      ['a', 1],
      ['b', 1],
      ['fix', 1],
    ]);
    expect(file().verification_result.passed).toBe(true);
  });

  it('should leave the gate open for a person when no policy answers it, and name it in the plan file', async () => {
    const t = setup(plan(['npm test passes']), [false], {});
    const { planId, driven, file } = await t.run();
    expect(driven.kind).toBe('waiting');
    expect(file()).toMatchObject({ status: 'in_progress', state: 'in_progress.verification_failed', waiting_for: 'verification' });
    const gates = openGates(t.host.open(planId).getSnapshot());
    expect(gates).toMatchObject([{ kind: 'verification', runs: 1 }]);
  });
});
