import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './http.js';
import type { PlanWatcher } from './watcher.js';

/**
 * GET /api/events[?plan=id]: server-sent events. `ready` names the project; `change` carries `{list, plans}` whenever plan
 * files or journals change; the page fetches again what it shows. A comment every 15 s keeps
 * proxies and idle timers from closing the stream.
 */
export function openEventStream(req: IncomingMessage, res: ServerResponse, watcher: PlanWatcher, follow: string | undefined, project: string): () => void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write(`retry: 1000\nevent: ready\ndata: ${JSON.stringify({ project })}\n\n`);
  const unsubscribe = watcher.subscribe((changes) => {
    res.write(`event: change\ndata: ${JSON.stringify(changes)}\n\n`);
  }, follow);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  heartbeat.unref?.();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    res.end();
  };
  req.on('close', close);
  return close;
}
