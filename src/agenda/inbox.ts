import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { writeFileAtomic } from '../persistence/atomic-write.js';
import { ensureStateDir } from '../persistence/state-dir.js';
import { describeIssues } from '../persistence/plan-file.js';
import { agendaRequest, type AgendaFailure, type AgendaReply, type AgendaRequest } from './requests.js';
import { agendaDir } from './store.js';
import { errorMessage } from '../errors.js';

/**
 * Requests for the process that holds the agenda, from one that does not (`orca emit`, `orca
 * agenda cancel`, a second OpenCode server): `.opencode/agenda/inbox/{ulid}.json`, written
 * atomically. The holder polls the inbox, runs each request oldest first, and writes its answer
 * beside it as `{ulid}.reply.json` for the sender to read and remove. Like `orca decide`'s inbox.
 */

export const agendaInboxDir = (projectDir: string) => join(agendaDir(projectDir), 'inbox');

export interface PostedRequest {
  request: AgendaRequest;
  posted_at: string;
}

export type InboxReply = ({ ok: true } & { reply: AgendaReply }) | { ok: false; failure: AgendaFailure };

/** Replies nobody collected (the sender gave up) are removed after this long. */
const STALE_REPLY_MS = 3_600_000;

export function postRequest(projectDir: string, request: AgendaRequest, now = new Date()): string {
  const dir = agendaInboxDir(projectDir);
  ensureStateDir(agendaDir(projectDir));
  mkdirSync(dir, { recursive: true });
  const id = ulid(now.getTime());
  writeFileAtomic(join(dir, `${id}.json`), JSON.stringify({ request, posted_at: now.toISOString() } satisfies PostedRequest));
  return id;
}

/** Remove and return the waiting requests, oldest first; a file that is no request is reported and removed. */
export function takeRequests(projectDir: string, onBad: (file: string, reason: string) => void): Array<{ id: string; request: AgendaRequest }> {
  const dir = agendaInboxDir(projectDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const taken = [];
  for (const name of names.filter((n) => /^[0-9A-Z]{26}\.json$/.test(n)).sort()) {
    const path = join(dir, name);
    try {
      const parsed = agendaRequest.safeParse((JSON.parse(readFileSync(path, 'utf8')) as Partial<PostedRequest>)?.request);
      if (!parsed.success) throw new Error(describeIssues(parsed.error));
      taken.push({ id: name.slice(0, 26), request: parsed.data });
    } catch (error) {
      onBad(path, errorMessage(error));
    }
    rmSync(path, { force: true });
  }
  sweepStaleReplies(dir, names);
  return taken;
}

export function writeReply(projectDir: string, id: string, reply: InboxReply): void {
  writeFileAtomic(join(agendaInboxDir(projectDir), `${id}.reply.json`), JSON.stringify(reply));
}

/** The holder's reply to a request, removed once read; undefined while there is none yet. */
export function takeReply(projectDir: string, id: string): InboxReply | undefined {
  const path = join(agendaInboxDir(projectDir), `${id}.reply.json`);
  if (!existsSync(path)) return undefined;
  const reply = JSON.parse(readFileSync(path, 'utf8')) as InboxReply;
  rmSync(path, { force: true });
  return reply;
}

/** Whether the request is still in the inbox, not yet taken by the holder. */
export const stillQueued = (projectDir: string, id: string) => existsSync(join(agendaInboxDir(projectDir), `${id}.json`));

/** Withdraw a request nobody took (the sender gave up waiting); false when the holder took it meanwhile. */
export function withdrawRequest(projectDir: string, id: string): boolean {
  const path = join(agendaInboxDir(projectDir), `${id}.json`);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

function sweepStaleReplies(dir: string, names: string[]) {
  const now = Date.now();
  for (const name of names.filter((n) => n.endsWith('.reply.json'))) {
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_REPLY_MS) rmSync(path, { force: true });
    } catch {
      // removed by its sender meanwhile
    }
  }
}
