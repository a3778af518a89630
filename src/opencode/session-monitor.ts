import {
  DEFAULT_TOOL_ABORT_AT,
  DEFAULT_TOOL_REDIRECT_AT,
  type OrcaOptions,
} from '../config/options.js';
import { abortText, failureStreak, redirectText, toolOutcomes, type TranscriptMessage } from './tool-failures.js';
import { errorMessage } from '../errors.js';
import { requestOnlyMessage } from './request-notes.js';

/** A bus event as the plugin's `event` hook receives it (OpenCode 1.18 sends more types than the v1 SDK names). */
export interface BusEvent {
  type: string;
  properties?: unknown;
}

/** A session's status as `session.status` events carry it; `retry` while OpenCode retries a failed model request. */
export type SessionStatus =
  | { type: 'idle' | 'busy' }
  | { type: 'retry'; attempt: number; message: string; next: number };

export interface SessionMonitorOptions {
  /** Abort the session's running turn (SessionsPort.abort). */
  abort(sessionId: string): Promise<void>;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  /** Identical failures before the redirect message is added to the next request (default 3). */
  redirectAt?: number;
  /** Identical failures at which the session is aborted (default 4). */
  abortAt?: number;
  /** The clock activity is stamped with; waitIdle must be given the same one. */
  now?: () => number;
}

/**
 * What Orca learns about sessions from OpenCode's bus and transcripts: when each session last did
 * anything (step timeouts) and whether a guarded specialist session is stuck repeating one failing
 * tool call (the tool-loop breaker of docs/design.md, "Breakers and limits"). The breaker acts only
 * in sessions a specialist turn runs in (opencodePorts' runSpecialist guards them): never the
 * user's session, the planner, or read-only consultations. It reads the transcript OpenCode is
 * about to send, so it sees every settled tool call before the next request: `tool.execute.after`
 * does not fire for a tool that throws (https://github.com/anomalyco/opencode/issues/27900), and
 * bus events may arrive after the next request has started.
 */
export interface SessionMonitor {
  /** Feed every bus event here (the plugin's `event` hook). */
  observe(event: BusEvent): void;
  /** When the last bus event about the session arrived (ms since the epoch). */
  lastActivity(sessionId: string): number | undefined;
  /**
   * Resolves once the session has been quiet for `idleMs`, counted from its last activity or from
   * this call, whichever is later. Rejects with the signal's reason when it aborts.
   */
  waitIdle(sessionId: string, idleMs: number, signal: AbortSignal, now?: () => number): Promise<void>;
  /** Apply the tool-failure breaker to this session until the returned function is called. */
  guard(sessionId: string): () => void;
  /** Why the breaker aborted the session, while it is guarded. */
  abortReason(sessionId: string): string | undefined;
  /** Calls `listener` with each status the session reports until the returned function is called. */
  watchStatus(sessionId: string, listener: (status: SessionStatus) => void): () => void;
  /** The `experimental.chat.messages.transform` hook: runs before every model request. */
  beforeModelRequest(messages: TranscriptMessage[]): Promise<void>;
}

