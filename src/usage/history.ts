import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { totalTokens, type Usage } from '../machines/usage.js';
import { writeFileAtomic } from '../persistence/atomic-write.js';
import { ensureStateDir } from '../persistence/state-dir.js';
import { errorMessage } from '../errors.js';

/**
 * What this project's recent turns cost, per agent: the last `perAgent` turns of each (tokens of
 * every class and cost), written right after each turn finishes (turns finishing together in one
 * write, off the turn's path), so a forecast reads one small file instead
 * of every plan's journal. `.opencode/plans/.usage-history` (not `.json`: the plan store lists
 * those as plans). Read lazily on first use, never at plugin start. Two servers on one project may
 * lose a few of each other's records (last write wins): it only feeds an estimate.
 */
export const USAGE_HISTORY_NAME = '.usage-history';
export const USAGE_HISTORY_FORMAT = 1;
export const DEFAULT_TURNS_PER_AGENT = 50;

const record = z.tuple([z.number().finite().min(0), z.number().finite().min(0)]);
const historyFile = z.object({ format: z.literal(USAGE_HISTORY_FORMAT), agents: z.record(z.string(), z.array(record)) });

/** One agent's recorded turns in short: how many, and the median tokens and cost of one turn. */
export interface AgentTurns {
  turns: number;
  median_tokens: number;
  median_cost: number;
}

export interface UsageHistory {
  /** Remember one finished turn of `agent`: at once for `stats`, in the file right after (turns finishing together are written once). */
  record(agent: string, usage: Usage): void;
  /** Write the turns not yet in the file now (before a process exits). */
  flush(): void;
  /** The agent's recorded turns, or null when there are none. */
  stats(agent: string): AgentTurns | null;
}

type Log = (level: 'warn', message: string) => void;

export function createUsageHistory(path: string, { perAgent = DEFAULT_TURNS_PER_AGENT, log = () => {} }: { perAgent?: number; log?: Log } = {}): UsageHistory {
  if (!Number.isInteger(perAgent) || perAgent < 1) throw new TypeError(`Expected \`perAgent\` to be a positive integer, got ${perAgent}.`);
  let agents: Record<string, Array<[number, number]>> | null = null;

  const load = () => {
    if (agents) return agents;
    agents = {};
    if (!existsSync(path)) return agents;
    try {
      const parsed = historyFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) agents = parsed.data.agents as Record<string, Array<[number, number]>>;
      else log('warn', `the usage history ${path} is from another version or damaged; forecasts start from no history`);
    } catch (error) {
      log('warn', `the usage history ${path} cannot be read (${errorMessage(error)}); forecasts start from no history`);
    }
    return agents;
  };

  /** Turns recorded since the last write, in order. */
  let pending: Array<[string, [number, number]]> = [];
  let scheduled: ReturnType<typeof setImmediate> | null = null;

  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
    if (pending.length === 0) return;
    const turns = pending;
    pending = [];
    // Another process may have recorded turns since: add ours on top of the file, not of our copy.
    const merged = { ...load(), ...(readQuietly(path) ?? {}) };
    for (const [agent, turn] of turns) merged[agent] = [...(merged[agent] ?? []), turn].slice(-perAgent);
    agents = merged;
    try {
      ensureStateDir(dirname(path));
      writeFileAtomic(path, JSON.stringify({ format: USAGE_HISTORY_FORMAT, agents }), { fsync: false });
    } catch (error) {
      log('warn', `the usage history ${path} cannot be written (${errorMessage(error)}); its file misses ${turns.length} turn(s), which later processes' forecasts will not include`);
    }
  };

  return {
    // Not on the turn's path: a turn ends on OpenCode's one thread, where a synchronous read and write would wait with it.
    record(agent, usage) {
      pending.push([agent, [totalTokens(usage), usage.cost]]);
      if (!scheduled) {
        scheduled = setImmediate(flush);
        scheduled.unref?.();
      }
    },
    flush,
    stats(agent) {
      const recorded = pending.filter(([a]) => a === agent).map(([, turn]) => turn);
      const turns = [...(load()[agent] ?? []), ...recorded].slice(-perAgent);
      if (turns.length === 0) return null;
      return { turns: turns.length, median_tokens: median(turns.map((t) => t[0])), median_cost: median(turns.map((t) => t[1])) };
    },
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) throw new RangeError('Expected at least one value for a median, got none.');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function readQuietly(path: string): Record<string, Array<[number, number]>> | null {
  try {
    const parsed = historyFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? (parsed.data.agents as Record<string, Array<[number, number]>>) : null;
  } catch {
    return null;
  }
}
