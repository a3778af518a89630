import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import { inboxDir } from './inbox.js';
import { isPlanId } from './plan-id.js';
import { acquireLease, leaseHeld, PlanLeaseError } from './plan-lease.js';
import { parsePlanFileText, type PlanStore } from './plan-store.js';
import { ageText, bytesText, selectForPruning, type RetentionRules, type StoredPlan, type Verdict } from './retention.js';
import { forgetSummaries } from './summary-cache.js';

/**
 * Removing old plans from `.opencode/plans` (`orca prune`, and the `prune` option once at start).
 * Which ones is retention.ts; this reads the folder and removes what it chose. Everything the store
 * keeps for a plan goes: its file, its journal, its inbox, the temp files of its writes, its lock
 * and its summary-cache entry. A plan is removed only under its own lease, taken for the removal,
 * and read again under it: one a process runs, or that changed since it was read, stays. Nothing is
 * moved or quarantined here: a file that does not load is reported and left where it is.
 */

export interface PlanFolder {
  plans: StoredPlan[];
  /** Plan files that do not load, left where they are (the next listing moves them to the quarantine). */
  unreadable: { planId: string; reason: string; bytes: number }[];
  /** What is in `.quarantine/`: left alone, never pruned. */
  quarantined: { name: string; bytes: number }[];
}

export interface PruneReport extends PlanFolder {
  verdicts: Verdict[];
  /** Removed (only when applied). */
  removed: Verdict[];
  /** Chosen but not removed: a process took it meanwhile, it changed, or the disk refused. */
  failed: { verdict: Verdict; reason: string }[];
}

const tempFile = (planId: string) => new RegExp(`^${planId}\\.json\\.\\d+(?:\\.\\d+)?\\.tmp$`);

/** The plans of the folder as the selection reads them, with their size on disk. */
export async function readPlanFolder(store: PlanStore): Promise<PlanFolder> {
  const names = await namesIn(store.dir);
  const folder: PlanFolder = { plans: [], unreadable: [], quarantined: await quarantined(store) };
  for (const name of names) {
    const planId = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!isPlanId(planId)) continue;
    const read = await readPlan(store, planId, names);
    if (read === null) continue; // removed since listed
    if ('reason' in read) folder.unreadable.push(read);
    else folder.plans.push(read);
  }
  return folder;
}

/**
 * Select with `rules` at `now` and, when `apply`, remove what was selected. `signal` stops between
 * two removals (the plugin is stopping). Never throws for one plan: its failure is in the report.
 */
export async function prunePlans(
  store: PlanStore,
  rules: RetentionRules,
  { now, apply, signal }: { now: Date; apply: boolean; signal?: AbortSignal },
): Promise<PruneReport> {
  const folder = await readPlanFolder(store);
  const verdicts = selectForPruning(folder.plans, rules, now);
  const report: PruneReport = { ...folder, verdicts, removed: [], failed: [] };
  if (!apply) return report;
  for (const verdict of verdicts) {
    if (!verdict.remove) continue;
    if (signal?.aborted) break;
    const failure = await removePlan(store, verdict.plan.plan_id, rules, now);
    if (failure === null) report.removed.push(verdict);
    else report.failed.push({ verdict, reason: failure });
  }
  forgetSummaries(store, report.removed.map((v) => v.plan.plan_id));
  return report;
}

/**
 * The `prune` option: prune once, soon after start, off the start-up path; what it removed (or
 * could not) is logged, and `onRemoved` drops each removed plan from the live index. `stop` waits
 * for a run in progress after asking it to end.
 */
export function pruneInBackground(
  store: PlanStore,
  rules: RetentionRules,
  { log, onRemoved, now = () => new Date() }: { log: (level: 'info' | 'warn', message: string) => void; onRemoved: (planId: string) => void; now?: () => Date },
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const prune = async () => {
    try {
      const report = await prunePlans(store, rules, { now: now(), apply: true, signal: stopping.signal });
      log('info', pruneLogLine(report, rules));
      for (const f of report.failed) log('warn', `prune: ${f.verdict.plan.plan_id} was not removed: ${f.reason}`);
      for (const v of report.removed) onRemoved(v.plan.plan_id);
    } catch (error) {
      // Off the start-up path nobody awaits it: a folder that cannot be read is logged, and Orca runs on.
      log('warn', `prune: stopped: ${errorMessage(error)}`);
    }
  };
  const timer = setTimeout(() => {
    running = prune();
  }, 0);
  timer.unref?.();
  return {
    async stop() {
      clearTimeout(timer);
      stopping.abort();
      await running;
    },
  };
}

