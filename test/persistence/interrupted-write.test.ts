import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { idlePorts } from '../support/idle-ports.js';
import { eachTempStore } from '../support/temp-store.js';

const ports = idlePorts;

let store: PlanStore;
eachTempStore('orca-write-', (s) => (store = s));

async function goodPlan() {
  const host = new PlanHost({ store, ports });
  const planId = host.create({ message: 'the good state' }).getSnapshot().context.plan_id;
  await Promise.resolve();
  await host.dispose();
  return planId;
}

describe('a plan file write interrupted half way', () => {
  it('should load the previous good state when the temp file was truncated and never renamed', async () => {
    const planId = await goodPlan();
    const good = store.load(planId);
    writeFileSync(`${store.pathOf(planId)}.4242.tmp`, JSON.stringify({ ...good, goal: 'half written' }).slice(0, 200));
    expect(store.load(planId)).toEqual(good);
    expect(store.listIds()).toEqual([planId]);
  });

  it('should always load a whole state when a writer is killed at random moments', async () => {
    const planId = await goodPlan();
    const path = store.pathOf(planId);
    const good = store.load(planId);
    // A child rewrites the plan file with writeFileAtomic as fast as it can; SIGKILL lands anywhere.
    // It loads the source through tsx, so the test needs no build.
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(join(projectRoot, 'src', 'persistence', 'atomic-write.ts')).href)};
      const base = ${JSON.stringify(JSON.stringify(good))};
      const file = JSON.parse(base);
      console.log('writing');
      for (let i = 0; ; i++) writeFileAtomic(${JSON.stringify(path)}, JSON.stringify({ ...file, goal: 'write ' + i, padding: 'x'.repeat(200000) }, null, 2));
    `;
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
      // Also when the test fails or times out first: a writer left running fills the disk and keeps the folder from being removed.
      onTestFinished(() => void child.kill('SIGKILL'));
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`Expected the writer to start writing; it exited with code ${code}`)));
      });
      await new Promise((r) => setTimeout(r, 20 + round * 17));
      child.kill('SIGKILL');
      await exited;
      const loaded = store.load(planId); // throws (and quarantines) if the file were torn
      expect(loaded.goal).toMatch(/^(the good state|write \d+)$/);
    }
    expect(readdirSync(store.dir).filter((f) => f.endsWith('.json'))).toEqual([`${planId}.json`]);
  }, 20_000);
});

describe('temp files of writes that never finished', () => {
  it('should be removed at start when their writer is gone, and left alone while it lives', () => {
    const path = store.pathOf('plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9');
    mkdirSync(store.dir, { recursive: true });
    writeFileSync(`${path}.4242.tmp`, 'half');
    writeFileSync(`${path}.4242.7.tmp`, 'half');
    writeFileSync(`${path}.${process.pid}.3.tmp`, 'in flight');
    writeFileSync(join(store.dir, 'notes.tmp'), 'not ours');
    const removed = store.sweepTemps((pid) => pid !== 4242);
    expect(removed.sort()).toEqual(['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9.json.4242.7.tmp', 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9.json.4242.tmp']);
    expect(readdirSync(store.dir).sort()).toEqual(['notes.tmp', `plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9.json.${process.pid}.3.tmp`]);
  });
});
