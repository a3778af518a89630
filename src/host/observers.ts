import type { SnapshotFrom } from 'xstate';
import type { WiredPlanMachine } from './wire.js';
import type { PlanFields } from '../persistence/plan-file.js';
import type { PlanSummary } from '../persistence/plan-index.js';

export type ObserverLog = (level: 'warn' | 'error', message: string) => void;

/**
 * `fn`, guarded for a caller that must not fail because an observer did (the write path): an error
 * is caught and logged the first time it happens with that message (not at every update), and the
 * call returns normally. The observer's next call runs as usual.
 */
export function guarded<A extends unknown[]>(name: string, fn: (...args: A) => void, log: ObserverLog): (...args: A) => void {
  const reported = new Set<string>();
  return (...args) => {
    try {
      fn(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (reported.has(message)) return;
      reported.add(message);
      log('error', `${name} failed and was skipped (plans are still written; this error is logged once): ${message}`);
    }
  };
}

/** One recorded change of a plan: its summary before and after, its plain fields (the file's, without the persisted snapshot, made only for a write), and the snapshot it was made from (read its tags and gates; never send from an observer). */
export interface PlanChange {
  planId: string;
  before: PlanSummary | undefined;
  after: PlanSummary;
  file: PlanFields;
  snapshot: SnapshotFrom<WiredPlanMachine>;
}

export type PlanObserver = (change: PlanChange) => void;

/** Who watches plans (toasts, the agenda's lifecycle events, …): told after each write is queued, never in its way. */
export class PlanObservers {
  private readonly observers = new Set<(change: PlanChange) => void>();

  constructor(private readonly log: ObserverLog) {}

  add(name: string, observer: PlanObserver): () => void {
    const entry = guarded(name, observer, this.log);
    this.observers.add(entry);
    return () => void this.observers.delete(entry);
  }

  notify(change: PlanChange): void {
    for (const observer of this.observers) observer(change);
  }
}
