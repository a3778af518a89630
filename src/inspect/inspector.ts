import { createInspector } from '@statelyai/inspect';
import type { InspectionEvent } from 'xstate';
import { InspectorError } from '../config/inspector-error.js';
import { startRelay } from './relay.js';
import { inspectorSettings, type InspectOption } from '../config/inspect-settings.js';

export interface OrcaInspector {
  /** The page to open in a browser; it frames stately.ai/inspect, so the browser needs internet. */
  readonly url: string;
  /** createActor's `inspect` callback (or forward to it): every actor of the system is shown. */
  inspect(event: InspectionEvent): void;
  /** Publish what is pending, then close every connection and the relay. Idempotent. */
  stop(): Promise<void>;
}

export interface StartInspectorOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Told the page to open once the relay listens. */
  log?: (message: string) => void;
}

/**
 * Start the Stately inspector for actors of this process: a loopback relay (see relay.ts) fed
 * in-process. No websocket client of @statelyai/inspect is used: with no relay listening, or when
 * stopped while connecting, it retries every 5 s forever and keeps the process alive after stop().
 */
export async function startInspector({ port = 0, log }: StartInspectorOptions = {}): Promise<OrcaInspector> {
  const relay = await startRelay({ port, ...(log ? { log } : {}) });
  // createInspector turns xstate inspection events into the inspector's protocol (actor
  // registrations carry the machine definition); it converts each one in a setTimeout(0).
  const stately = createInspector({
    send: (event) => relay.publish(serialize(event), event.type === '@xstate.actor'),
  });
  let stopped = false;
  log?.(`Stately inspector: open ${relay.pageUrl} (it frames stately.ai/inspect: the browser needs internet access)`);
  return {
    url: relay.pageUrl,
    inspect(event) {
      if (!stopped) stately.inspect.next?.(event);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await nextMacrotask(); // conversions already scheduled reach the relay before it closes
      await relay.stop();
    },
  };
}

/**
 * For the plugin: the inspector when the user opted in (plugin option `inspect`, ORCA_INSPECT=1),
 * else null. It is a debugging aid: a failure to start is logged and the plugin runs without it.
 */
export async function startConfiguredInspector(
  option: InspectOption | undefined,
  log: (level: 'info' | 'warn', message: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<OrcaInspector | null> {
  try {
    const settings = inspectorSettings(option, env);
    if (!settings) return null;
    return await startInspector({ port: settings.port, log: (message) => log('info', message) });
  } catch (error) {
    if (!(error instanceof InspectorError)) throw error;
    log('warn', `${error.message} Orca runs without the inspector.`);
    return null;
  }
}

export const nextMacrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** JSON for the page. Snapshots and actor refs define toJSON; anything else cyclic is cut, not thrown. */
function serialize(event: unknown): string {
  try {
    return JSON.stringify(event);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(event, (_key, value: unknown) => {
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'function') return { type: value.name };
      if (typeof value !== 'object' || value === null) return value;
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
      return value;
    });
  }
}
