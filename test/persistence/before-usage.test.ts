import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyActorRef } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { openGates } from '../../src/machines/gates.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { done } from '../machines/fixtures.js';
import { idlePorts } from '../support/idle-ports.js';
import { usage } from '../support/turns.js';

/**
 * A plan file written by machine version 3 before usage was recorded (generated once by the code
 * of that time, committed, never regenerated): in progress, its first step completed, its second
 * running. It must load and resume with no usage and no money or token limit, and count what its
 * turns cost from then on.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/before-usage/plan-machine3-running.json', import.meta.url));
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));

let dir: string;
let store: PlanStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orca-before-usage-'));
  store = new PlanStore(join(dir, '.opencode', 'plans'));
  mkdirSync(store.dir, { recursive: true });
  copyFileSync(FIXTURE, store.pathOf(fixture.plan_id));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a plan file from before usage was recorded', () => {
  it('should have none of the new fields (the fixture is what it claims)', () => {
    expect(fixture.usage).toBeUndefined();
    expect(fixture.budget).toBeUndefined();
    expect(fixture.steps.map((s: { usage?: unknown }) => s.usage)).toEqual([undefined, undefined]);
    expect(fixture.snapshot.context.usage).toBeUndefined();
    expect(fixture.snapshot.context.policy.max_cost).toBeUndefined();
  });

  it('should load, resume and sum the usage of the turns it runs from now on, with no money or token limit', async () => {
    const host = new PlanHost({ store, ports: idlePorts });
    expect(host.loadIndex()).toEqual([]);
    const actor = host.open(fixture.plan_id);
    expect(actor.getSnapshot().value).toEqual({ in_progress: 'running' });
    const test = actor.getSnapshot().children['step:test'] as AnyActorRef;
    test.send(done('runSpecialist', { type: 'success', summary: 'tests pass', artifacts: [], key_findings: [] }, usage({ input: 1000, cost: 0.02 })));
    const end = actor.getSnapshot();
    expect(end.value).toBe('completed');
    expect(end.context.usage).toEqual(usage({ input: 1000, cost: 0.02 }));
    expect(openGates(end)).toEqual([]);

    await Promise.resolve();
    host.flush(fixture.plan_id);
    await host.dispose();
    const saved = JSON.parse(readFileSync(store.pathOf(fixture.plan_id), 'utf8'));
    expect(saved.usage).toEqual(usage({ input: 1000, cost: 0.02 }));
    expect(saved.steps.map((s: { id: string; usage: unknown }) => [s.id, s.usage])).toEqual([
      ['impl', ZERO_USAGE],
      ['test', usage({ input: 1000, cost: 0.02 })],
    ]);
    expect(saved.budget).toEqual({ dispatches: 2, dispatch_cap: 100, max_cost: null, max_tokens: null });
  });

  it('should pause at the dispatch cap as before, the budget gate reading no usage as none spent', () => {
    const copy = structuredClone(fixture);
    copy.snapshot.context.dispatch_cap = 2;
    copy.snapshot.context.steps[1].status = 'pending';
    copy.snapshot.children = {};
    copy.steps[1].status = 'pending';
    const path = store.pathOf(fixture.plan_id);
    rmSync(path);
    const host = new PlanHost({ store, ports: idlePorts });
    writeFileSync(path, JSON.stringify(copy));
    const actor = host.open(fixture.plan_id);
    // Restored in `running`, where the guard is only evaluated at the next event: any plan event does.
    actor.send({ type: 'usage.recorded', usage: ZERO_USAGE });
    const [gate] = openGates(actor.getSnapshot());
    expect(gate).toMatchObject({ kind: 'budget', crossed: ['dispatches'], usage: ZERO_USAGE, cost_cap: null, token_cap: null });
    void host.dispose();
  });
});
