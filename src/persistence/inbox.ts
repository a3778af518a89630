import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { writeFileAtomic } from './atomic-write.js';
import { errorMessage } from '../errors.js';

/**
 * Decisions made outside the process that runs a plan (the CLI, another terminal) wait here,
 * `.opencode/plans/{plan_id}.inbox/{ulid}.json`, until the plan's holder sends them to its actor:
 * a running server polls its live plans' inboxes, and a plan restored later reads its inbox first.
 * The file is written atomically, so a reader never sees half a decision.
 */
export interface InboxDecision {
  /** The plan event, exactly as the HITL channels send it (channel "cli"). */
  event: { type: string; [key: string]: unknown };
  posted_at: string;
}

export const inboxDir = (plansDir: string, planId: string) => join(plansDir, `${planId}.inbox`);

export function postDecision(plansDir: string, planId: string, event: InboxDecision['event'], now = new Date()): string {
  const dir = inboxDir(plansDir, planId);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${ulid(now.getTime())}.json`);
  writeFileAtomic(path, JSON.stringify({ event, posted_at: now.toISOString() } satisfies InboxDecision));
  return path;
}

/** Remove and return the waiting decisions, oldest first. Unreadable files are skipped and reported. */
export function takeDecisions(plansDir: string, planId: string, onBad: (file: string, reason: string) => void = () => {}): InboxDecision[] {
  const dir = inboxDir(plansDir, planId);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const taken: InboxDecision[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const decision = JSON.parse(readFileSync(path, 'utf8')) as InboxDecision;
      if (typeof decision?.event?.type !== 'string') throw new Error('no event type');
      taken.push(decision);
    } catch (error) {
      onBad(path, errorMessage(error));
    }
    rmSync(path, { force: true });
  }
  return taken;
}
