import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agendaInboxDir } from '../../src/agenda/inbox.js';
import { acquireAgendaLease, agendaHolder, agendaLeaseHeld } from '../../src/agenda/lease.js';
import { AgendaRuntime, readAgenda } from '../../src/agenda/runtime.js';
import { changeAgenda } from '../../src/cli/agenda-change.js';
import { waitFor } from '../support/wait-for.js';

const dirs: string[] = [];
const runtimes: AgendaRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runtime(dir: string, logs: string[] = []) {
  const r = new AgendaRuntime({
    directory: dir,
    pollSeconds: 1,
    leaseStaleMs: 1_000,
    inboxMs: 50,
    replyTimeoutMs: 3_000,
    ports: { execute: async () => ({ result: 'ran' }), reconcile: async () => ({ outcome: 'failed', error: 'x' }), log: (level, m) => void logs.push(`${level} ${m}`), toast: () => {} },
  });
  runtimes.push(r);
  r.start();
  return r;
}
const project = () => {
  const d = mkdtempSync(join(tmpdir(), 'orca-agenda-runtime-'));
  dirs.push(d);
  return d;
};
const soon = () => new Date(Date.now() + 3_600_000).toISOString();
const create = (reason: string) => ({ op: 'create' as const, trigger: { type: 'time', executeAt: soon() }, action: { type: 'emit', kind: 'x', message: '' }, reason, createdBy: 'cli' });

describe('one agenda per project', () => {
  it('runs the scheduler in the process holding the lease; another stands by, says so, and reaches it through the inbox', async () => {
    const dir = project();
    const holder = runtime(dir);
    expect(holder.holding).toBe(true);
    expect(agendaHolder(dir)).toMatchObject({ pid: process.pid });
    const logs: string[] = [];
    const other = runtime(dir, logs);
    expect(other.holding).toBe(false);
    expect(logs).toEqual([expect.stringMatching(/^warn agenda: The agenda of this project is run by another process \(pid \d+ on .*\); this one sends its agenda requests there/)]);

    const outcome = await other.request(create('from the other process'));
    expect(outcome).toMatchObject({ status: 'done', reply: { op: 'create', item: { status: 'pending', reason: 'from the other process' } } });
    expect(holder.list().map((i) => i.reason)).toEqual(['from the other process']);
    await expect(other.request({ op: 'cancel', agendaId: 'agn_nope' })).rejects.toThrow(/Invalid agendaId "agn_nope"/);
    expect(readdirSync(agendaInboxDir(dir))).toEqual([]);

    await holder.stop();
    await waitFor(() => other.holding, { timeoutMs: 5_000, description: 'the other process to take the agenda over' });
    expect(other.list().map((i) => i.reason)).toEqual(['from the other process']);
    expect(logs.at(-1)).toMatch(/runs the agenda .*taken over from the process that held it/);
  });

  it('takes the agenda within a tenth of a second when the CLI held its lease at start, not after the 2.5 s standby retry', async () => {
    const dir = project();
    const cli = acquireAgendaLease(dir, () => {}); // `orca emit` appending at the moment the server starts
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const server = runtime(dir);
      expect(server.holding).toBe(false);
      cli();
      vi.advanceTimersByTime(49);
      expect(server.holding).toBe(false);
      vi.advanceTimersByTime(1);
      expect(server.holding).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps retrying a lease a live process holds, backing off to half its staleness', async () => {
    const dir = project();
    const other = acquireAgendaLease(dir, () => {}, 60_000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const server = runtime(dir); // leaseStaleMs 1 000: retries at 50, 150, 350, 750, 1 250, 1 750 ms…
      vi.advanceTimersByTime(1_700);
      expect(server.holding).toBe(false);
      other();
      vi.advanceTimersByTime(49);
      expect(server.holding).toBe(false);
      vi.advanceTimersByTime(1);
      expect(server.holding).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets the CLI write when no server runs the agenda, and hands the change to a running one', async () => {
    const dir = project();
    expect(agendaLeaseHeld(dir)).toBe(false);
    expect(await changeAgenda(dir, create('written by the CLI'))).toMatchObject({ where: 'here', reply: { item: { reason: 'written by the CLI' } } });
    expect(agendaLeaseHeld(dir)).toBe(false);
    expect(readAgenda(dir).list().map((i) => i.reason)).toEqual(['written by the CLI']);

    const server = runtime(dir);
    expect(server.list().map((i) => i.reason)).toEqual(['written by the CLI']);
    expect(await changeAgenda(dir, { op: 'emit', kind: 'tests.failed', message: 'red', source: 'cli' })).toMatchObject({ where: 'server', reply: { event: { event: 'tests.failed' } } });
    expect(server.events().map((e) => [e.event, e.source])).toEqual([['tests.failed', 'cli']]);
    expect(existsSync(join(agendaInboxDir(dir)))).toBe(true);
    expect(readdirSync(agendaInboxDir(dir))).toEqual([]);
  });
});
