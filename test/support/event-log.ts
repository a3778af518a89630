// Records the server's global event stream (GET /global/event, SSE) from start-up on, so a test
// can wait for `question.asked` and the like, and see errors that never reach the log:
// a plugin that fails to import is reported only as a `session.error` event here.
import { waitFor, type WaitForOptions } from './wait-for.js';

export type RecordedEvent = {
  type: string;
  properties: any;
  /** The project directory the event belongs to, when it belongs to one. */
  directory?: string;
  at: number;
};

export type EventLog = {
  events: RecordedEvent[];
  ofType(type: string): RecordedEvent[];
  /** The first event (already recorded or still to come) of `type` that satisfies `match`. */
  next(type: string, match?: (event: RecordedEvent) => boolean, options?: WaitForOptions): Promise<RecordedEvent>;
  /** Messages of `session.error` events that say a plugin failed to load or was skipped. */
  pluginErrors(): string[];
  close(): void;
};

/** `directory`: only that project's events (a project on a server other projects use too). */
export async function recordGlobalEvents(
  baseUrl: string,
  headers: Record<string, string>,
  { directory, connectTimeoutMs = 10_000 }: { directory?: string; connectTimeoutMs?: number } = {},
): Promise<EventLog> {
  const events: RecordedEvent[] = [];
  const controller = new AbortController();
  // The stream is endless by design; only connecting gets a deadline.
  const timer = setTimeout(() => controller.abort(new Error(`Expected GET /global/event to answer within ${connectTimeoutMs} ms.`)), connectTimeoutMs);
  const res = await fetch(new URL('/global/event', baseUrl), { headers, signal: controller.signal }).finally(() => clearTimeout(timer));
  if (!res.ok || !res.body) throw new Error(`Expected GET /global/event to stream events, got HTTP ${res.status}.`);
  void readEvents(res.body, (event) => {
    if (directory === undefined || event.directory === directory) events.push(event);
  }).catch(() => {
    // The stream ends when the server stops or is killed; the events so far stay readable.
  });

  const ofType = (type: string) => events.filter((e) => e.type === type);
  return {
    events,
    ofType,
    next: (type, match = () => true, options = {}) =>
      waitFor(() => ofType(type).find(match), { description: `a "${type}" event`, ...options }),
    pluginErrors: () =>
      ofType('session.error')
        .map((e) => String(e.properties?.error?.data?.message ?? ''))
        .filter((message) => /plugin/i.test(message)),
    close: () => controller.abort(),
  };
}

async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: RecordedEvent) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) onEvent(toRecordedEvent(JSON.parse(data)));
    }
  }
}

// Global events wrap the instance event: {directory, project, payload: {id, type, properties}}.
function toRecordedEvent(raw: any): RecordedEvent {
  const payload = raw?.payload ?? raw;
  return { type: String(payload?.type ?? ''), properties: payload?.properties, directory: raw?.directory, at: Date.now() };
}
