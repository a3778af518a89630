// Starts the real `opencode serve` binary hermetically (see NOTES-opencode.md) and hands a
// test everything it needs to drive it: URL, SDK client, timed fetch, logs, stop and kill -9.
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpencodeClient, type OpencodeClient } from '@opencode-ai/sdk/v2';
import { recordGlobalEvents, type EventLog } from './event-log.js';
import type { SharedServer } from './shared-opencode.js';
import { buildOpencodeConfig } from './opencode-config.js';
import { launchOpencode } from './opencode-process.js';
import { createSandbox, hermeticEnv, serverTuning, type Sandbox } from './opencode-sandbox.js';
import { fetchWithTimeout } from './wait-for.js';

export { FAKE_MODEL } from './opencode-config.js';
export { waitFor } from './wait-for.js';

export type StartOpencodeOptions = {
  /** Base URL of the scripted model, e.g. `model.url`. */
  modelUrl: string;
  /**
   * `"own"` (the default): a server process of this file's own. `"shared"`: a project of its own on the
   * shared server of this vitest worker (test/support/shared-opencode.ts), its config in the project's
   * `.opencode/opencode.json` instead of the server's environment: no server start to pay (about 3.3 s of
   * CPU). Its `homeDir` is the shared server's (every shared project's sessions and worktree slots), its
   * `logs()` every project's lines since it opened, and it cannot be killed or restarted, nor take the
   * options of a server process (env, password, logLevel, homeDir, modelCatalog, allocator, startTimeoutMs).
   * A project folder the file passes must not hold an `.opencode/opencode.json` of its own.
   */
  server?: 'own' | 'shared';
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
  /**
   * Boot the project's instance before returning (default true): plugins load then, so a
   * broken plugin fails the start with its error instead of silently missing tools later.
   */
  boot?: boolean;
  /**
   * Start Orca's built plugin (dist/index.js) with its own defaults. Without this, e2e files get
   * `ask_planner_returns: "outcome"` and no verifying turn unless they set them (see withBlockingCalls).
   */
  orcaDefaults?: boolean;
  /**
   * OpenCode's own file snapshots of the project around each model step (its undo). Off unless set, or
   * unless `orcaDefaults`: Orca never reads them, and they cost about half the suite's CPU (a git capture
   * per model step, in OpenCode's process). The files that prove Orca as a user runs it keep them on.
   */
  opencodeSnapshots?: boolean;
  /**
   * OpenCode's catalog of every provider's models (models.dev, bundled in the binary): `"empty"` (the
   * default) starts the server with an empty one, `"opencode"` with OpenCode's own, as a user has it.
   * Each OpenCode instance (each directory: the project, each worktree slot) builds the catalog on its
   * first prompt, about 2.5 s of CPU on this machine; the scripted model is a provider of the config
   * and needs none of it. The bench and the demo keep OpenCode's catalog: they measure what a user pays.
   */
  modelCatalog?: 'empty' | 'opencode';
  /**
   * Whose allocator JavaScriptCore uses in the server: `"system"` (the default) sets `Malloc=1`, which
   * makes it allocate from the C library instead of its own heaps (bmalloc/libpas); `"bun"` keeps them,
   * as a user runs OpenCode. Bun's heaps give freed pages back to the kernel and fault them in again at
   * a high rate (about 680 madvise calls per prompt, TLB flushes and page faults: a fifth of the
   * server's CPU, measured with strace and perf): with the C library's allocator a prompt's system
   * time falls from about 30 ms to 12 and the e2e files' servers use a quarter less CPU
   * (`bench/probes/allocator-cpu.ts`, docs/development.md).
   * The bench and the demo keep Bun's: they measure what a user pays.
   */
  allocator?: 'system' | 'bun';
};

/**
 * Orca's built plugin, as the e2e files and the demo load it (scripts/relay.ts loads a copy elsewhere):
 * a file's `index.js` whose folder's parent holds Orca's package.json, so a build copied under another
 * name (an older build beside dist/, for an A/B bench) gets the same pinned options.
 */
function isBuiltOrca(spec: unknown): boolean {
  if (typeof spec !== 'string' || !spec.startsWith('file://') || !spec.endsWith('/index.js')) return false;
  const manifest = join(dirname(fileURLToPath(spec)), '..', 'package.json');
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === ORCA_PACKAGE;
  } catch {
    return false;
  }
}
const ORCA_PACKAGE = 'opencode-orca-statecharts';

