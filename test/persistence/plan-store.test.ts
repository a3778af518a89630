import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { PLAN_MACHINE_VERSION } from '../../src/machines/plan.machine.js';
import { InvalidPlanIdError, PlanNotFoundError, QuarantinedPlanError } from '../../src/persistence/errors.js';
import { newPlanId, parsePlanId } from '../../src/persistence/plan-id.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { idlePorts } from '../support/idle-ports.js';
import { eachTempStore } from '../support/temp-store.js';

const ports = idlePorts;

let store: PlanStore;
eachTempStore('orca-store-', (s) => (store = s));

/** A valid plan file, written by a real host. */
async function validPlan(): Promise<string> {
  const host = new PlanHost({ store, ports });
  const id = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
  await Promise.resolve();
  await host.settled(id);
  await host.dispose();
  return id;
}

describe('plan ids', () => {
  it('should generate time-sortable ids that validate', () => {
    const a = newPlanId(1_000);
    const b = newPlanId(2_000);
    expect(parsePlanId(a)).toBe(a);
    expect(a < b).toBe(true);
  });

  it.each(['../etc/passwd', 'plan_/../../x', 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V', 'plan_01jdx4z6q5h2m3n4p5r6s7t8v9', 'a/b', '', 42, null])(
    'should reject %j with a message saying what is expected',
    (bad) => {
      expect(() => parsePlanId(bad)).toThrow(InvalidPlanIdError);
      expect(() => parsePlanId(bad)).toThrow(/expected "plan_" followed by 26 ULID characters/);
      expect(() => store.load(bad as string)).toThrow(InvalidPlanIdError);
    },
  );
});

describe('plan store', () => {
  it('should write the public format: plain fields beside the snapshot', async () => {
    const id = await validPlan();
    const file = JSON.parse(readFileSync(store.pathOf(id), 'utf8'));
    expect(file).toMatchObject({ schema_version: 1, machine_version: PLAN_MACHINE_VERSION, plan_id: id, goal: 'hello', status: 'drafting' });
    expect(file.snapshot.context.plan_id).toBe(id);
    expect(readdirSync(store.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('should say when a plan does not exist', () => {
    expect(() => store.load(newPlanId())).toThrow(PlanNotFoundError);
  });

  const corruptions: Array<[string, (text: string, id: string) => string, RegExp]> = [
    ['corrupt JSON', () => '{"schema_version": 1, nope', /not valid JSON/],
    ['truncated', (text) => text.slice(0, Math.floor(text.length / 2)), /not valid JSON/],
    ['an unknown schema version', (text) => text.replace('"schema_version": 1', '"schema_version": 99'), /schema_version 99 is newer/],
    ['foreign JSON', () => JSON.stringify({ name: 'package', version: '1.0.0' }), /not an Orca plan file/],
    ['a JSON array', () => '[]', /not a JSON object/],
    ['a wrong status', (text) => text.replace('"status": "drafting"', '"status": "sleeping"'), /invalid plan file: status/],
    ['another plan inside', (text, id) => text.replaceAll(id, newPlanId()), /does not match/],
  ];

  it.each(corruptions)('should quarantine %s with the reason beside it, leaving other plans alone', async (_name, corrupt, reason) => {
    const bad = await validPlan();
    const good = await validPlan();
    writeFileSync(store.pathOf(bad), corrupt(readFileSync(store.pathOf(bad), 'utf8'), bad));
    let error: unknown;
    try {
      store.load(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(QuarantinedPlanError);
    expect((error as Error).message).toMatch(reason);
    expect(existsSync(store.pathOf(bad))).toBe(false);
    const moved = readdirSync(store.quarantineDir);
    expect(moved.some((f) => f.startsWith(`${bad}.json.`) && f.endsWith('.reason.txt'))).toBe(true);
    const reasonFile = moved.find((f) => f.endsWith('.reason.txt'))!;
    expect(readFileSync(join(store.quarantineDir, reasonFile), 'utf8')).toMatch(reason);
    expect(store.load(good).plan_id).toBe(good);
  });

  it('should quarantine a snapshot that validates but does not restore', async () => {
    const id = await validPlan();
    const file = JSON.parse(readFileSync(store.pathOf(id), 'utf8'));
    file.snapshot.value = { drafting: 'renamed_state' };
    writeFileSync(store.pathOf(id), JSON.stringify(file));
    const host = new PlanHost({ store, ports });
    expect(() => host.open(id)).toThrow(QuarantinedPlanError);
    expect(() => host.open(id)).toThrow(PlanNotFoundError);
    expect(host.isLive(id)).toBe(false);
  });

  it('should rebuild the index from disk and quarantine stray files', async () => {
    const a = await validPlan();
    const b = await validPlan();
    mkdirSync(store.dir, { recursive: true });
    writeFileSync(join(store.dir, 'notes.json'), '{}');
    const host = new PlanHost({ store, ports });
    const problems = host.loadIndex();
    expect(problems).toEqual([]);
    expect(Object.keys(host.index.getSnapshot().context.plans).sort()).toEqual([a, b].sort());
    expect(readdirSync(store.quarantineDir).some((f) => f.startsWith('notes.json.'))).toBe(true);
  });
});
