import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isPlanId } from '../persistence/plan-id.js';
import { plansDir as plansDirOf } from '../persistence/plan-store.js';
import { checkAccess, clip, tokenCookie } from './access.js';
import { diffData, listData, planData } from './api-data.js';
import { handleDecision } from './decision-route.js';
import { openEventStream } from './events-route.js';
import { send, sendError, sendJson } from './http.js';
import { isStaticFile, staticFiles } from './static-files.js';
import { rewindRoute } from './rewind-route.js';
import type { RewindDeps } from '../rewind/rewind-plan.js';
import { UiError } from '../config/ui-error.js';
import { watchPlans } from './watcher.js';

export interface UiServerOptions {
  /** The project whose `.opencode/plans` is shown. */
  project: string;
  /** On 127.0.0.1; 0 (default) picks a free port. */
  port?: number;
  log?: (level: 'info' | 'warn', message: string) => void;
  /** How often the watcher looks at the plan files (ms). */
  pollMs?: number;
  /** How long a decision waits for the running server to apply it (ms). */
  decisionWaitMs?: number;
  /**
   * What the Undo and Redo buttons run on (the project's plan store, repository and include list), built
   * where the viewer starts: the plugin's own (src/composition-root.ts), or `orca ui`'s (src/cli/undo.ts).
   */
  rewind: RewindDeps;
}

export interface UiServer {
  /** The page to open, token included. */
  readonly url: string;
  readonly port: number;
  /** Close every stream and connection and the server. Idempotent. */
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

/** The plan viewer: a page over the project's plan files, with the gate buttons of `orca decide` and the Undo and Redo of `orca undo` and `orca redo`. */
export async function startUiServer({ project, port = 0, log = () => {}, pollMs = 400, decisionWaitMs = 5_000, rewind }: UiServerOptions): Promise<UiServer> {
  const token = randomBytes(24).toString('base64url');
  const plansDir = plansDirOf(project);
  const files = staticFiles();
  const watcher = watchPlans(plansDir, { intervalMs: pollMs, onError: (error) => log('warn', `plan viewer: watching ${plansDir} failed: ${error.message}`) });
  const handleRewind = rewindRoute({ deps: rewind, log });
  const streams = new Set<() => void>();
  const sockets = new Set<Socket>();
  let boundPort = port;

  const server = createServer(function handleUiRequest(req, res) {
    route(req, res).catch((error: Error) => {
      log('warn', `plan viewer: ${req.method} ${clip(req.url ?? '')} failed: ${error.message}`);
      if (!res.headersSent) sendError(res, 500, `Unexpected error: ${clip(error.message, 200)}`);
      else res.end();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
    const access = checkAccess(
      {
        method: req.method ?? 'GET',
        host: req.headers.host,
        origin: req.headers.origin,
        queryToken: url.searchParams.get('token'),
        headerToken: single(req.headers['x-orca-token']),
        cookie: req.headers.cookie,
        contentType: req.headers['content-type'],
      },
      { port: boundPort, token },
    );
    if (!access.ok) return sendError(res, access.status, access.message);
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const post = /^\/api\/plans\/([^/]+)\/(decision|undo|redo)$/.exec(path);
    if (method === 'POST' && post) {
      const planId = post[1]!; // plan ids need no decoding: anything encoded is no plan id
      if (!isPlanId(planId)) return sendError(res, 404, noPlan(planId));
      if (post[2] === 'decision') return handleDecision(req, res, { project, planId, waitMs: decisionWaitMs, log });
      return handleRewind(req, res, planId, post[2] === 'undo' ? 'undo' : 'redo');
    }
    if (method !== 'GET' && method !== 'HEAD') return sendError(res, 405, `Expected GET (or POST to /api/plans/:id/decision, /undo or /redo), got ${clip(method, 20)}.`);

    if (path === '/' || path === '/index.html') {
      const page = files.get('index.html');
      return send(res, 200, page.type, page.body, access.setCookie ? { 'set-cookie': tokenCookie(boundPort, token) } : {});
    }
    const asset = /^\/static\/([\w.-]+)$/.exec(path)?.[1];
    if (asset !== undefined && isStaticFile(asset)) {
      const file = files.get(asset);
      return send(res, 200, file.type, file.body);
    }
    if (path === '/api/plans') return sendJson(res, 200, listData(project, plansDir));
    const plan = /^\/api\/plans\/([^/]+)(\/diff)?$/.exec(path);
    if (plan) {
      const planId = plan[1]!;
      if (!isPlanId(planId)) return sendError(res, 404, noPlan(planId));
      const data = plan[2] ? diffData(plansDir, planId, url.searchParams.get('step')) : planData(plansDir, planId);
      return data.status === 200 ? sendJson(res, 200, data.body) : sendError(res, data.status, data.error);
    }
    if (path === '/api/events') {
      const follow = url.searchParams.get('plan') ?? undefined;
      if (follow !== undefined && !isPlanId(follow)) return sendError(res, 400, `Expected ?plan= to be a plan_id, got ${JSON.stringify(clip(follow))}.`);
      const close = openEventStream(req, res, watcher, follow, project);
      streams.add(close);
      req.on('close', () => streams.delete(close));
      return;
    }
    sendError(res, 404, `No such page: ${JSON.stringify(clip(path))}.`);
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new UiError(`Could not start the plan viewer on ${LOOPBACK}:${port} (${error.code ?? error.message}); choose another port (0 = any free port).`)),
    );
    server.listen(port, LOOPBACK, () => resolve());
  });
  const address = server.address();
  boundPort = typeof address === 'object' && address ? address.port : port;
  server.on('error', (error) => log('warn', `plan viewer: ${error.message}`));

  let stopped: Promise<void> | undefined;
  return {
    url: `http://${LOOPBACK}:${boundPort}/?token=${token}`,
    port: boundPort,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        watcher.stop();
        for (const close of streams) close();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return stopped;
    },
  };
}

const noPlan = (planId: string) => `No plan ${JSON.stringify(clip(planId))}: expected plan_ followed by 26 ULID characters.`;
const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