/**
 * The e2e files follow one orca_ask_planner call to its outcome and read its result, their gates
 * answered during the call: `ask_planner_returns: "outcome"`. Orca's default ("early": the call
 * returns at the first gate or once the plan runs, and the session is followed with notes and
 * dialogs) is what the files that pass `orcaDefaults` or set the option prove
 * (test/e2e/session-gates.e2e.test.ts). Options the file gives win; files in the project win over both.
 */
export function withBlockingCalls(options: StartOpencodeOptions): StartOpencodeOptions {
  // Also no verifying turn once a plan's steps landed (its scripts have no turn for it): the files about
  // the verification set `verification` themselves (test/e2e/verification.e2e.test.ts).
  const PINNED = { ask_planner_returns: 'outcome', verification: { turn: false } };
  if (options.orcaDefaults) return options;
  const blocking = (entry: unknown): unknown => {
    if (isBuiltOrca(entry)) return [entry, PINNED];
    if (Array.isArray(entry) && isBuiltOrca(entry[0])) return [entry[0], { ...PINNED, ...(entry[1] as object | undefined) }];
    return entry;
  };
  const configPlugins = Array.isArray(options.config?.plugin) ? (options.config.plugin as unknown[]).map(blocking) : undefined;
  const plugins = options.plugins ?? [];
  return {
    ...options,
    plugins: plugins.filter((spec) => !isBuiltOrca(spec)),
    config: { ...options.config, plugin: [...plugins.filter(isBuiltOrca).map(blocking), ...(configPlugins ?? [])] },
  };
}

/** OpenCode's file snapshots off unless the file asks for them or for a user's defaults; the file's own config wins. */
export function withoutSnapshots(options: StartOpencodeOptions): StartOpencodeOptions {
  if (options.opencodeSnapshots || options.orcaDefaults) return options;
  return { ...options, config: { snapshot: false, ...options.config } };
}

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
  /** Every event on GET /global/event since start-up (plugin load failures show up only here). */
  events: EventLog;
  /** Plugins that failed to load: from `session.error` events and the server log. */
  pluginErrors(): string[];
  /** SIGTERM to the process group (SIGKILL after 5 s), then remove the temp dirs unless `keepFiles`. */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
  /** SIGKILL the process group and keep every file, as a crash would. */
  kill9(): Promise<void>;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
};

export async function startOpencode(options: StartOpencodeOptions): Promise<OpencodeServer> {
  if (options.server === 'shared') return openSharedProject(options);
  const sandbox = createSandbox({ homeDir: options.homeDir, projectDir: options.projectDir, git: options.git });
  const removeSandbox = sandboxRemover(sandbox);
  const env = hermeticEnv(sandbox.homeDir, {
    ...serverTuning(sandbox.homeDir, { ...(options.modelCatalog ? { modelCatalog: options.modelCatalog } : {}), ...(options.allocator ? { allocator: options.allocator } : {}) }),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(buildOpencodeConfig(withoutSnapshots(withBlockingCalls(options)))),
    ...(options.password ? { OPENCODE_SERVER_PASSWORD: options.password } : {}),
    ...options.env,
  });
  const child = await launchOpencode({ cwd: sandbox.projectDir, env, logLevel: options.logLevel, startTimeoutMs: options.startTimeoutMs ?? 60_000 }).catch((error: unknown) => {
    removeSandbox();
    throw error;
  });
  const url = await child.ready;
  const abandon = async (error: unknown): Promise<never> => {
    await child.kill9();
    removeSandbox();
    throw error;
  };

  const auth = basicAuth(options.password);
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const timedFetch = (input: string | URL | Request, init: RequestInit & { timeoutMs?: number } = {}) =>
    fetchWithTimeout(input, { timeoutMs: requestTimeoutMs, ...init });
  const { projectDir, homeDir } = sandbox;
  const events = await recordGlobalEvents(url, auth).catch(abandon);

  const pluginErrors = () => [...events.pluginErrors(), ...pluginErrorsInLog(child.logs())];
  if (options.boot ?? true) {
    await bootInstance(url, projectDir, auth, requestTimeoutMs, pluginErrors).catch((error: Error) => {
      events.close();
      return abandon(new Error(`${error.message}\n--- server log ---\n${child.logs()}`));
    });
  }

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
    events,
    pluginErrors,
    exited: child.exited,
    async stop({ keepFiles = false } = {}) {
      events.close();
      await child.terminate();
      if (!keepFiles) removeSandbox();
    },
    async kill9() {
      await child.kill9();
      events.close();
    },
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
  if (previous.options.server === 'shared') throw new Error(NOT_SHARED('restarted'));
  if (guests.has(previous)) throw new Error(NOT_A_GUEST('restarted'));
  await previous.stop({ keepFiles: true });
  const next = await startOpencode({ ...previous.options, ...overrides });
  const stopNext = removesWithPrevious(next, previous);
  // The projects opened on the previous server (openProject) follow it.
  const followers = guestsOf.get(previous) ?? [];
  guestsOf.set(next, followers);
  await Promise.all(followers.map((follow) => follow(next))).catch(async (error: unknown) => {
    await stopNext({ keepFiles: true });
    throw error;
  });
  return next;
}

