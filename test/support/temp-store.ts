import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach } from 'vitest';
import { PlanStore } from '../../src/persistence/plan-store.js';

/**
 * Before each test of the file (or describe) that calls it: a fresh temp dir named `prefix…` and a
 * PlanStore in its plans/ folder, handed to `use`. The dir is removed after the test, once the
 * afterEach hooks have run (so they can still dispose what writes into it).
 */
export function eachTempStore(prefix: string, use: (store: PlanStore) => void): void {
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    use(new PlanStore(join(dir, 'plans')));
    return () => rmSync(dir, { recursive: true, force: true });
  });
}
