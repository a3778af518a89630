import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyActorRef } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planLines } from '../../src/cli/show.js';
import { stepPrompt } from '../../src/prompts/step-prompt.js';
import { PlanHost } from '../../src/host/plan-host.js';
import { threadContext } from '../../src/machines/threading.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { done } from '../machines/fixtures.js';
import { idlePorts } from '../support/idle-ports.js';
import { usage } from '../support/turns.js';

/**
 * A plan file as the version before model calls, roles and failure kinds wrote it: the committed
 * machine-3 fixture with usage recorded the way that version recorded it (no `model_calls`, no
 * `usage_by_role`) and a failed attempt with no `kind`. It must load, say its model calls are
 * unknown (not zero), keep them unknown in sums that include them, and word the old failure as before.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/before-usage/plan-machine3-running.json', import.meta.url));
const OLD_USAGE = { turns: 3, input: 3000, output: 300, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0.03 };
const OLD_FAILURE = { attempt: 1, error: 'tests are red', signature: 'tests are red', guidance: 'fix the red test' };

function olderFile() {
  const file = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  const context = file.snapshot.context;
  for (const target of [file, context]) target.usage = OLD_USAGE;
  for (const steps of [file.steps, context.steps]) {
    steps[0].usage = OLD_USAGE;
    steps[1].failures = [OLD_FAILURE];
    steps[1].attempts = 2;
  }
  const child = file.snapshot.children['step:test'].snapshot.context;
  child.failures = [OLD_FAILURE];
  child.attempt = 2;
  child.thread.previous_attempts = [OLD_FAILURE];
  return file;
}

let dir: string;
let store: PlanStore;
let file: ReturnType<typeof olderFile>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orca-before-calls-'));
  store = new PlanStore(join(dir, '.opencode', 'plans'));
  mkdirSync(store.dir, { recursive: true });
  file = olderFile();
  writeFileSync(store.pathOf(file.plan_id), JSON.stringify(file));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a plan file from before model calls, roles and failure kinds were recorded', () => {
  it('should load and say its model calls were not recorded, and word its old failure as before', () => {
    const loaded = store.load(file.plan_id);
    const lines = planLines(loaded, { held: false }).join('\n');
    expect(lines).toContain('  usage    3 Orca turns (model calls not recorded), 3,300 tokens, $0.03');
    expect(lines).toContain('      failed attempt 1: tests are red (guidance: fix the red test)');
    expect(stepPrompt(threadContext(loaded, 'test'))).toContain("# Previous attempts at this step failed\n- Attempt 1: tests are red\n  The user's guidance: fix the red test");
  });

  it('should resume, keep the plan total unknown in model calls, and count them for the turns that follow', async () => {
    const host = new PlanHost({ store, ports: idlePorts });
    const actor = host.open(file.plan_id);
    const test = actor.getSnapshot().children['step:test'] as AnyActorRef;
    test.send(done('runSpecialist', { type: 'success', summary: 'tests pass', artifacts: [], key_findings: [] }, usage({ model_calls: 3 })));
    expect(actor.getSnapshot().value).toBe('completed');
    await Promise.resolve();
    host.flush(file.plan_id);
    await host.dispose();
    const saved = JSON.parse(readFileSync(store.pathOf(file.plan_id), 'utf8'));
    expect(saved.usage).toEqual({ ...OLD_USAGE, turns: 4, input: 3100, output: 310, cost: 0.031 });
    expect(saved.usage).not.toHaveProperty('model_calls');
    const [impl, tested] = saved.steps;
    expect(impl.usage).toEqual(OLD_USAGE);
    expect(impl).not.toHaveProperty('usage_by_role');
    expect(tested.usage).toEqual(usage({ model_calls: 3 }));
    expect(tested.usage_by_role).toEqual({ specialist: usage({ model_calls: 3 }) });
    expect(tested.failures).toEqual([OLD_FAILURE]);
    expect(store.load(file.plan_id).plan_id).toBe(file.plan_id);
  });
});