/**
 * A project on the shared server opened again with other options (its plugins' options, its config):
 * its instance ends (Orca's plugin with it), its `.opencode/opencode.json` is written anew and a new
 * instance boots on the same folder, plans, sessions and home. What a user gets by changing the
 * project's config and restarting OpenCode, without a server process of the file's own (about 3.4 s of
 * CPU each). `logs()` starts at the reopening. Not a crash: a kill needs a server of the file's own.
 */
export async function reopenProject(previous: OpencodeServer, overrides: Partial<StartOpencodeOptions> = {}): Promise<OpencodeServer> {
  if (previous.options.server !== 'shared') throw new Error('Expected a project on the shared server to reopen; restart a server of the file\'s own with restartOpencode.');
  await previous.stop({ keepFiles: true });
  // Written by openSharedProject, which never writes over a config file it did not write.
  rmSync(join(previous.projectDir, '.opencode', 'opencode.json'), { force: true });
  const next = await startOpencode({ ...previous.options, ...overrides, server: 'shared', projectDir: previous.projectDir });
  removesWithPrevious(next, previous);
  return next;
}

/**
 * The temp dirs of a restarted server or a reopened project belong to the first one: `next.stop()` stops it
 * and then has `previous` remove them (down the chain to the first). Returns next's own stop.
 */
function removesWithPrevious(next: OpencodeServer, previous: OpencodeServer): OpencodeServer['stop'] {
  const stopNext = next.stop;
  next.stop = async ({ keepFiles = false } = {}) => {
    await stopNext({ keepFiles: true });
    if (!keepFiles) await previous.stop();
  };
  return stopNext;
}

/** Options that belong to a server process: a project on the shared server cannot take them. */
const SERVER_OPTIONS = ['env', 'password', 'logLevel', 'homeDir', 'modelCatalog', 'allocator', 'startTimeoutMs'] as const;
const NOT_SHARED = (what: string) => `Expected a server of the file's own to be ${what}: this project is on the shared server; start it with server: 'own'.`;

/** A project of the file's own on its worker's shared server (see StartOpencodeOptions.server). */
async function openSharedProject(options: StartOpencodeOptions): Promise<OpencodeServer> {
  const given = SERVER_OPTIONS.filter((name) => options[name] !== undefined);
  if (given.length > 0) throw new Error(`Expected no ${given.join(', ')} for a project on the shared server: they are a server process's; start it with server: 'own'.`);
  const shared = await sharedServer();
  const sandbox = createSandbox({ homeDir: shared.homeDir, projectDir: options.projectDir, git: options.git });
  const { projectDir } = sandbox;
  const removeSandbox = sandboxRemover(sandbox);
  // Where OpenCode reads a project's config (its instance for this directory only); never over one the file wrote.
  const configPath = join(projectDir, '.opencode', 'opencode.json');
  if (existsSync(configPath)) {
    removeSandbox();
    throw new Error(`Expected no ${configPath} in a project on the shared server: its OpenCode config goes there; pass it as \`config\`, or start it with server: 'own'.`);
  }
  writeFileSync(configPath, JSON.stringify(buildOpencodeConfig(withoutSnapshots(withBlockingCalls(options))), null, 2) + '\n');
  const logFrom = statSync(shared.logPath).size;
  const logs = () => readFileSync(shared.logPath).subarray(logFrom).toString('utf8');
  const { close, ...link } = await linkProject({
    url: shared.url,
    auth: {},
    projectDir,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    boot: options.boot ?? true,
    logs,
    logHeading: "server log (every shared project's)",
  }).catch((error: unknown) => {
    removeSandbox();
    throw error;
  });
  return {
    ...link,
    projectDir,
    homeDir: shared.homeDir,
    options: { ...options, projectDir },
    logs,
    exited: new Promise(() => {}),
    async stop({ keepFiles = false } = {}) {
      await close();
      if (!keepFiles) removeSandbox();
    },
    async kill9() {
      throw new Error(NOT_SHARED('killed'));
    },
  };
}

