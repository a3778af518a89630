import type { CommandAction, PlanAction, ResumeAction } from './schema.js';

/**
 * What the agenda needs from the plugin, injected: the clock, the executor of the actions that
 * need OpenCode (plan, resume, command), the reconciler of firings a crash interrupted, a log
 * and toasts. Tests give fakes; phase 2 wires them to the plan host and the OpenCode client.
 */

export type ExternalAction = PlanAction | ResumeAction | CommandAction;

export interface ExecutionRequest {
  agendaId: string;
  firing: number;
  /** `agn_…#firing`: a plan created for this firing records it, so `reconcile` can find the plan after a crash. */
  idempotencyKey: string;
  action: ExternalAction;
  reason: string;
  createdBy: string;
  sessionId?: string;
  late: boolean;
  dueAt?: string;
  triggeredByEvent?: string;
}

export interface ExecutionResult {
  /** One line for the log and the toast ("plan_… created, waiting for approval"). */
  result: string;
  planId?: string;
  actualSessionId?: string;
}

/** What a firing interrupted by a crash did, as far as the plugin can tell. */
export type ReconcileResult = ({ outcome: 'executed' } & ExecutionResult) | { outcome: 'failed'; error: string };

/** A toast in OpenCode's TUI; every toast Orca shows has this shape (notices/toasts.ts). */
export interface Toast {
  title: string;
  message: string;
  variant: 'info' | 'success' | 'warning' | 'error';
  /** Milliseconds on screen (OpenCode's default when absent). */
  duration?: number;
}

export interface AgendaPorts {
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Runs a plan, resume or command action; a rejection is the firing's error. */
  execute: (request: ExecutionRequest) => Promise<ExecutionResult>;
  /** Tells what a started firing with no outcome did (a `plan` action: the plan whose file records the idempotency key). */
  reconcile: (request: ExecutionRequest) => Promise<ReconcileResult>;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  toast: (toast: Toast) => void;
  /** Calls `fn` every `ms` until the returned function is called (default: an unref'ed setInterval). */
  every: (ms: number, fn: () => void) => () => void;
}

export const keyOf = (agendaId: string, firing: number) => `${agendaId}#${firing}`;

/** Without a reconcile port nothing can be proven about an interrupted firing: it is failed, never run again. */
export const reconcileUnknown: AgendaPorts['reconcile'] = async (request) => ({
  outcome: 'failed',
  error: `interrupted by a restart before its outcome was recorded (${request.idempotencyKey}); not run again`,
});

export const unrefInterval: AgendaPorts['every'] = (ms, fn) => {
  const timer = setInterval(fn, ms);
  // The agenda must never keep the OpenCode process alive on its own.
  timer.unref();
  return () => clearInterval(timer);
};
