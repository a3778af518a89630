import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { InspectorError } from '../config/inspector-error.js';

/**
 * The loopback relay between the plan actors and the Stately inspector page, speaking the protocol
 * of `createInspectorServer` from @statelyai/inspect/server (one JSON inspection event per message,
 * relayed to every other client, a bridge page that frames stately.ai/inspect). That server is not
 * used because it binds every interface, has no listening/error signal (a busy port is an uncaught
 * EADDRINUSE that kills the host) and its stop() leaves connected pages open (verified on 0.7.2).
 */

export const STATELY_INSPECT_URL = 'https://stately.ai/inspect';
const LOOPBACK = '127.0.0.1';

export interface RelayOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Messages kept for pages that connect later; actor registrations are always kept. */
  history?: number;
  log?: (message: string) => void;
}

export interface InspectorRelay {
  /** The page to open in a browser. */
  readonly pageUrl: string;
  /** Where inspectors in other processes may send events (`createWebSocketInspector({ url })`). */
  readonly socketUrl: string;
  /** Send one serialized inspection event to every page, and keep it for pages that open later. */
  publish(message: string, pinned?: boolean): void;
  /** Close every connection and the server. Idempotent. */
  stop(): Promise<void>;
}

export async function startRelay({ port = 0, history = 1_000, log }: RelayOptions = {}): Promise<InspectorRelay> {
  let boundPort = port;
  const server = createServer((request, response) => {
    // A page on another site that rebinds its host name to 127.0.0.1 gets nothing.
    if (!isOwnHost(request.headers.host, boundPort)) {
      response.writeHead(403);
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(bridgePage(STATELY_INSPECT_URL));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new InspectorError(
          `Could not start the inspector relay on ${LOOPBACK}:${port} (${error.code ?? error.message}). ` +
            'Choose another port with ORCA_INSPECT_PORT or the plugin option inspect.port (0 = any free port).',
        ),
      ),
    );
    server.listen(port, LOOPBACK, () => resolve());
  });
  const address = server.address();
  boundPort = typeof address === 'object' && address ? address.port : port;

  // Created once listening: a WebSocketServer re-emits the server's errors and throws when unheard.
  const wss = new WebSocketServer({
    server,
    // Browsers send an Origin: only our own page may read the plans; local tools send none.
    verifyClient: ({ origin }) => origin === undefined || isOwnOrigin(origin, boundPort),
  });
  wss.on('error', (error) => log?.(`inspector relay: ${error.message}`));

  const backlog: { message: string; pinned: boolean }[] = [];
  let stopped = false;
  const remember = (message: string, pinned: boolean) => {
    backlog.push({ message, pinned });
    if (backlog.length <= history) return;
    const oldest = backlog.findIndex((m) => !m.pinned);
    backlog.splice(oldest === -1 ? 0 : oldest, 1);
  };
  const broadcast = (message: string, except?: WebSocket) => {
    for (const client of wss.clients) if (client !== except && client.readyState === WebSocket.OPEN) client.send(message);
  };

  wss.on('connection', (socket) => {
    // A broken connection must never become an uncaught error in the host process.
    socket.on('error', () => socket.terminate());
    for (const { message } of backlog) socket.send(message);
    socket.on('message', (data) => {
      if (stopped) return;
      const message = String(data);
      remember(message, isActorEvent(message));
      broadcast(message, socket);
    });
  });

  return {
    pageUrl: `http://${LOOPBACK}:${boundPort}/`,
    socketUrl: `ws://${LOOPBACK}:${boundPort}`,
    publish(message, pinned = false) {
      if (stopped) return;
      remember(message, pinned);
      broadcast(message);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      // Keep-alive sockets of the page's HTTP request would hold the port (and the process) open.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ownHosts = (port: number) => [`${LOOPBACK}:${port}`, `localhost:${port}`];

function isOwnHost(host: string | undefined, port: number): boolean {
  return host !== undefined && ownHosts(port).includes(host);
}

function isOwnOrigin(origin: string, port: number): boolean {
  return ownHosts(port).some((host) => origin === `http://${host}`);
}

function isActorEvent(message: string): boolean {
  try {
    return (JSON.parse(message) as { type?: unknown }).type === '@xstate.actor';
  } catch {
    return false;
  }
}

/** The bridge page of @statelyai/inspect/server, connecting back to whichever host served it. */
function bridgePage(inspectorUrl: string): string {
  return `<!DOCTYPE html>
<html>
<head>
  <title>Orca · Stately Inspector</title>
  <style>* { margin: 0; padding: 0; } html, body { height: 100%; } iframe { width: 100%; height: 100%; border: none; }</style>
</head>
<body>
  <iframe id="inspector" src="${inspectorUrl}"></iframe>
  <script>
    const iframe = document.getElementById('inspector');
    const buffer = [];
    let connected = false;
    window.addEventListener('message', (e) => {
      if (e.data && e.data.type === '@statelyai.connected') {
        connected = true;
        buffer.forEach((event) => iframe.contentWindow.postMessage(event, '*'));
        buffer.length = 0;
      }
    });
    const ws = new WebSocket('ws://' + location.host);
    ws.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (connected) iframe.contentWindow.postMessage(data, '*');
      else buffer.push(data);
    };
  </script>
</body>
</html>`;
}