export type OpenProjectOptions = Pick<StartOpencodeOptions, 'projectDir' | 'git' | 'boot' | 'requestTimeoutMs'>;

/** Projects opened on a server (openProject), each re-opened on the server that restarts it. */
const guestsOf = new WeakMap<OpencodeServer, Array<(next: OpencodeServer) => Promise<void>>>();
/** What openProject returned: a project, not a server process. */
const guests = new WeakSet<OpencodeServer>();
const NOT_A_GUEST = (what: string) => `Expected a server of the file's own to be ${what}: this project was opened on one (openProject); ${what === 'killed' ? 'kill' : 'restart'} that one, its projects follow.`;

/**
 * Another project folder on a server of the file's own (`owner`, from startOpencode): a file that needs
 * several projects (each its own git repository, its own sessions and plans) pays one server start (about
 * 3.4 s of CPU) for all of them. Every request carries the project's directory and its `events` are its
 * directory's only, as on the shared server; its OpenCode config is the owner's (OPENCODE_CONFIG_CONTENT
 * applies to every directory the server serves). Its `homeDir` is the owner's (every project's sessions and
 * worktree slots), its `logs()` the owner's whole log. It follows its owner: `restartOpencode(owner)`
 * re-opens it on the restarted server (the same object, its url, client and events then the new server's).
 * It cannot be killed or restarted itself (kill or restart its owner); `stop()` ends its instance and removes
 * the folder it made (not one the file passed as `projectDir`). Stopping the owner does not: stop each project too.
 */
export async function openProject(owner: OpencodeServer, options: OpenProjectOptions = {}): Promise<OpencodeServer> {
  if (owner.options.server === 'shared' || guests.has(owner)) {
    throw new Error("Expected a server of the file's own (startOpencode, server: 'own') to open a project on; this is a project on another server.");
  }
  const sandbox = createSandbox({ homeDir: owner.homeDir, projectDir: options.projectDir, git: options.git });
  const { projectDir } = sandbox;
  const removeSandbox = sandboxRemover(sandbox);
  let host = owner;
  const linkTo = (server: OpencodeServer) =>
    linkProject({
      url: server.url,
      auth: basicAuth(server.options.password),
      projectDir,
      requestTimeoutMs: options.requestTimeoutMs ?? server.options.requestTimeoutMs ?? 60_000,
      boot: options.boot ?? true,
      logs: server.logs,
      logHeading: 'server log',
    });
  let { close, ...link } = await linkTo(owner).catch((error: unknown) => {
    removeSandbox();
    throw error;
  });
  const follow = async (next: OpencodeServer) => {
    link.events.close(); // its server is gone: nothing to dispose
    ({ close, ...link } = await linkTo(next));
    host = next;
    Object.assign(project, link, { exited: next.exited });
  };
  const project: OpencodeServer = {
    ...link,
    projectDir,
    homeDir: owner.homeDir,
    options: { ...owner.options, ...options, projectDir },
    logs: () => host.logs(),
    exited: owner.exited,
    async stop({ keepFiles = false } = {}) {
      const followers = guestsOf.get(host) ?? [];
      if (followers.includes(follow)) followers.splice(followers.indexOf(follow), 1);
      await close();
      if (!keepFiles) removeSandbox();
    },
    async kill9() {
      throw new Error(NOT_A_GUEST('killed'));
    },
  };
  guests.add(project);
  guestsOf.set(owner, [...(guestsOf.get(owner) ?? []), follow]);
  return project;
}

type ProjectLink = Pick<OpencodeServer, 'url' | 'port' | 'fetch' | 'client' | 'events' | 'pluginErrors'> & {
  /** Ends its instance (Orca's plugin with it) on the server, waits until OpenCode says it ended, then stops recording its events. */
  close(): Promise<void>;
};

/**
 * A project folder on a running server that serves other folders too (the shared server, a project
 * opened on a file's own): requests carry its directory, its events are its directory's only, and
 * (with `boot`) its instance is booted, failing with the plugins' errors and the server's log.
 */
