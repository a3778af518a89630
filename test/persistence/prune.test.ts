import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { postDecision } from '../../src/persistence/inbox.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { pruneInBackground, prunePlans, pruneLogLine, readPlanFolder, removePlan } from '../../src/persistence/prune.js';
import { forgetSummaries, loadSummaries, SUMMARY_CACHE_NAME } from '../../src/persistence/summary-cache.js';
import { idlePorts } from '../support/idle-ports.js';
import { eachTempStore } from '../support/temp-store.js';
import { waitFor } from '../support/wait-for.js';

let store: PlanStore;
eachTempStore('orca-prune-', (s) => (store = s));

const DAY = 86_400_000;
const later = (days: number) => new Date(Date.now() + days * DAY);

/** A plan in drafting (its planner's turn never settles), released: a draft never approved. */
async function draft(message = 'hello'): Promise<string> {
  const host = new PlanHost({ store, ports: idlePorts });
  const id = host.create({ message }).getSnapshot().context.plan_id;
  await host.dispose();
  return id;
}

describe('prunePlans', () => {
  it('should read every plan with its size, and remove nothing unless applied', async () => {
    const id = await draft();
    const { plans } = await readPlanFolder(store);
    expect(plans).toEqual([
      expect.objectContaining({ plan_id: id, status: 'drafting', decisions: [], leaseHeld: false, queuedDecisions: 0, bytes: expect.any(Number) }),
    ]);
    const plan = plans[0]!;
    expect(plan.bytes).toBe(readFileSync(store.pathOf(id)).length + readFileSync(store.journalPathOf(id)).length);
    const dry = await prunePlans(store, { draftsAfterDays: 30, finishedAfterDays: null }, { now: later(31), apply: false });
    expect(dry.verdicts).toMatchObject([{ remove: true, kind: 'draft' }]);
    expect(dry.removed).toEqual([]);
    expect(existsSync(store.pathOf(id))).toBe(true);
  });

  it('should keep a plan a host holds, and say why', async () => {
    const id = await draft();
    const host = new PlanHost({ store, ports: idlePorts });
    host.open(id);
    const report = await prunePlans(store, { draftsAfterDays: 0, finishedAfterDays: null }, { now: later(1), apply: true });
    expect(report.verdicts).toMatchObject([{ remove: false, keep: 'leased', plan: { leaseHeld: true } }]);
    expect(existsSync(store.pathOf(id))).toBe(true);
    await host.dispose();
  });

  it('should remove a plan only under its lease, after reading it again under it', async () => {
    const id = await draft();
    const rules = { draftsAfterDays: 0, finishedAfterDays: null };
    const host = new PlanHost({ store, ports: idlePorts });
    host.open(id); // a process took it after the folder was read
    expect(await removePlan(store, id, rules, later(1))).toBe('a process took its lease meanwhile (it runs there)');
    await host.dispose();
    // It changed after the folder was read: approved elsewhere, say.
    const file = JSON.parse(readFileSync(store.pathOf(id), 'utf8'));
    file.decisions = [{ gate: 'approval', option: 'Approve', channel: 'cli', at: file.updated_at }];
    writeFileSync(store.pathOf(id), JSON.stringify(file));
    expect(await removePlan(store, id, rules, later(1))).toBe('it changed meanwhile');
    expect(existsSync(store.pathOf(id))).toBe(true);
    expect(existsSync(`${store.pathOf(id)}.lock`)).toBe(false); // the lease taken for the removal is released
    rmSync(store.pathOf(id));
    expect(await removePlan(store, id, rules, later(1))).toBe('it was removed meanwhile');
  });

  it('should keep a plan with a decision waiting in its inbox', async () => {
    const id = await draft();
    postDecision(store.dir, id, { type: 'plan.message', message: 'go on' });
    const report = await prunePlans(store, { draftsAfterDays: 0, finishedAfterDays: null }, { now: later(1), apply: true });
    expect(report.verdicts).toMatchObject([{ remove: false, keep: 'queued', plan: { queuedDecisions: 1 } }]);
    expect(existsSync(store.pathOf(id))).toBe(true);
  });

  it('should stop between removals when asked', async () => {
    await draft('a');
    await draft('b');
    const stopping = new AbortController();
    stopping.abort();
    const report = await prunePlans(store, { draftsAfterDays: 0, finishedAfterDays: null }, { now: later(1), apply: true, signal: stopping.signal });
    expect(report.removed).toEqual([]);
    expect((await readPlanFolder(store)).plans).toHaveLength(2);
  });
});

