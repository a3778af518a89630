import { closeSync, existsSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PLAN_MACHINE_VERSION } from '../machines/plan.machine.js';
import { writeFileAtomic } from './atomic-write.js';
import { PlanNotFoundError, QuarantinedPlanError } from './errors.js';
import { SCHEMA_VERSION } from './plan-file.js';
import { planSummary, summarize, type PlanSummary } from './plan-index.js';
import type { PlanStore } from './plan-store.js';
import { errorMessage } from '../errors.js';

/**
 * The plans' summaries cached beside them, so a start reads one file and stats each plan instead
 * of parsing and validating every plan file. Not a `.json` name: PlanStore.listIds quarantines
 * those that are not plan ids. A cached summary is used only while its plan file has the same
 * size, mtime, ctime and inode (every save renames a new file into place); anything else, and a
 * cache that is missing, unreadable or from another version, is read again from the plan files.
 */
export const SUMMARY_CACHE_NAME = '.summaries.cache';
/** Bump when summarize() or PlanSummary change. */
export const SUMMARY_CACHE_FORMAT = 2;

const fileStamp = z.object({ size: z.number(), mtimeMs: z.number(), ctimeMs: z.number(), ino: z.number() });
type FileStamp = z.infer<typeof fileStamp>;
const cacheEntry = z.object({ stamp: fileStamp, summary: planSummary });
type CacheEntry = z.infer<typeof cacheEntry>;
const cacheFile = z.object({
  format: z.literal(SUMMARY_CACHE_FORMAT),
  // Summaries come from migrated files: a plugin with other migrations makes its own.
  schema_version: z.literal(SCHEMA_VERSION),
  machine_version: z.literal(PLAN_MACHINE_VERSION),
  // Each entry is checked when it is used: a bad one costs a read of its plan file, not the cache.
  plans: z.record(z.string(), z.unknown()),
});

export interface LoadedSummaries {
  summaries: PlanSummary[];
  /** Plan files that did not load; they were quarantined. */
  problems: QuarantinedPlanError[];
  /** How many plan files were read because the cache had no valid entry for them. */
  read: number;
}

type Log = (level: 'info' | 'warn', message: string) => void;

/** Every plan's summary, from the cache where it still matches the file, else from the file. */
export function loadSummaries(store: PlanStore, log: Log = () => {}): LoadedSummaries {
  const path = join(store.dir, SUMMARY_CACHE_NAME);
  const cache = readCache(path, log);
  const entries: Record<string, CacheEntry> = {};
  const problems: QuarantinedPlanError[] = [];
  let read = 0;
  let hits = 0;
  for (const id of store.listIds()) {
    let stamp: FileStamp;
    try {
      // Stat before reading: a save in between leaves a stamp that no longer matches, never the reverse.
      stamp = stampOf(statSync(store.pathOf(id)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed since listed
      throw error;
    }
    const cached = cache?.plans[id];
    const hit = cached === undefined ? undefined : cacheEntry.safeParse(cached).data;
    // A file as new as the cache may have changed again within one tick of a coarse clock: read it.
    if (cache && hit && hit.summary.plan_id === id && sameStamp(hit.stamp, stamp) && stamp.mtimeMs < cache.writtenMs) {
      entries[id] = hit;
      hits += 1;
      continue;
    }
    read += 1;
    try {
      entries[id] = { stamp, summary: summarize(store.load(id)) };
    } catch (error) {
      if (error instanceof QuarantinedPlanError) problems.push(error);
      else if (!(error instanceof PlanNotFoundError)) throw error;
    }
  }
  const stale = cache === null || read > 0 || hits !== Object.keys(cache.plans).length;
  if (stale && existsSync(store.dir)) writeCache(path, entries, log);
  return { summaries: Object.values(entries).map((e) => e.summary), problems, read };
}

/**
 * Drop removed plans from the cache (orca prune). The other entries stay, except one as new as the
 * cache itself: rewritten now, the cache would vouch for it past the coarse-clock check above.
 */
export function forgetSummaries(store: PlanStore, planIds: readonly string[], log: Log = () => {}): void {
  if (planIds.length === 0) return;
  const path = join(store.dir, SUMMARY_CACHE_NAME);
  const cache = readCache(path, log);
  if (cache === null) return;
  const gone = new Set(planIds);
  const kept: Record<string, CacheEntry> = {};
  for (const [id, value] of Object.entries(cache.plans)) {
    const entry = cacheEntry.safeParse(value).data;
    if (entry && !gone.has(id) && entry.stamp.mtimeMs < cache.writtenMs) kept[id] = entry;
  }
  writeCache(path, kept, log);
}

function readCache(path: string, log: Log): (z.infer<typeof cacheFile> & { writtenMs: number }) | null {
  let text: string;
  let writtenMs: number;
  try {
    // The cache's own mtime, from the descriptor that is read: the clock the plan files' mtimes use.
    const fd = openSync(path, 'r');
    try {
      writtenMs = fstatSync(fd).mtimeMs;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    log('warn', `the plan summary cache ${path} cannot be read (${errorMessage(error)}); reading every plan file`);
    return null;
  }
  let parsed;
  try {
    parsed = cacheFile.safeParse(JSON.parse(text));
  } catch (error) {
    parsed = { success: false as const, error: error as Error };
  }
  if (!parsed.success) {
    log('info', `the plan summary cache ${path} is from another version or damaged; rebuilding it from the plan files`);
    return null;
  }
  return { ...parsed.data, writtenMs };
}

function writeCache(path: string, plans: Record<string, CacheEntry>, log: Log) {
  const file: z.input<typeof cacheFile> = { format: SUMMARY_CACHE_FORMAT, schema_version: SCHEMA_VERSION, machine_version: PLAN_MACHINE_VERSION, plans };
  try {
    writeFileAtomic(path, JSON.stringify(file));
  } catch (error) {
    log('warn', `the plan summary cache ${path} cannot be written (${errorMessage(error)}); the next start reads every plan file again`);
  }
}

const stampOf = (st: Stats): FileStamp => ({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });

const sameStamp = (a: FileStamp, b: FileStamp) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