async function linkProject({ url, auth, projectDir, requestTimeoutMs, boot, logs, logHeading }: {
  url: string;
  auth: Record<string, string>;
  projectDir: string;
  requestTimeoutMs: number;
  boot: boolean;
  logs: () => string;
  logHeading: string;
}): Promise<ProjectLink> {
  const timedFetch = (input: string | URL | Request, init: RequestInit & { timeoutMs?: number } = {}) =>
    fetchWithTimeout(input, { timeoutMs: requestTimeoutMs, ...init });
  const events = await recordGlobalEvents(url, auth, { directory: projectDir });
  const pluginErrors = () => [...events.pluginErrors(), ...pluginErrorsInLog(logs())];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const asked = Date.now();
    // Its instance (Orca's plugin with it) ends before its folder goes. OpenCode answers the request before the
    // plugins' dispose hooks have run (Orca released its plans' leases 50-90 ms later, measured) and says it is
    // over with `server.instance.disposed`: a folder removed before that had a plan file written into it
    // (ENOTEMPTY in CI). No answer means the server is gone, with nothing of the instance left to wait for.
    const disposed = await timedFetch(projectUrl(url, '/instance/dispose', projectDir, 'POST'), withHeaders({ method: 'POST' }, auth, projectDir)).then(
      (res) => res.ok,
      () => false,
    );
    try {
      if (disposed) await events.next('server.instance.disposed', (event) => event.at >= asked, { timeoutMs: 15_000, description: `OpenCode's "server.instance.disposed" for ${projectDir}` });
    } finally {
      events.close();
    }
  };
  if (boot) {
    await bootInstance(url, projectDir, auth, requestTimeoutMs, pluginErrors).catch(async (error: Error) => {
      await close();
      throw new Error(`${error.message}\n--- ${logHeading} ---\n${logs()}`);
    });
  }
  return {
    url,
    port: Number(new URL(url).port),
    fetch: (path, init = {}) => timedFetch(projectUrl(url, path, projectDir, init.method), withHeaders(init, auth, projectDir)),
    client: createOpencodeClient({ baseUrl: url, directory: projectDir, headers: auth, fetch: (input, init) => timedFetch(input, init) }),
    events,
    pluginErrors,
    close,
  };
}

/** Removes a sandbox's temp dir (none when the caller gave both dirs), unless ORCA_E2E_KEEP is set. */
function sandboxRemover(sandbox: Sandbox): () => void {
  return () => {
    if (process.env.ORCA_DEBUG_RM && sandbox.rootDir) {
      const marker = `/tmp/rm-marker-${Date.now()}`;
      writeFileSync(marker, '');
      execSync('sleep 3');
      const out = execSync(`find ${sandbox.rootDir}/project -newer ${marker} -printf '%T@ %p\\n' | head -50`).toString();
      appendFileSync('/tmp/rm-debug.log', `--- ${process.env.ORCA_DEBUG_RM} ${sandbox.rootDir}\n${out}`);
    }
    if (!process.env.ORCA_E2E_KEEP && sandbox.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
  };
}

/** The headers of a server started with OPENCODE_SERVER_PASSWORD (none without one). */
function basicAuth(password: string | undefined): Record<string, string> {
  return password ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}` } : {};
}

/** The shared server of this vitest worker, provided by the e2e project's globalSetup. */
async function sharedServer(): Promise<SharedServer> {
  const { inject } = await import('vitest');
  const servers = inject('sharedOpencode') as SharedServer[] | undefined;
  if (!servers?.length) throw new Error("Expected the e2e project's globalSetup (test/support/shared-opencode.ts) to provide shared servers; run the file with vitest's e2e project.");
  const worker = Number(process.env.VITEST_POOL_ID);
  const server = servers[worker - 1];
  if (!server) throw new Error(`Expected a shared server for vitest worker ${process.env.VITEST_POOL_ID} (VITEST_POOL_ID), but ${servers.length} were started.`);
  return server;
}

// The first request for a directory boots its instance and loads the plugins; a failed import
// is published as an event a moment later, so give it a short grace period to arrive.
async function bootInstance(
  url: string,
  directory: string,
  auth: Record<string, string>,
  timeoutMs: number,
  pluginErrors: () => string[],
): Promise<void> {
  const res = await fetchWithTimeout(projectUrl(url, '/agent', directory), { headers: auth, timeoutMs });
  if (!res.ok) throw new Error(`Expected GET /agent to boot the instance, got HTTP ${res.status}: ${await res.text()}`);
  await new Promise((resolve) => setTimeout(resolve, PLUGIN_ERROR_GRACE_MS));
  const errors = pluginErrors();
  if (errors.length > 0) throw new Error(`Expected every plugin to load, but:\n${errors.join('\n')}`);
}

const PLUGIN_ERROR_GRACE_MS = 100;

// A plugin function that throws is logged (not evented): message="failed to load plugin" path=… error="…"
function pluginErrorsInLog(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => line.includes('message="failed to load plugin"'))
    .map((line) => line.replace(/^.*message="failed to load plugin"\s*/, 'Failed to load plugin: '));
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
