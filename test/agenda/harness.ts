import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Agenda, type AgendaOptions } from '../../src/agenda/agenda.js';
import type { AgendaLimits } from '../../src/agenda/limits.js';
import type { ExecutionRequest, ExecutionResult, ReconcileResult, Toast } from '../../src/agenda/ports.js';
import { eventsPath } from '../../src/agenda/store.js';

/** A project directory per test, an injected clock, a scripted executor, captured toasts and log. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const T0 = Date.parse('2030-01-07T08:00:00.000Z'); // a Monday
export const iso = (ms: number) => new Date(ms).toISOString();
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

export function projectDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orca-agenda-'));
  dirs.push(dir);
  return dir;
}

export interface Harness {
  dir: string;
  agenda: Agenda;
  now: { ms: number };
  calls: ExecutionRequest[];
  reconciles: ExecutionRequest[];
  toasts: Toast[];
  logs: string[];
  /** What the executor answers; default: success. */
  executor: { fn: (r: ExecutionRequest) => Promise<ExecutionResult> };
  reconciler: { fn: (r: ExecutionRequest) => Promise<ReconcileResult> };
  timers: Array<{ ms: number; fn: () => void; stopped: boolean }>;
  /** A new Agenda on the same directory and clock: what a restarted server would open. */
  reopen: (limits?: Partial<AgendaLimits>) => Harness;
  lines: () => Array<Record<string, any>>;
}

export function harness(options: { dir?: string; now?: { ms: number }; limits?: Partial<AgendaLimits>; lateAfterSeconds?: number } = {}): Harness {
  const dir = options.dir ?? projectDir();
  const now = options.now ?? { ms: T0 };
  const calls: ExecutionRequest[] = [];
  const reconciles: ExecutionRequest[] = [];
  const toasts: Toast[] = [];
  const logs: string[] = [];
  const timers: Harness['timers'] = [];
  const executor: Harness['executor'] = { fn: async (r) => ({ result: `ran ${r.action.type}` }) };
  const reconciler: Harness['reconciler'] = { fn: async () => ({ outcome: 'failed', error: 'no plan records this item' }) };
  const ports: AgendaOptions['ports'] = {
    clock: () => now.ms,
    execute: (r) => {
      calls.push(r);
      return executor.fn(r);
    },
    reconcile: (r) => {
      reconciles.push(r);
      return reconciler.fn(r);
    },
    log: (level, message) => logs.push(`${level} ${message}`),
    toast: (t) => toasts.push(t),
    every: (ms, fn) => {
      const timer = { ms, fn, stopped: false };
      timers.push(timer);
      return () => {
        timer.stopped = true;
      };
    },
  };
  const agenda = Agenda.open({
    directory: dir,
    ports,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.lateAfterSeconds !== undefined ? { lateAfterSeconds: options.lateAfterSeconds } : {}),
  });
  const h: Harness = {
    dir,
    agenda,
    now,
    calls,
    reconciles,
    toasts,
    logs,
    executor,
    reconciler,
    timers,
    reopen: (limits) => harness({ dir, now, limits: limits ?? options.limits, ...(options.lateAfterSeconds !== undefined ? { lateAfterSeconds: options.lateAfterSeconds } : {}) }),
    lines: () =>
      readFileSync(eventsPath(dir), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
  return h;
}

export const at = (ms: number) => ({ type: 'time' as const, executeAt: iso(ms) });
export const emitTo = (kind: string, message = '') => ({ type: 'emit' as const, kind, message });
export const plan = (message = 'write the weekly report') => ({ type: 'plan' as const, message });
export const item = (trigger: unknown, action: unknown, extra: { sessionId?: string; reason?: string } = {}) => ({
  trigger,
  action,
  reason: extra.reason ?? 'test',
  createdBy: extra.sessionId ?? 'ses_test',
  ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}),
});

/** A promise and the functions that settle it: a slow action the test finishes when it wants. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
