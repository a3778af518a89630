import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isPlanId } from '../persistence/plan-id.js';

/**
 * Follows `.opencode/plans` as a running server writes it, by polling sizes and mtimes (no
 * inotify limits, works in Node and in OpenCode's Bun alike). Plan files are replaced by rename,
 * which changes the folder's mtime: only then is every file looked at; otherwise only the files of
 * the plans someone follows (their journals grow in place), plus a full look now and then for
 * files edited in place. It polls only while someone listens.
 */
export interface PlanChanges {
  /** A plan file appeared, changed or went away: the list of plans is stale. */
  list: boolean;
  /** Plans whose file or journal changed. */
  plans: string[];
}

export interface PlanWatcher {
  /** `follow`: a plan whose journal is watched closely. Returns the unsubscribe function. */
  subscribe(listener: (changes: PlanChanges) => void, follow?: string): () => void;
  stop(): void;
}

export interface WatchOptions {
  intervalMs?: number;
  /** Every this many ticks every file is looked at, whatever the folder's mtime says. */
  fullScanEvery?: number;
  /** A poll that failed (an unreadable folder, say): the watcher keeps polling. */
  onError: (error: Error) => void;
}

const PLAN_FILE = /^(plan_\w+)\.(json|journal\.jsonl)$/;

export function watchPlans(plansDir: string, { intervalMs = 400, fullScanEvery = 10, onError }: WatchOptions): PlanWatcher {
  const listeners = new Map<(changes: PlanChanges) => void, string | undefined>();
  let files = new Map<string, string>();
  let dirStamp = '';
  let tick = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  const signature = (path: string) => {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : '';
  };
  const scanAll = () => {
    const next = new Map<string, string>();
    let names: string[] = [];
    try {
      names = readdirSync(plansDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const name of names) {
      const id = PLAN_FILE.exec(name)?.[1];
      if (id && isPlanId(id)) {
        const sig = signature(join(plansDir, name));
        if (sig) next.set(name, sig);
      }
    }
    return next;
  };
  const scanFollowed = () => {
    const next = new Map(files);
    for (const id of new Set([...listeners.values()].filter((v): v is string => v !== undefined))) {
      for (const name of [`${id}.json`, `${id}.journal.jsonl`]) {
        const sig = signature(join(plansDir, name));
        if (sig) next.set(name, sig);
        else next.delete(name);
      }
    }
    return next;
  };

  function poll() {
    tick += 1;
    const stamp = signature(plansDir);
    const next = stamp !== dirStamp || tick % fullScanEvery === 0 ? scanAll() : scanFollowed();
    dirStamp = stamp;
    const changed = new Set<string>();
    let list = false;
    for (const name of new Set([...files.keys(), ...next.keys()])) {
      if (files.get(name) === next.get(name)) continue;
      changed.add(PLAN_FILE.exec(name)![1]!);
      if (name.endsWith('.json')) list = true;
    }
    files = next;
    if (changed.size === 0) return;
    const changes = { list, plans: [...changed].sort() };
    for (const listener of [...listeners.keys()]) listener(changes);
  }

  const safePoll = () => {
    try {
      poll();
    } catch (error) {
      onError(error as Error);
    }
  };

  return {
    subscribe(listener, follow) {
      if (listeners.size === 0) {
        dirStamp = signature(plansDir);
        files = scanAll();
        timer = setInterval(safePoll, intervalMs);
        timer.unref?.();
      }
      listeners.set(listener, follow);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    stop() {
      listeners.clear();
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
