// Starts the real `opencode serve` binary hermetically (see NOTES-opencode.md) and hands a
// test everything it needs to drive it: URL, SDK client, timed fetch, logs, stop and kill -9.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createOpencodeClient, type OpencodeClient } from '@opencode-ai/sdk/v2';
import { buildOpencodeConfig } from './opencode-config.js';
import { spawnOpencode } from './opencode-process.js';
import { createSandbox, xdgDirs } from './opencode-sandbox.js';
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
  /** git-initialise a fresh project dir (default true), as a user's project would be. */
  git?: boolean;
  env?: Record<string, string>;
  /** Sets OPENCODE_SERVER_PASSWORD; fetch and client then send basic auth. */
  password?: string;
  /** Server log level (`--log-level`); DEBUG shows plugin loading and config resolution. */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
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

export async function startOpencode(options: StartOpencodeOptions): Promise<OpencodeServer> {
  const sandbox = createSandbox({ homeDir: options.homeDir, projectDir: options.projectDir, git: options.git });
  const removeSandbox = () => {
    if (!process.env.ORCA_E2E_KEEP && sandbox.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
  };
  const args = ['serve', '--hostname', '127.0.0.1', '--port', '0', '--print-logs'];
  if (options.logLevel) args.push('--log-level', options.logLevel);
  const child = spawnOpencode({
    args,
    cwd: sandbox.projectDir,
    env: serverEnv(sandbox.homeDir, buildOpencodeConfig(options), options),
    startTimeoutMs: options.startTimeoutMs ?? 20_000,
  });
  const url = await child.ready.catch(async (error: unknown) => {
    await child.exited;
    removeSandbox();
    throw error;
  });

  const auth: Record<string, string> = options.password
    ? { authorization: `Basic ${Buffer.from(`opencode:${options.password}`).toString('base64')}` }
    : {};
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const timedFetch = (input: string | URL | Request, init: RequestInit & { timeoutMs?: number } = {}) =>
    fetchWithTimeout(input, { timeoutMs: requestTimeoutMs, ...init });
  const { projectDir, homeDir } = sandbox;

  return {
    url,
    port: Number(new URL(url).port),
    projectDir,
    homeDir,
    options: { ...options, projectDir, homeDir },
    logs: child.logs,
    fetch: (path, init = {}) => timedFetch(projectUrl(url, path, projectDir, init.method), withHeaders(init, auth, projectDir)),
    client: createOpencodeClient({
      baseUrl: url,
      directory: projectDir,
      headers: auth,
      fetch: (input, init) => timedFetch(input, init),
    }),
    exited: child.exited,
    async stop({ keepFiles = false } = {}) {
      await child.terminate();
      if (!keepFiles) removeSandbox();
    },
    kill9: child.kill9,
  };
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
