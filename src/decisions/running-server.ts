import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inboxDir } from '../persistence/inbox.js';
import type { Gate } from '../machines/gates.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { parsePlanFileText, type PlanStore } from '../persistence/plan-store.js';

/** A decision in a plan's inbox that no process has taken yet: its words ("type posted at"), and its event when it reads. */
export interface QueuedDecision {
  words: string;
  event?: { type: string; stepId?: unknown };
}

/** The decisions in a plan's inbox that no process has taken yet, oldest first. */
export function queuedEvents(plansDir: string, planId: string): QueuedDecision[] {
  const dir = inboxDir(plansDir, planId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((name) => {
      try {
        const { event, posted_at } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { event: { type: string; stepId?: unknown }; posted_at: string };
        return { words: `${event.type} posted ${posted_at}`, event };
      } catch {
        return { words: name };
      }
    });
}

/** The decisions in a plan's inbox that no process has taken yet, as "type posted at". */
export const queuedDecisions = (plansDir: string, planId: string): string[] => queuedEvents(plansDir, planId).map((q) => q.words);

/**
 * Whether a queued decision answers this gate: the same kind of gate (its event's prefix, e.g.
 * `resume` of `resume.rerun`) and, at a step's gate, the same step. A decision for another step's
 * gate answers another gate. One that does not read answers none it can name.
 */
export function answersGate(queued: QueuedDecision, gate: Pick<Gate, 'kind'> & { stepId?: string }): boolean {
  if (!queued.event || typeof queued.event.type !== 'string') return false;
  return queued.event.type.split('.')[0] === gate.kind && queued.event.stepId === gate.stepId;
}

export type ServerOutcome = 'applied' | 'dropped' | 'pending' | 'not-running';

/**
 * How long a decision taken from the inbox may take to show in the plan file. The holder applies
 * it as it takes it, but writes the plan file behind the dispatch path (fsync included), which a
 * loaded machine can stretch well past one poll: only a decision still unrecorded after this long
 * was dropped.
 */
export const RECORD_GRACE_MS = 2_000;

/**
 * After posting a decision: if a process holds the plan, wait (up to `waitMs`) until it takes the
 * decision from the inbox and its plan file records it. The holder polls the inbox every second.
 */
export async function waitForRunningServer(
  store: PlanStore,
  plan: PlanFile,
  event: { type: string; at?: unknown },
  posted: string,
  waitMs: number,
): Promise<ServerOutcome> {
  const path = store.pathOf(plan.plan_id);
  if (!leaseHeld(path)) return 'not-running';
  const deadline = Date.now() + waitMs;
  let takenAt: number | undefined;
  for (;;) {
    if (recorded(path, plan.plan_id, event.at)) return 'applied';
    if (takenAt === undefined && !existsSync(posted)) takenAt = Date.now();
    if (takenAt !== undefined) {
      if (Date.now() - takenAt >= RECORD_GRACE_MS) return 'dropped';
    } else if (Date.now() >= deadline) return 'pending';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function recorded(path: string, planId: string, at: unknown): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  // Read-only: a file that does not validate now is the plugin's to quarantine, not ours.
  const result = parsePlanFileText(text, planId);
  return result.ok && result.file.decisions.some((d) => d.channel === 'cli' && d.at === at);
}
