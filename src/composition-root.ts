import type { PluginInput } from '@opencode-ai/plugin';
import type { OrcaOptions } from './config/options.js';
import { opencodePorts, type ReconcileRecord } from './opencode/session-ports.js';
import { qualityPorts } from './opencode/quality-ports.js';
import { planPolicy } from './config/policy.js';
import type { SessionMonitor } from './opencode/session-monitor.js';
import { PlanHost, type PlanHostOptions } from './engine/plan-host.js';
import { PlanStore } from './persistence/plan-store.js';
import { appendJournal } from './persistence/journal.js';
import { watchForToasts, type Toast } from './opencode/toasts.js';
import { interruptedPlans, listSummaries } from './persistence/plan-index.js';
import { sessionsFromClient, type SessionsPort } from './opencode/sessions.js';
import { createQuestionAsker, type QuestionAsker } from './hitl/native-question/index.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Everything the tools and hooks of one OpenCode instance share. */
export interface Orca {
  directory: string;
  options: OrcaOptions;
  host: PlanHost;
  store: PlanStore;
  sessions: SessionsPort;
  asker: QuestionAsker;
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void;
  /** Stops polling and toasts, releases every plan; resolves when nothing is still being written. */
  dispose(): Promise<void>;
}

/** What Orca needs from OpenCode, as ports: the plugin passes adapters of its client, tests their fakes. */
export interface OrcaParts {
  directory: string;
  options: OrcaOptions;
  sessions: SessionsPort;
  asker: QuestionAsker;
  monitor: SessionMonitor;
  log: Orca['log'];
  showToast(toast: Toast): void;
  inspect?: PlanHostOptions['inspect'];
}

/** Orca over OpenCode's client: its sessions, question dialog, log and toasts. */
export function createOrca(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: OrcaOptions,
  hooks: Pick<PlanHostOptions, 'inspect'> & { monitor: SessionMonitor },
): Orca {
  const { client, directory } = input;
  const log: Orca['log'] = (level, message, extra) => {
    // The log is the last resort: a failing log call has nowhere left to report to.
    void client.app.log({ body: { service: 'orca', level, message, ...(extra ? { extra } : {}) } }).catch(() => {});
  };
  return assembleOrca({
    directory,
    options,
    sessions: sessionsFromClient(client, directory, (level, message) => log(level, message)),
    asker: createQuestionAsker({ client, directory, log: (level, message) => log(level, message) }),
    monitor: hooks.monitor,
    log,
    showToast: (toast) => {
      void client.tui.showToast({ body: toast, query: { directory } }).catch((error: unknown) => {
        log('warn', `toast "${toast.title}" could not be shown: ${(error as Error)?.message ?? String(error)}`);
      });
    },
    ...(hooks.inspect ? { inspect: hooks.inspect } : {}),
  });
}

/** The composition root: the plan host over the ports, its index loaded, inbox polling and toasts on. */
export function assembleOrca(parts: OrcaParts): Orca {
  const { directory, options, sessions, monitor, log, showToast } = parts;
  const store = PlanStore.forProject(directory);
  // Only side effects in flight in a plan restored from disk look for what an earlier process left.
  const isRecovering = (idempotencyKey: string) => host.isRecovering(idempotencyKey);
  const onReconcile = ({ plan_id, ...record }: ReconcileRecord) => {
    log('info', `plan ${plan_id}: ${record.role} session ${record.session_id}: ${record.decision}${record.detail ? ` (${record.detail})` : ''}`);
    appendJournal(store.journalPathOf(plan_id), [{ at: new Date().toISOString(), kind: 'reconcile', ...record }]);
  };
  const quality = qualityPorts(sessions, {
    directory,
    isRecovering,
    onReconcile,
    hookTimeoutMs: planPolicy(options).hook_timeout_ms,
    idle: monitor,
    guard: (id) => monitor.guard(id),
    abortReason: (id) => monitor.abortReason(id),
    log: (level, message) => log(level, message),
  });
  const host: PlanHost = new PlanHost({
    store,
    policy: planPolicy(options).plan,
    ports: {
      ...quality,
      ...opencodePorts(sessions, { monitor, isRecovering, onReconcile }),
    },
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.max_attempts ? { maxAttempts: options.max_attempts } : {}),
    ...(parts.inspect ? { inspect: parts.inspect } : {}),
    log,
  });
  host.loadIndex(); // logs what it quarantined
  // Interrupted plans are listed, never re-run silently: resuming is an explicit orca_ask_planner call.
  const interrupted = interruptedPlans(listSummaries(host.index));
  if (interrupted.length > 0) {
    const message = `${interrupted.length} interrupted plan(s): ${interrupted.map((p) => `${p.plan_id} (${p.waiting_for ? `waits for ${p.waiting_for}` : p.status})`).join(', ')}. Resume one with orca_ask_planner and its plan_id, or a slash command.`;
    log('info', message);
    showToast({ title: 'Orca', message, variant: 'info' });
  }
  // Decisions from the CLI or another terminal reach plans running here within a second.
  const stopPolling = host.pollInboxes();
  const stopToasts = watchForToasts(host, showToast);
  return {
    directory,
    options,
    host,
    store,
    sessions,
    asker: parts.asker,
    log,
    async dispose() {
      stopPolling();
      stopToasts();
      await host.dispose();
    },
  };
}