/** setTimeout's ceiling; a longer wait simply re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createSessionMonitor({
  abort,
  log,
  redirectAt = DEFAULT_TOOL_REDIRECT_AT,
  abortAt = DEFAULT_TOOL_ABORT_AT,
  now: clock = Date.now,
}: SessionMonitorOptions): SessionMonitor {
  if (!Number.isInteger(redirectAt) || redirectAt < 1) throw new TypeError(`Expected \`redirectAt\` to be a positive integer, got ${redirectAt}.`);
  if (!Number.isInteger(abortAt) || abortAt < 2) throw new TypeError(`Expected \`abortAt\` to be an integer of at least 2, got ${abortAt}.`);

  const activity = new Map<string, number>();
  /** Guarded sessions: what was last logged for them, and the abort reason once aborted. */
  const guarded = new Map<string, { redirected?: string; aborted?: string }>();
  const statusListeners = new Map<string, Set<(status: SessionStatus) => void>>();

  return {
    observe: function observeSessionEvent(event) {
      const sessionId = sessionOf(event);
      if (!sessionId) return;
      if (event.type === 'session.deleted') activity.delete(sessionId);
      else activity.set(sessionId, clock());
      if (event.type !== 'session.status') return;
      const listeners = statusListeners.get(sessionId);
      const status = statusOf(event);
      if (!listeners || !status) return;
      for (const listener of [...listeners]) {
        try {
          listener(status);
        } catch (error) {
          log('error', `session ${sessionId}: a status listener failed: ${errorMessage(error)}`);
        }
      }
    },

    watchStatus(sessionId, listener) {
      let listeners = statusListeners.get(sessionId);
      if (!listeners) statusListeners.set(sessionId, (listeners = new Set()));
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && statusListeners.get(sessionId) === listeners) statusListeners.delete(sessionId);
      };
    },

    lastActivity: (sessionId) => activity.get(sessionId),

    waitIdle: function waitIdle(sessionId, idleMs, signal, now = clock) {
      const since = now();
      return new Promise<void>((resolve, reject) => {
        if (!(idleMs > 0) || !Number.isFinite(idleMs)) return reject(new TypeError(`Expected \`idleMs\` to be a positive number, got ${idleMs}.`));
        if (signal.aborted) return reject(signal.reason);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal.reason);
        };
        // One timer to the deadline; activity only moves the deadline, checked when the timer fires.
        const arm = () => {
          const deadline = Math.max(activity.get(sessionId) ?? since, since) + idleMs;
          const wait = deadline - now();
          if (wait <= 0) {
            signal.removeEventListener('abort', onAbort);
            resolve();
            return;
          }
          timer = setTimeout(arm, Math.min(wait, MAX_TIMER_MS));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        arm();
      });
    },

    guard(sessionId) {
      const state = {};
      guarded.set(sessionId, state);
      // Only this guard's own release counts: a later guard of the same session stays in place.
      return () => void (guarded.get(sessionId) === state && guarded.delete(sessionId));
    },

    abortReason: (sessionId) => guarded.get(sessionId)?.aborted,

    beforeModelRequest: async function breakToolLoops(messages) {
      const sessionId = messages.at(-1)?.info.sessionID;
      const state = sessionId ? guarded.get(sessionId) : undefined;
      if (!sessionId || !state) return;
      const streak = failureStreak(toolOutcomes(messages));
      if (!streak) return;
      if (streak.count >= abortAt) {
        state.aborted ??= abortText(streak);
        log('warn', `session ${sessionId}: ${state.aborted}; aborting the session`);
        try {
          await abort(sessionId);
        } catch (error) {
          log('error', `session ${sessionId}: could not abort after ${streak.count} identical failures of ${streak.tool}: ${errorMessage(error)}`);
          throw error;
        }
        return;
      }
      if (streak.count < redirectAt) return;
      const text = redirectText(streak);
      messages.push(requestOnlyMessage(messages, text, 'redirect'));
      if (state.redirected !== text) {
        state.redirected = text;
        log('info', `session ${sessionId}: ${streak.count} identical failures of ${streak.tool}; redirect message added to the next model request`);
      }
    },
  };
}

/** The breaker's limits from the plugin options (`breakers.tool_failures`). */
export function toolFailureLimits(options: OrcaOptions): { redirectAt: number; abortAt: number } {
  const limits = options.breakers?.tool_failures;
  return { redirectAt: limits?.redirect_at ?? DEFAULT_TOOL_REDIRECT_AT, abortAt: limits?.abort_at ?? DEFAULT_TOOL_ABORT_AT };
}

/** The status a `session.status` event carries, or undefined when it is not one OpenCode 1.18 sends. */
function statusOf(event: BusEvent): SessionStatus | undefined {
  const status = (event.properties as { status?: Record<string, unknown> } | undefined)?.status;
  if (!status) return undefined;
  if (status.type === 'idle' || status.type === 'busy') return { type: status.type };
  if (status.type !== 'retry') return undefined;
  return {
    type: 'retry',
    attempt: typeof status.attempt === 'number' ? status.attempt : 0,
    message: typeof status.message === 'string' ? status.message : '',
    next: typeof status.next === 'number' ? status.next : 0,
  };
}

/** The session an event is about: OpenCode puts it in one of these places depending on the type. */
function sessionOf(event: BusEvent): string | undefined {
  const p = event.properties as
    | { sessionID?: unknown; info?: { id?: unknown; sessionID?: unknown }; part?: { sessionID?: unknown } }
    | undefined;
  if (!p) return undefined;
  const id = p.sessionID ?? p.info?.sessionID ?? p.part?.sessionID ?? (event.type.startsWith('session.') ? p.info?.id : undefined);
  return typeof id === 'string' ? id : undefined;
}
