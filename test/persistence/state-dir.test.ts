import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { ensureStateDir, STATE_GITIGNORE } from '../../src/persistence/state-dir.js';
import { PlanHost } from '../../src/host/plan-host.js';
import { writePaused } from '../../src/agenda/pause.js';
import { idlePorts } from '../support/idle-ports.js';

const dirs: string[] = [];
const project = () => {
  const dir = mkdtempSync(join(tmpdir(), 'orca-state-dir-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('state folders', () => {
  it('should create a missing folder with a .gitignore that ignores everything in it', () => {
    const dir = join(project(), '.opencode', 'plans');
    ensureStateDir(dir);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe(STATE_GITIGNORE);
    expect(STATE_GITIGNORE.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['*']);
  });

  it('should leave a folder that exists as it is: a user who deleted the .gitignore keeps it deleted', () => {
    const dir = join(project(), '.opencode', 'plans');
    mkdirSync(dir, { recursive: true });
    ensureStateDir(dir);
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);
  });

  it('should never replace a .gitignore the user wrote', () => {
    const root = project();
    const dir = join(root, '.opencode', 'agenda');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.gitignore'), 'events.jsonl\n');
    ensureStateDir(dir);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('events.jsonl\n');
  });

  it('should give the plans folder its .gitignore with the first plan, and the agenda folder with its first write', async () => {
    const root = project();
    const store = PlanStore.forProject(root);
    const host = new PlanHost({ store, ports: idlePorts });
    const id = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
    await Promise.resolve();
    await host.settled(id);
    await host.dispose();
    expect(existsSync(store.pathOf(id))).toBe(true);
    expect(readFileSync(join(store.dir, '.gitignore'), 'utf8')).toBe(STATE_GITIGNORE);
    writePaused(root, true);
    expect(readFileSync(join(root, '.opencode', 'agenda', '.gitignore'), 'utf8')).toBe(STATE_GITIGNORE);
  });
});
