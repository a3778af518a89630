// Starts the real `opencode serve` binary hermetically (see NOTES-opencode.md) and hands a
// test everything it needs to drive it: URL, SDK client, timed fetch, logs, stop and kill -9.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createOpencodeClient, type OpencodeClient } from '@opencode-ai/sdk/v2';
import { buildOpencodeConfig } from './opencode-config.js';
import { createSandbox, opencodeBinary, xdgDirs } from './opencode-sandbox.js';
import { fetchWithTimeout } from './wait-for.js';

export { FAKE_MODEL } from './opencode-config.js';
export { waitFor } from './wait-for.js';

export type StartOpencodeOptions = {
  /** Base URL of the scripted model, e.g. `model.url`. */
  modelUrl: string;
  /** Plugin specs: `file:///abs/dist/index.js` or a package name. */
  plugins?: string[];
  /** Deep-merged into the generated opencode config. */
  config?: Record<string, unknown>;
  /** Defaults to a fresh git-initialised temp dir. */
  projectDir?: string;
  /** Defaults to a fresh temp dir; pass the old one to restart with the same data. */
  homeDir?: string;
  env?: Record<string, string>;
  /** Sets OPENCODE_SERVER_PASSWORD; fetch and client then send basic auth. */
  password?: string;
  startTimeoutMs?: number;
  /** Default deadline for `fetch` and every SDK client request. */
  requestTimeoutMs?: number;
};

export type OpencodeServer = {
  url: string;
  port: number;
  projectDir: string;
  homeDir: string;
  options: StartOpencodeOptions;
  /** Everything the server wrote to stdout and stderr so far. */
  logs(): string;
  /** A request to the server for this project, with a deadline (`timeoutMs`, default requestTimeoutMs). */
  fetch(path: string, init?: RequestInit & { timeoutMs?: number }): Promise<Response>;
  /** A v2 SDK client bound to this project. */
  client: OpencodeClient;
  /** SIGTERM to the process group (SIGKILL after 5 s), then remove the temp dirs unless `keepFiles`. */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
  /** SIGKILL the process group and keep every file, as a crash would. */
  kill9(): Promise<void>;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
};

const READY_LINE = /opencode server listening on (http:\/\/127\.0\.0\.1:(\d+))/;

// Process groups still alive when the test process exits are killed so no server outlives a run.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
});

export async function startOpencode(options: StartOpencodeOptions): Promise<OpencodeServer> {
  const sandbox = createSandbox({ homeDir: options.homeDir, projectDir: options.projectDir });
  const config = buildOpencodeConfig(options);
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;

  const child = spawn(opencodeBinary(), ['serve', '--hostname', '127.0.0.1', '--port', '0', '--print-logs'], {
    cwd: sandbox.projectDir,
    env: serverEnv(sandbox.homeDir, config, options),
    detached: true, // own process group, so stop() also reaches its children
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = child.pid!;
  liveGroups.add(pgid);
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      liveGroups.delete(pgid);
      resolve(code ?? signal ?? 'unknown');
    }),
  );

  const url = await waitForReadyLine(child, () => log, exited, options.startTimeoutMs ?? 20_000).catch(
    async (error: Error) => {
      killGroup(pgid, 'SIGKILL');
      await exited;
      throw error;
    },
  );

  const auth = options.password
    ? { authorization: `Basic ${Buffer.from(`opencode:${options.password}`).toString('base64')}` }
    : {};
  const timedFetch = (input: string | URL | Request, init: RequestInit & { timeoutMs?: number } = {}) =>
    fetchWithTimeout(input, { timeoutMs: requestTimeoutMs, ...init });

  const server: OpencodeServer = {
    url,
    port: Number(new URL(url).port),
    projectDir: sandbox.projectDir,
    homeDir: sandbox.homeDir,
    options: { ...options, projectDir: sandbox.projectDir, homeDir: sandbox.homeDir },
    logs: () => log,
    fetch: (path, init = {}) => timedFetch(projectUrl(url, path, sandbox.projectDir, init.method), withHeaders(init, auth, sandbox.projectDir)),
    client: createOpencodeClient({
      baseUrl: url,
      directory: sandbox.projectDir,
      headers: auth,
      fetch: (request: Request) => timedFetch(request),
    }),
    exited,
    async stop({ keepFiles = false } = {}) {
      await terminate(pgid, exited);
      if (!keepFiles && !process.env.ORCA_E2E_KEEP && sandbox.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
    },
    async kill9() {
      killGroup(pgid, 'SIGKILL');
      await exited;
    },
  };
  return server;
}

/**
 * Starts a new server on the same project and home (same sessions, plans and config dirs),
 * stopping the old one first if it is still running. `overrides` may swap e.g. the model URL.
 */
export async function restartOpencode(
  previous: OpencodeServer,
  overrides: Partial<StartOpencodeOptions> = {},
): Promise<OpencodeServer> {
  await previous.stop({ keepFiles: true });
  const next = await startOpencode({ ...previous.options, ...overrides });
  // The temp dirs belong to the first server; the last one in a restart chain removes them.
  const rootOwner = previous;
  const stopNext = next.stop;
  next.stop = async ({ keepFiles = false } = {}) => {
    await stopNext({ keepFiles: true });
    if (!keepFiles) await rootOwner.stop();
  };
  return next;
}

function serverEnv(home: string, config: Record<string, unknown>, options: StartOpencodeOptions): NodeJS.ProcessEnv {
  // Built from scratch: inherited OPENCODE_* or provider keys would break isolation.
  return {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: home,
    ...xdgDirs(home),
    TMPDIR: join(home, 'tmp'), // OpenCode keeps scratch files in $TMPDIR/opencode
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_EMBEDDED_WEB_UI: '1',
    OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: '1',
    ...(options.password ? { OPENCODE_SERVER_PASSWORD: options.password } : {}),
    ...options.env,
  };
}

// Readiness is the stdout line, never a health poll: a request accepted during start-up can hang.
function waitForReadyLine(
  child: ChildProcess,
  logs: () => string,
  exited: Promise<number | string>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Expected "opencode server listening on …" within ${timeoutMs} ms.\n--- server log ---\n${logs()}`)),
      timeoutMs,
    );
    const onData = () => {
      const match = READY_LINE.exec(logs());
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`Expected opencode serve to start, but it exited (${code}).\n--- server log ---\n${logs()}`));
    });
  });
}

function projectUrl(base: string, path: string, directory: string, method = 'GET'): string {
  const url = new URL(path, base);
  // The SDK moves the directory into the query for GET/HEAD; do the same.
  if ((method === 'GET' || method === 'HEAD') && !url.searchParams.has('directory')) {
    url.searchParams.set('directory', directory);
  }
  return url.toString();
}

function withHeaders(init: RequestInit, auth: Record<string, string>, directory: string): RequestInit {
  const headers = new Headers(init.headers);
  headers.set('x-opencode-directory', encodeURIComponent(directory));
  for (const [name, value] of Object.entries(auth)) headers.set(name, value);
  if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return { ...init, headers };
}

async function terminate(pgid: number, exited: Promise<number | string>): Promise<void> {
  if (!liveGroups.has(pgid)) return;
  killGroup(pgid, 'SIGTERM');
  const timer = setTimeout(() => killGroup(pgid, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  killGroup(pgid, 'SIGKILL'); // children the server left behind
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
