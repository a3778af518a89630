import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyActorRef } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanPorts } from '../../src/machines/ports.js';
import { idlePorts } from '../support/idle-ports.js';
import { PLAN_MACHINE_VERSION, stepActorId, type PlanEvent } from '../../src/machines/plan.machine.js';
import { PlanNotFoundError, QuarantinedPlanError } from '../../src/persistence/errors.js';
import { planStatus, statePath } from '../../src/persistence/plan-envelope.js';
import { SCHEMA_VERSION, type PlanFile } from '../../src/persistence/plan-file.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { done } from '../machines/fixtures.js';

/**
 * Plan files written by earlier versions, committed under test/fixtures/plan-v{schema}.json and
 * never regenerated here: each must still validate, migrate, restore and run to the end. A new
 * schema or machine version without a migration makes these tests fail.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const fixtureNames = readdirSync(FIXTURES)
  .filter((name) => /^plan-v\d+\.json$/.test(name))
  .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));

/** Ports that never settle: every invoke outcome is delivered as a synthetic event. */
const ports: PlanPorts = idlePorts;
const by = { channel: 'cli' as const, at: '2026-02-01T00:00:00.000Z' };
const now = () => new Date('2026-02-01T00:00:00.000Z');

let dir: string;
let store: PlanStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orca-fixtures-'));
  store = new PlanStore(join(dir, '.opencode', 'plans'));
  mkdirSync(store.dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const readFixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as PlanFile;

/** Put a fixture (or a changed copy of it) into the plans dir under its plan_id, as the plugin finds it. */
function install(name: string, change?: (file: Record<string, unknown>) => void): string {
  const file = readFixture(name);
  const path = store.pathOf(file.plan_id);
  if (change) {
    const copy = structuredClone(file) as unknown as Record<string, unknown>;
    change(copy);
    writeFileSync(path, JSON.stringify(copy, null, 2));
  } else copyFileSync(join(FIXTURES, name), path);
  return file.plan_id;
}

const child = (host: PlanHost, planId: string, stepId: string) =>
  host.open(planId).getSnapshot().children[stepActorId(stepId)] as AnyActorRef | undefined;

/**
 * Drive a restored plan to its end with the events a run would deliver: planner outcomes, the
 * approval, then for each step the invoke outcomes sent to its real child, with one failed
 * attempt and a Retry on the first step to run so the deviation gate is crossed too.
 */
function runToEnd(host: PlanHost, planId: string, replyPlan: object) {
  const trail: string[] = [];
  let failedOnce = false;
  for (let i = 0; i < 100; i++) {
    const s = host.open(planId).getSnapshot();
    if (s.status !== 'active') return trail;
    const path = statePath(s.value);
    const planEvent = (event: PlanEvent | { type: string; output?: unknown }) => {
      trail.push(`${path}: ${event.type}`);
      host.send(planId, event as PlanEvent);
    };
    if (path === 'drafting.opening_session') planEvent(done('openPlannerSession', { sessionId: 'ses_planner' }));
    else if (path === 'drafting.consulting') planEvent(done('consultPlanner', replyPlan));
    else if (path === 'changes_requested') planEvent(done('revisePlan', replyPlan));
    else if (path === 'drafting.awaiting_answers') planEvent({ type: 'question.answer', answers: [['yes']], ...by });
    else if (path === 'drafting.answered' || path === 'drafting.planner_failed') planEvent({ type: 'plan.message', message: 'go on' });
    else if (path === 'pending_approval') planEvent({ type: 'approval.approve', text: 'fixture', ...by });
    else if (path.startsWith('in_progress')) {
      const step = s.context.steps.find((st) => st.status === 'running' || st.status === 'awaiting_decision');
      if (!step) throw new Error(`in_progress with nothing running: ${JSON.stringify(s.context.steps.map((st) => st.status))}`);
      const ref = child(host, planId, step.id);
      const c = ref?.getSnapshot();
      if (!ref || c?.status !== 'active') throw new Error(`step ${step.id} is ${step.status} but its child is ${c?.status ?? 'missing'}`);
      if (c.value === 'opening_session') {
        trail.push(`${step.id}: openSpecialistSession done`);
        ref.send(done('openSpecialistSession', { sessionId: `ses_${step.id}_${c.context.attempt}` }));
      } else if (c.value === 'running' && !failedOnce) {
        failedOnce = true;
        trail.push(`${step.id}: runSpecialist failure`);
        ref.send(done('runSpecialist', { type: 'failure', error: 'tests are red' }));
      } else if (c.value === 'running') {
        trail.push(`${step.id}: runSpecialist success`);
        ref.send(done('runSpecialist', { type: 'success', summary: `${step.id} done`, artifacts: [`${step.id}.ts`], key_findings: [] }));
      } else if (c.value === 'awaiting_decision') planEvent({ type: 'deviation.retry', stepId: step.id, text: 'fix the red test', ...by });
      else throw new Error(`unexpected child state ${JSON.stringify(c.value)}`);
    } else throw new Error(`no way forward from ${path}`);
  }
  throw new Error('the plan did not finish in 100 events');
}

describe('plan file fixtures', () => {
  it('should have a committed fixture for every schema version up to the current one', () => {
    expect(fixtureNames.length).toBeGreaterThan(0);
    const versions = fixtureNames.map((name) => Number(/\d+/.exec(name)![0]));
    expect(versions).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    for (const name of fixtureNames) {
      const file = readFixture(name);
      expect(file.schema_version, `${name} is named after its schema_version`).toBe(Number(/\d+/.exec(name)![0]));
      expect(file.machine_version).toBeLessThanOrEqual(PLAN_MACHINE_VERSION);
    }
  });

  describe.each(fixtureNames)('%s', (name) => {
    it('should validate, migrate, restore in a new host and run to completed', async () => {
      const original = readFixture(name);
      const planId = install(name);

      const loaded = store.load(planId);
      expect(loaded.schema_version).toBe(SCHEMA_VERSION);
      expect(loaded.machine_version).toBe(PLAN_MACHINE_VERSION);
      expect(loaded.plan_id).toBe(planId);
      expect(loaded.snapshot.context.plan_id).toBe(planId);
      expect(existsSync(store.quarantineDir)).toBe(false);

      const host = new PlanHost({ store, ports, now });
      expect(host.loadIndex()).toEqual([]);
      expect(host.index.getSnapshot().context.plans[planId]).toMatchObject({
        status: original.status,
        state: original.state,
        waiting_for: original.waiting_for,
      });

      const actor = host.open(planId);
      const restored = actor.getSnapshot();
      expect(restored.status).toBe('active');
      expect(planStatus(restored.value)).toBe(loaded.status);
      expect(statePath(restored.value)).toBe(loaded.state);
      expect(restored.context.steps.map((s) => [s.id, s.status])).toEqual(loaded.steps.map((s) => [s.id, s.status]));
      if (name === 'plan-v1.json') {
        expect(loaded.status).toBe('pending_approval');
        expect(loaded.waiting_for).toBe('approval');
        expect(restored.hasTag('gate.approval')).toBe(true);
        expect(restored.context.steps.map((s) => [s.id, s.depends_on])).toEqual([
          ['impl', []],
          ['test', ['impl']],
        ]);
      }

      // A fixture saved before the planner proposed gets this plan; others get their own back.
      const proposal = (loaded.snapshot.context as { proposal?: object | null }).proposal;
      const replyPlan = { type: 'plan', ...(proposal ?? { goal: 'g', steps: [{ id: 'a', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] }) };
      const trail = runToEnd(host, planId, replyPlan);
      const end = actor.getSnapshot();
      expect(end.value, trail.join('\n')).toBe('completed');
      expect(end.context.outcome).toBe('completed');
      expect(end.context.steps.every((s) => s.status === 'completed')).toBe(true);
      // The first step ran twice (one failed attempt, a Retry), the others once.
      expect(end.context.steps.map((s) => s.attempts)).toEqual(end.context.steps.map((_, i) => (i === 0 ? 2 : 1)));
      expect(end.context.steps[0]!.failures).toEqual([{ attempt: 1, error: 'tests are red', kind: 'answer', signature: 'tests are red', guidance: 'fix the red test' }]);
      const newDecisions = end.context.decisions.slice(original.decisions.length);
      expect(newDecisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Retry', channel: 'cli', step_id: end.context.steps[0]!.id });
      if (name === 'plan-v1.json') expect(newDecisions.map((d) => d.option)).toEqual(['Approve', 'Retry']);

      // The host keeps writing the current format; the finished plan loads and restores again.
      await Promise.resolve();
      host.flush(planId);
      await host.dispose();
      const saved = JSON.parse(readFileSync(store.pathOf(planId), 'utf8'));
      expect(saved).toMatchObject({ schema_version: SCHEMA_VERSION, machine_version: PLAN_MACHINE_VERSION, status: 'completed', created_at: original.created_at });
      const again = new PlanHost({ store, ports, now });
      expect(again.open(planId).getSnapshot().value).toBe('completed');
      await again.dispose();
    });

    const unmigratable: Array<[string, (file: Record<string, unknown>) => void, RegExp]> = [
      ['machine_version 0', (f) => (f.machine_version = 0), /machine_version is 0: expected an integer from 1 to \d+/],
      [
        `schema_version ${SCHEMA_VERSION + 1}`,
        (f) => (f.schema_version = SCHEMA_VERSION + 1),
        new RegExp(`schema_version ${SCHEMA_VERSION + 1} is newer than this plugin understands \\(${SCHEMA_VERSION}\\): upgrade`),
      ],
    ];
    it.each(unmigratable)(
      'should quarantine a copy with %s, saying why',
      async (_label, change, reason) => {
        const planId = install(name, change);
        let error: unknown;
        try {
          store.load(planId);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(QuarantinedPlanError);
        expect((error as QuarantinedPlanError).reason).toMatch(reason);
        expect((error as Error).message).toMatch(new RegExp(`Plan ${planId} could not be loaded \\(.*\\); the file was moved to `));
        expect(existsSync(store.pathOf(planId))).toBe(false);
        const reasonFile = readdirSync(store.quarantineDir).find((f) => f.startsWith(`${planId}.json.`) && f.endsWith('.reason.txt'))!;
        expect(readFileSync(join(store.quarantineDir, reasonFile), 'utf8')).toMatch(reason);

        // Through the host too: the plan is quarantined, never half-restored.
        install(name, change);
        const host = new PlanHost({ store, ports, now });
        expect(() => host.open(planId)).toThrow(QuarantinedPlanError);
        expect(host.isLive(planId)).toBe(false);
        expect(() => host.open(planId)).toThrow(PlanNotFoundError);
        await host.dispose();
      },
    );
  });
});