/** One log line: what the start-up prune removed, or that it removed nothing. */
export function pruneLogLine(report: Pick<PruneReport, 'removed'>, rules: RetentionRules): string {
  const what = [
    rules.draftsAfterDays === null ? null : `drafts never approved unchanged for more than ${rules.draftsAfterDays} days`,
    rules.finishedAfterDays === null ? null : `finished plans unchanged for more than ${rules.finishedAfterDays} days`,
  ]
    .filter(Boolean)
    .join(', ');
  if (report.removed.length === 0) return `prune: removed no plans (${what})`;
  const bytes = report.removed.reduce((sum, v) => sum + v.plan.bytes, 0);
  const list = report.removed.map((v) => `${v.plan.plan_id} (${v.plan.status}, ${ageText(v.ageMs)})`).join(', ');
  return `prune: removed ${report.removed.length} plan(s), ${bytesText(bytes)} (${what}): ${list}`;
}

/**
 * Remove one plan under its lease, after reading it again under it: null when it is gone, else why
 * not. The plan file goes last, so a removal cut short leaves a plan the next prune finds again.
 */
export async function removePlan(store: PlanStore, planId: string, rules: RetentionRules, now: Date): Promise<string | null> {
  let release: () => void;
  try {
    release = acquireLease(store.pathOf(planId), planId, () => {});
  } catch (error) {
    return error instanceof PlanLeaseError ? 'a process took its lease meanwhile (it runs there)' : errorMessage(error);
  }
  try {
    const names = await namesIn(store.dir);
    const again = await readPlan(store, planId, names);
    if (again === null) return 'it was removed meanwhile';
    if ('reason' in again) return `it no longer loads: ${again.reason}`;
    const [verdict] = selectForPruning([{ ...again, leaseHeld: false }], rules, now);
    if (!verdict?.remove) return 'it changed meanwhile';
    await rm(inboxDir(store.dir, planId), { recursive: true, force: true });
    await rm(store.journalPathOf(planId), { force: true });
    // The patches of its steps' changes (issue 25: beside the plan file).
    await rm(join(store.dir, `${planId}.patches`), { recursive: true, force: true });
    for (const name of names.filter((n) => tempFile(planId).test(n))) await rm(join(store.dir, name), { force: true });
    await rm(store.pathOf(planId), { force: true });
    return null;
  } catch (error) {
    return errorMessage(error);
  } finally {
    try {
      release(); // removes the lock beside the file
    } catch {
      // already released: the lock was taken over or removed; the plan is gone either way
    }
  }
}

/** One plan as the selection reads it, or why its file does not load; null when it is gone. */
async function readPlan(
  store: PlanStore,
  planId: string,
  names: readonly string[],
): Promise<StoredPlan | { planId: string; reason: string; bytes: number } | null> {
  let text: string;
  try {
    text = await readFile(store.pathOf(planId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const inbox = await namesIn(inboxDir(store.dir, planId));
  const bytes =
    Buffer.byteLength(text) +
    (await sizeOf(store.journalPathOf(planId))) +
    (await sizesOf(inboxDir(store.dir, planId), inbox)) +
    (await sizesOf(store.dir, names.filter((n) => tempFile(planId).test(n))));
  const parsed = parsePlanFileText(text, planId);
  if (!parsed.ok) return { planId, reason: parsed.reason, bytes };
  const { status, decisions, updated_at } = parsed.file;
  return {
    plan_id: planId,
    status,
    decisions,
    updated_at,
    bytes,
    leaseHeld: leaseHeld(store.pathOf(planId)),
    queuedDecisions: inbox.filter((n) => n.endsWith('.json')).length,
  };
}

async function quarantined(store: PlanStore): Promise<PlanFolder['quarantined']> {
  const names = await namesIn(store.quarantineDir);
  const files: PlanFolder['quarantined'] = [];
  for (const name of names.filter((n) => !n.endsWith('.reason.txt')).sort()) {
    files.push({ name, bytes: (await sizeOf(join(store.quarantineDir, name))) + (await sizeOf(join(store.quarantineDir, `${name}.reason.txt`))) });
  }
  return files;
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0; // not there (or gone since listed)
  }
}

async function sizesOf(dir: string, names: readonly string[]): Promise<number> {
  let total = 0;
  for (const name of names) total += await sizeOf(join(dir, name));
  return total;
}
