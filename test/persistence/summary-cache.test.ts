import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import type { PlanPorts } from '../../src/machines/ports.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { summarize } from '../../src/persistence/plan-index.js';
import { loadSummaries, SUMMARY_CACHE_FORMAT, SUMMARY_CACHE_NAME } from '../../src/persistence/summary-cache.js';
import { eachTempStore } from '../support/temp-store.js';

/** Ports that never settle, whatever ports the machines grow. */
const ports = new Proxy({}, { get: () => () => new Promise<never>(() => {}) }) as PlanPorts;

let store: PlanStore;
let cachePath: string;
eachTempStore('orca-summary-cache-', (s) => {
  store = s;
  cachePath = join(store.dir, SUMMARY_CACHE_NAME);
});

async function validPlan(message = 'hello'): Promise<string> {
  const host = new PlanHost({ store, ports });
  const id = host.create({ message }).getSnapshot().context.plan_id;
  await Promise.resolve();
  await host.dispose();
  return id;
}

/** A cache written well after the plan files, so no entry is as new as the cache itself. */
function buildCache() {
  const loaded = loadSummaries(store);
  settleCache();
  return loaded;
}

/** File mtimes tick with a coarse clock: move the cache past them, as time would. */
function settleCache() {
  const later = new Date(Date.now() + 5_000);
  utimesSync(cachePath, later, later);
}

const ids = (summaries: Array<{ plan_id: string }>) => summaries.map((s) => s.plan_id).sort();

describe('plan summary cache', () => {
  it('should read every plan file once, then only the cache and a stat of each file', async () => {
    const a = await validPlan();
    const b = await validPlan();
    expect(existsSync(cachePath)).toBe(false);
    const first = buildCache();
    expect(first.read).toBe(2);
    expect(existsSync(cachePath)).toBe(true);
    const second = loadSummaries(store);
    expect(second.read).toBe(0);
    expect(ids(second.summaries)).toEqual([a, b].sort());
    expect(second.summaries).toEqual(expect.arrayContaining([summarize(store.load(a)), summarize(store.load(b))]));
  });

  it('should not take the cache for a plan file (quarantine stays empty)', async () => {
    await validPlan();
    buildCache();
    const host = new PlanHost({ store, ports });
    expect(host.loadIndex()).toEqual([]);
    expect(existsSync(store.quarantineDir)).toBe(false);
    expect(readdirSync(store.dir)).toContain(SUMMARY_CACHE_NAME);
  });

  it('should read again a plan saved since the cache was written', async () => {
    const id = await validPlan('first goal');
    buildCache();
    const file = store.load(id);
    store.save({ ...file, goal: 'second goal', status: 'rejected', waiting_for: null });
    const loaded = loadSummaries(store);
    expect(loaded.read).toBe(1);
    expect(loaded.summaries[0]).toMatchObject({ plan_id: id, goal: 'second goal', status: 'rejected' });
    settleCache();
    expect(loadSummaries(store).read).toBe(0);
  });

  it('should read again a file rewritten in place with the same size, its mtime put back to the millisecond', async () => {
    const id = await validPlan('goal A');
    buildCache();
    const path = store.pathOf(id);
    const before = statSync(path);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('goal A', 'goal B'));
    utimesSync(path, before.atime, before.mtime);
    expect(statSync(path).size).toBe(before.size);
    const loaded = loadSummaries(store);
    expect(loaded.read).toBe(1);
    expect(loaded.summaries[0]!.goal).toBe('goal B');
  });

  it('should read again a file whose mtime is not older than the cache (a coarse clock could hide a change)', async () => {
    await validPlan();
    await validPlan();
    loadSummaries(store);
    const old = new Date(Date.now() - 60_000);
    utimesSync(cachePath, old, old);
    expect(loadSummaries(store).read).toBe(2);
  });

  it('should quarantine a plan file corrupted after it was cached, as without a cache', async () => {
    const bad = await validPlan();
    const good = await validPlan();
    buildCache();
    writeFileSync(store.pathOf(bad), '{"schema_version": 1, nope');
    const host = new PlanHost({ store, ports });
    const problems = host.loadIndex();
    expect(problems.map((p) => p.planId)).toEqual([bad]);
    expect(problems[0]!.message).toMatch(/not valid JSON/);
    expect(Object.keys(host.index.getSnapshot().context.plans)).toEqual([good]);
    expect(readdirSync(store.quarantineDir).some((f) => f.startsWith(`${bad}.json.`))).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).plans)).toEqual([good]);
  });

  it('should drop a plan whose file was removed', async () => {
    const gone = await validPlan();
    const kept = await validPlan();
    buildCache();
    rmSync(store.pathOf(gone));
    const loaded = loadSummaries(store);
    expect(ids(loaded.summaries)).toEqual([kept]);
    expect(Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).plans)).toEqual([kept]);
  });

  it.each([
    ['not JSON', () => 'garbage{'],
    ['truncated', (text: string) => text.slice(0, text.length / 2)],
    ['from another format', (text: string) => text.replace(`"format":${SUMMARY_CACHE_FORMAT}`, '"format":999')],
    ['from another machine version', (text: string) => text.replace(/"machine_version":\d+/, '"machine_version":0')],
  ])('should rebuild a cache that is %s from the plan files, saying so', async (_name, damage) => {
    const a = await validPlan();
    const b = await validPlan();
    buildCache();
    writeFileSync(cachePath, damage(readFileSync(cachePath, 'utf8')));
    const messages: string[] = [];
    const loaded = loadSummaries(store, (_level, message) => messages.push(message));
    expect(loaded.read).toBe(2);
    expect(ids(loaded.summaries)).toEqual([a, b].sort());
    expect(messages).toEqual([expect.stringMatching(/summary cache .* rebuilding it/)]);
    settleCache();
    expect(loadSummaries(store).read).toBe(0);
  });

  it('should read again only the plan whose cached entry is malformed', async () => {
    const a = await validPlan();
    const b = await validPlan();
    buildCache();
    writeFileSync(cachePath, readFileSync(cachePath, 'utf8').replace(/"status":"\w+"/, '"status":"sleeping"'));
    settleCache();
    const loaded = loadSummaries(store);
    expect(loaded.read).toBe(1);
    expect(ids(loaded.summaries)).toEqual([a, b].sort());
    expect(loaded.summaries.every((s) => s.status === 'drafting')).toBe(true);
  });

  it('should write no cache where there is no plans folder', () => {
    expect(loadSummaries(store)).toEqual({ summaries: [], problems: [], read: 0 });
    expect(existsSync(store.dir)).toBe(false);
  });

  it('should keep working, and say so, when the cache cannot be written', async () => {
    await validPlan();
    mkdirSync(cachePath); // a folder where the cache file should be: the rename over it fails
    const messages: string[] = [];
    const loaded = loadSummaries(store, (_level, message) => messages.push(message));
    expect(loaded.summaries).toHaveLength(1);
    expect(messages.some((m) => /cannot be written/.test(m))).toBe(true);
  });
});
