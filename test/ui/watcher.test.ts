import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchPlans, type PlanChanges, type PlanWatcher } from '../../src/ui/watcher.js';
import { waitFor } from '../support/wait-for.js';

const A = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
const B = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8VA';

let dir: string;
let watcher: PlanWatcher;
const errors: Error[] = [];
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'orca-watch-')), 'plans'); // created later, as a new project's is
  watcher = watchPlans(dir, { intervalMs: 20, onError: (e) => errors.push(e) });
});
afterEach(() => {
  watcher.stop();
  rmSync(join(dir, '..'), { recursive: true, force: true });
  expect(errors).toEqual([]);
});

const writeAtomically = (name: string, text: string) => {
  writeFileSync(join(dir, `${name}.tmp`), text);
  renameSync(join(dir, `${name}.tmp`), join(dir, name));
};

describe('the plan files watcher', () => {
  it('should report plans that appear, change and go away, and journals that grow, until unsubscribed', async () => {
    const seen: PlanChanges[] = [];
    const unsubscribe = watcher.subscribe((c) => seen.push(c), A);
    mkdirSync(dir);
    writeAtomically(`${A}.json`, '{}');
    writeAtomically(`${B}.json`, '{}');
    writeFileSync(join(dir, 'notes.txt'), 'not a plan');
    await waitFor(() => seen.some((c) => c.plans.includes(B)), { description: 'the new plans' });
    expect(seen.flatMap((c) => c.plans).sort()).toEqual([A, B]);
    expect(seen.every((c) => c.list)).toBe(true);

    seen.length = 0;
    writeFileSync(join(dir, `${A}.journal.jsonl`), '{}\n', { flag: 'a' });
    await waitFor(() => seen.length > 0, { description: 'the journal change' });
    expect(seen).toEqual([{ list: false, plans: [A] }]);

    seen.length = 0;
    rmSync(join(dir, `${B}.json`));
    await waitFor(() => seen.length > 0, { description: 'the removed plan' });
    expect(seen).toEqual([{ list: true, plans: [B] }]);

    unsubscribe();
    seen.length = 0;
    writeAtomically(`${A}.json`, '{"changed":true}');
    // Nobody listens: a fresh subscriber starts from what is on disk now and hears nothing old.
    const later: PlanChanges[] = [];
    watcher.subscribe((c) => later.push(c));
    writeAtomically(`${B}.json`, '{}');
    await waitFor(() => later.length > 0, { description: 'the next change' });
    expect(later).toEqual([{ list: true, plans: [B] }]);
    expect(seen).toEqual([]);
  });
});
