// `orca emit` (the built CLI, its own process) while the agenda's runtime starts at the same moment
// and takes the lease: whichever wins, the event is recorded once and the item it fires runs once.
// The CLI writes under the lease when no server holds it, and hands the event to the server
// through the inbox when one does; the server opens the log only once it holds the lease.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agendaInboxDir } from '../../src/agenda/inbox.js';
import { AgendaRuntime, readAgenda } from '../../src/agenda/runtime.js';
import { eventsPath } from '../../src/agenda/store.js';
import { changeAgenda } from '../../src/cli/agenda-change.js';
import { waitFor } from '../support/wait-for.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'dist', 'cli', 'main.js');

beforeAll(() => {
  const sources = ['cli/emit.ts', 'cli/agenda-change.ts', 'agenda/lease.ts', 'agenda/inbox.ts', 'agenda/runtime.ts', 'agenda/agenda.ts'];
  const stale = sources.filter((s) => {
    const out = join(root, 'dist', s.replace(/\.ts$/, '.js'));
    return !existsSync(out) || statSync(out).mtimeMs < statSync(join(root, 'src', s)).mtimeMs;
  });
  if (stale.length > 0) throw new Error(`Expected dist/ built from the current src (run \`npm run build\`); stale: ${stale.join(', ')}`);
});

const dirs: string[] = [];
const runtimes: AgendaRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The agenda of a server as the plugin runs it: the default lease timing and inbox poll, a 1 s tick. */
function server(directory: string) {
  const runtime = new AgendaRuntime({
    directory,
    pollSeconds: 1,
    ports: { execute: async () => ({ result: 'ran' }), reconcile: async () => ({ outcome: 'failed', error: 'x' }), log: () => {}, toast: () => {} },
  });
  runtimes.push(runtime);
  runtime.start();
  return runtime;
}

/** The CLI process; resolves with its exit code and output. */
function emit(directory: string, message: string) {
  const child = spawn(process.execPath, [bin, 'emit', 'race.go', '--message', message, '--dir', directory], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, exited };
}

const lockDir = (directory: string) => `${eventsPath(directory)}.lock`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the CLI holds the agenda's lease (its lock folder appears), or it has exited. */
async function whileCliHoldsLease(directory: string, exited: Promise<unknown>) {
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !existsSync(lockDir(directory))) await new Promise((resolve) => setImmediate(resolve));
}

describe('orca emit while a server starts', () => {
  it('records the event once and fires its item once, whoever takes the agenda first', async () => {
    const rounds = 12;
    const seen = { here: 0, server: 0 };
    const latencies: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'orca-emit-race-'));
      dirs.push(dir);
      // An item that waits for the event (created with no server running, as a user would from a shell).
      const created = await changeAgenda(dir, { op: 'create', trigger: { type: 'event', eventKind: 'race.go' }, action: { type: 'emit', kind: 'race.reacted', message: '' }, reason: `round ${round}`, createdBy: 'cli' });
      if (created.where !== 'here' || created.reply.op !== 'create') throw new Error(`expected the item written here, got ${JSON.stringify(created)}`);
      const agendaId = created.reply.item.agendaId;

      const cli = emit(dir, `round ${round}`);
      // A third of the rounds: the server starts exactly while the CLI holds the lease; the others
      // start it at a moment spread over the CLI's start-up (it takes the lease after ~100-300 ms).
      if (round % 3 === 0) await whileCliHoldsLease(dir, cli.exited);
      else await sleep((round * 37) % 300);
      const runtime = server(dir);
      const result = await cli.exited;
      const exitedAt = Date.now();
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.stdout).toMatch(/^emitted race\.go \(evt_\w{26}\): (delivered to the running server|recorded in \.opencode\/agenda\/events\.jsonl; .*)\n$/);
      seen[result.stdout.includes('delivered') ? 'server' : 'here']++;

      await waitFor(() => runtime.holding && readAgenda(dir).get(agendaId).status === 'executed', { timeoutMs: 15_000, description: `round ${round}: the item fired by the event` });
      latencies.push(Date.now() - exitedAt);
      const lines = readFileSync(eventsPath(dir), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; kind?: string; agendaId?: string });
      expect(lines.filter((l) => l.type === 'bus.emitted' && l.kind === 'race.go')).toHaveLength(1);
      expect(lines.filter((l) => l.type === 'agenda.started' && l.agendaId === agendaId)).toHaveLength(1);
      expect(lines.filter((l) => l.type === 'bus.emitted' && l.kind === 'race.reacted')).toHaveLength(1);
      // Nothing left behind in the inbox: no request the server will apply again later, no reply nobody read.
      expect(existsSync(agendaInboxDir(dir)) ? readdirSync(agendaInboxDir(dir)) : []).toEqual([]);
      await runtime.stop();
    }
    console.log(`orca emit vs server start: ${rounds} rounds, written by the CLI ${seen.here}, delivered to the server ${seen.server}; from the CLI's exit to the item fired (ms): ${latencies.join(', ')}`);
    expect(seen.here + seen.server).toBe(rounds);
  }, 180_000);
});