describe('forgetSummaries', () => {
  it('should drop the removed plans from the cache and keep the entries the next start still trusts', async () => {
    const gone = await draft('gone');
    const stays = await draft('stays');
    loadSummaries(store);
    const cachePath = join(store.dir, SUMMARY_CACHE_NAME);
    const settled = new Date(Date.now() + 5_000); // the cache written well after the plan files
    utimesSync(cachePath, settled, settled);
    rmSync(store.pathOf(gone));
    forgetSummaries(store, [gone]);
    expect(Object.keys(JSON.parse(readFileSync(cachePath, 'utf8')).plans)).toEqual([stays]);
    // The next start reads no plan file again: the entry it kept still matches.
    utimesSync(cachePath, settled, settled);
    expect(loadSummaries(store)).toMatchObject({ read: 0, summaries: [{ plan_id: stays }] });
  });

  it('should leave no cache alone when there is none, and drop an entry as new as the cache', async () => {
    forgetSummaries(store, ['plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9']);
    expect(existsSync(join(store.dir, SUMMARY_CACHE_NAME))).toBe(false);
    const a = await draft('a');
    const b = await draft('b');
    loadSummaries(store); // written in the same tick as the files, perhaps: such entries are not vouched for
    const cachePath = join(store.dir, SUMMARY_CACHE_NAME);
    const past = new Date(Date.now() - 60_000);
    utimesSync(cachePath, past, past); // the files are newer than the cache
    rmSync(store.pathOf(a));
    forgetSummaries(store, [a]);
    expect(JSON.parse(readFileSync(cachePath, 'utf8')).plans).toEqual({});
    expect(loadSummaries(store).summaries.map((s) => s.plan_id)).toEqual([b]);
  });
});

describe('pruneInBackground (the prune option at start)', () => {
  it('should prune after start-up, not during it, log what it removed and drop it from the index', async () => {
    const old = await draft('old');
    const file = JSON.parse(readFileSync(store.pathOf(old), 'utf8'));
    file.updated_at = new Date(Date.now() - 45 * DAY).toISOString();
    writeFileSync(store.pathOf(old), JSON.stringify(file));
    const recent = await draft('recent');
    const logs: string[] = [];
    const removed: string[] = [];
    const pruning = pruneInBackground(store, { draftsAfterDays: 30, finishedAfterDays: null }, { log: (level, message) => logs.push(`${level}: ${message}`), onRemoved: (id) => removed.push(id) });
    expect(existsSync(store.pathOf(old))).toBe(true); // nothing happens on the start-up path
    await waitFor(() => logs.length > 0, { description: 'the prune log line' });
    await pruning.stop();
    expect(removed).toEqual([old]);
    expect(existsSync(store.pathOf(old))).toBe(false);
    expect(existsSync(store.journalPathOf(old))).toBe(false);
    expect(existsSync(store.pathOf(recent))).toBe(true);
    expect(logs).toEqual([expect.stringMatching(new RegExp(`^info: prune: removed 1 plan\\(s\\), \\d+(\\.\\d)? kB \\(drafts never approved unchanged for more than 30 days\\): ${old} \\(drafting, 45d\\)$`))]);
  });

  it('should do nothing when stopped before it ran', async () => {
    await draft();
    const logs: string[] = [];
    const pruning = pruneInBackground(store, { draftsAfterDays: 0, finishedAfterDays: null }, { log: (_l, m) => logs.push(m), onRemoved: () => {}, now: () => later(1) });
    await pruning.stop();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logs).toEqual([]);
    expect((await readPlanFolder(store)).plans).toHaveLength(1);
  });

  it('should log a failure rather than throw it (nobody awaits the start-up prune)', async () => {
    await draft();
    const logs: string[] = [];
    const pruning = pruneInBackground(store, { draftsAfterDays: 0, finishedAfterDays: null }, {
      log: (level, message) => logs.push(`${level}: ${message}`),
      onRemoved: () => {
        throw new Error('index gone');
      },
      now: () => later(1),
    });
    await waitFor(() => logs.length > 1, { description: 'the prune log lines' });
    await pruning.stop();
    expect(logs).toEqual([expect.stringMatching(/^info: prune: removed 1 plan\(s\)/), 'warn: prune: stopped: index gone']);
  });

  it('should say when it removed nothing', () => {
    expect(pruneLogLine({ removed: [] }, { draftsAfterDays: null, finishedAfterDays: 90 })).toBe('prune: removed no plans (finished plans unchanged for more than 90 days)');
  });
});
