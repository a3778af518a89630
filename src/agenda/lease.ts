import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ensureStateDir } from '../persistence/state-dir.js';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from '../persistence/atomic-write.js';
import { LEASE_STALE_MS, type Release } from '../persistence/plan-lease.js';
import { agendaDir, eventsPath } from './store.js';
import { OrcaError } from '../errors.js';

/**
 * One scheduler per project: the store reads the log once and keeps it in memory, so a second
 * process appending to it would go unseen. A process runs the agenda only while it holds this
 * lock (proper-lockfile on events.jsonl, like a plan's lease); the holder is named in holder.json
 * so the others can say who runs it. A killed holder's lock goes stale and another takes over.
 */

export class AgendaLeaseHeldError extends OrcaError {
  override name = 'AgendaLeaseHeldError';
  constructor(readonly holder: AgendaHolder | null) {
    super(
      `The agenda of this project is run by another process${holder ? ` (pid ${holder.pid} on ${holder.host}, since ${holder.since})` : ''}; ` +
        'this one sends its agenda requests there and runs no scheduler until that process stops.',
    );
  }
}

export interface AgendaHolder {
  pid: number;
  host: string;
  since: string;
}

const holderPath = (projectDir: string) => join(agendaDir(projectDir), 'holder.json');

/** Take the agenda's lease; throws AgendaLeaseHeldError when a live process holds it. */
export function acquireAgendaLease(projectDir: string, onLost: (error: Error) => void, staleMs = LEASE_STALE_MS): Release {
  ensureStateDir(agendaDir(projectDir));
  let release: Release;
  try {
    release = lockfile.lockSync(eventsPath(projectDir), { realpath: false, stale: staleMs, update: staleMs / 2, onCompromised: onLost });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new AgendaLeaseHeldError(agendaHolder(projectDir));
    throw error;
  }
  const holder: AgendaHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileAtomic(holderPath(projectDir), `${JSON.stringify(holder)}\n`);
  return release;
}

/** Whether a live process holds the agenda's lease (what the CLI asks before writing itself). */
export function agendaLeaseHeld(projectDir: string, staleMs = LEASE_STALE_MS): boolean {
  try {
    return lockfile.checkSync(eventsPath(projectDir), { realpath: false, stale: staleMs });
  } catch {
    return false;
  }
}

/** Who took the lease last (it may have died since: check agendaLeaseHeld). */
export function agendaHolder(projectDir: string): AgendaHolder | null {
  try {
    const value = JSON.parse(readFileSync(holderPath(projectDir), 'utf8')) as Partial<AgendaHolder>;
    return typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.since === 'string'
      ? { pid: value.pid, host: value.host, since: value.since }
      : null;
  } catch {
    return null;
  }
}
