// A real npm registry (verdaccio, a devDependency) on 127.0.0.1 for one test: storage in a temp
// dir, NO uplinks, so it serves only what the test publishes into it and never reaches the
// internet. The package's whole runtime dependency tree is published into it from this project's
// installed node_modules, so `npm install`, `npx` and OpenCode's own installer resolve every
// package from it, as they would from the public registry once the package is published there.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { freshPort } from './fresh-port.js';
import { projectRoot } from './opencode-sandbox.js';
import { fetchWithTimeout } from './wait-for.js';

export type LocalRegistry = {
  /** e.g. http://127.0.0.1:PORT/ (what `registry=` in an .npmrc names). */
  url: string;
  /** `STATUS METHOD /path` of every request verdaccio answered, oldest first. */
  requests(): string[];
  /** Everything verdaccio wrote to stdout and stderr. */
  logs(): string;
  /** Registers a user (as `npm adduser` does) and returns the token npm sends to publish. */
  addUser(name?: string): Promise<string>;
  /** SIGTERM to its process group (SIGKILL after 3 s), then removes its storage. */
  close(): Promise<void>;
};

const READY_LINE = /http address - (http:\/\/127\.0\.0\.1:\d+\/)/;

// Process groups still alive when the test process exits are killed so no registry outlives a run.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
});

/** Starts verdaccio on a fresh port of 127.0.0.1 and resolves once it listens (its "http address" line). */
export async function startRegistry({ startTimeoutMs = 30_000 } = {}): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'orca-registry-'));
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freshPort();
      const started = await launch(dir, port, startTimeoutMs).catch((error: Error) => error);
      if (!(started instanceof Error)) return started;
      // Another process may take the port between the probe and verdaccio's bind: try another.
      if (attempt >= 3 || !/EADDRINUSE/.test(started.message)) throw started;
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function launch(dir: string, port: number, startTimeoutMs: number): Promise<LocalRegistry> {
  const config = join(dir, 'config.yaml');
  // No `uplinks` and no `proxy` on any package: a name not published here is a 404, never a fetch.
  // max_body_size: a publish carries its tarball in the body (effect's is ~11 MB once base64'd).
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      // Tokens are JWTs, checked with an HMAC: the default (legacy) token runs htpasswd's bcrypt on
      // every authenticated request, ~14 s of CPU for one install of the tree under load.
      'security:',
      '  api:',
      '    jwt:',
      '      sign:',
      '        expiresIn: 1h',
      'web:',
      '  enable: false',
      'max_body_size: 200mb',
      'log: { type: stdout, format: json, level: http }',
      '',
    ].join('\n'),
  );
  const bin = join(projectRoot, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (!existsSync(bin)) throw new Error(`Expected verdaccio at ${bin}; run \`npm install\` (devDependency verdaccio).`);
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, NODE_ENV: 'production' },
    detached: true, // own process group, so close() reaches anything it started
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`Expected to spawn verdaccio (${bin}), but it has no pid.`);
  const pgid = child.pid;
  liveGroups.add(pgid);
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    killGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
  });
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));

  return new Promise<LocalRegistry>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(pgid, 'SIGKILL');
      reject(new Error(`Expected verdaccio's "http address" line within ${startTimeoutMs} ms.\n--- verdaccio log ---\n${log}`));
    }, startTimeoutMs);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`Expected verdaccio to start, but it exited.\n--- verdaccio log ---\n${log}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const match = READY_LINE.exec(log);
      if (!match) return;
      clearTimeout(timer);
      const url = match[1]!;
      resolve({
        url,
        requests: () => requestsIn(log),
        logs: () => log,
        addUser: (name = 'orca-e2e') => addUser(url, name),
        async close() {
          killGroup(pgid, 'SIGTERM');
          const force = setTimeout(() => killGroup(pgid, 'SIGKILL'), 3_000);
          await exited;
          clearTimeout(force);
          rmSync(dir, { recursive: true, force: true });
        },
      });
    });
  });
}

// verdaccio logs every answered request at level "http" (25): {request: {method, url}, status}.
function requestsIn(log: string): string[] {
  const out: string[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{"level":25')) continue;
    try {
      const entry = JSON.parse(line) as { status?: number; request?: { method?: string; url?: string } };
      if (entry.request) out.push(`${entry.status} ${entry.request.method} ${decodeURIComponent(entry.request.url ?? '')}`);
    } catch {
      // a line cut by a chunk boundary: the next call sees it whole
    }
  }
  return out;
}

// What `npm adduser` sends: PUT /-/user/org.couchdb.user:NAME; verdaccio's htpasswd creates the user.
async function addUser(url: string, name: string): Promise<string> {
  const res = await fetchWithTimeout(new URL(`-/user/org.couchdb.user:${encodeURIComponent(name)}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password: `${name}-password`, type: 'user', roles: [] }),
    timeoutMs: 15_000,
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token) throw new Error(`Expected verdaccio to register user ${name}, got HTTP ${res.status}: ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * The ~/.npmrc of a user who pointed npm at the registry (`npm config set registry URL`). npm, npx
 * and OpenCode's installer (which loads npm's config with @npmcli/config: npm_config_* variables,
 * then $HOME/.npmrc) all read it. It holds no token: installing needs none.
 */
export function writeUserNpmrc(homeDir: string, registry: LocalRegistry): string {
  const path = join(homeDir, '.npmrc');
  writeFileSync(path, `registry=${registry.url}\n`);
  return path;
}

/** The npm option that gives `npm publish` the token for this registry, as a release job passes it. */
export function authTokenOption(registry: LocalRegistry, token: string): string {
  return `--${registry.url.replace(/^https?:/, '')}:_authToken=${token}`;
}

/**
 * Runs npm (or npx) as the user whose HOME is `homeDir`: only PATH and HOME are passed, so no
 * npm_config_* of the npm that runs the tests (`npm test` exports its own userconfig and cache)
 * reaches it, and the npm cache is $HOME/.npm, empty at first.
 */
export function runNpm(
  command: 'npm' | 'npx',
  args: string[],
  { cwd, homeDir, timeoutMs }: { cwd: string; homeDir: string; timeoutMs: number },
): Promise<{ stdout: string; stderr: string }> {
  const what = `\`${command} ${args.filter((a) => !a.includes('_authToken')).join(' ')}\` in ${cwd}`;
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: homeDir, LANG: process.env.LANG ?? 'C.UTF-8', TMPDIR: join(homeDir, 'tmp') },
    detached: true, // own process group: a timeout also ends what it started (npx runs the bin as a child)
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = child.pid;
  if (pgid === undefined) return Promise.reject(new Error(`Expected to spawn ${what}, but it has no pid.`));
  liveGroups.add(pgid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => killGroup(pgid, 'SIGKILL'), timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(pgid, 'SIGKILL');
      liveGroups.delete(pgid);
      if (code === 0) return resolve({ stdout, stderr });
      const why = signal === 'SIGKILL' ? `it did not finish within ${timeoutMs} ms` : `it exited with ${code ?? signal}`;
      reject(new Error(`Expected ${what} to succeed, but ${why}.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    });
  });
}

export type InstalledPackage = { name: string; version: string; dir: string };

/**
 * Every package the project needs at run time, as installed in its node_modules: its
 * "dependencies", theirs, and so on, with the peer dependencies npm installs (not the optional
 * ones it skips) and the optional dependencies present on this platform. A name may appear in
 * several versions (nested copies).
 */
export function runtimeDependencyTree(root = projectRoot): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const visit = (fromDir: string, name: string, optional: boolean) => {
    const dir = resolveInstalled(fromDir, name);
    if (!dir) {
      if (optional) return; // an optional dependency for another platform, or an optional peer
      throw new Error(`Expected ${name} (needed by ${fromDir}) installed under ${root}/node_modules; run \`npm install\`.`);
    }
    const manifest = readManifest(dir);
    const key = `${manifest.name}@${manifest.version}`;
    if (found.has(key)) return;
    found.set(key, { name: manifest.name, version: manifest.version, dir });
    for (const [dep, isOptional] of dependencyNames(manifest)) visit(dir, dep, isOptional);
  };
  for (const [dep, isOptional] of dependencyNames(readManifest(root), { peers: false })) visit(root, dep, isOptional);
  return [...found.values()];
}

type Manifest = {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bundleDependencies?: unknown;
  bundledDependencies?: unknown;
};

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

function dependencyNames(manifest: Manifest, { peers = true } = {}): [string, boolean][] {
  const out = new Map<string, boolean>();
  for (const name of Object.keys(manifest.dependencies ?? {})) out.set(name, false);
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) out.set(name, true);
  if (peers) {
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      if (!out.has(name)) out.set(name, manifest.peerDependenciesMeta?.[name]?.optional === true);
    }
  }
  return [...out];
}

// Node's lookup: node_modules/NAME in the package's own dir, then in each dir above it.
function resolveInstalled(fromDir: string, name: string): string | undefined {
  for (let dir = realpathSync(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Publishes each installed package to the registry through the publish API npm uses (one PUT
 * per version, its tarball attached), `concurrency` at a time. The tarball is the installed
 * folder (npm installs a tarball's files as they are) without its nested node_modules.
 */
export async function publishInstalled(
  registry: LocalRegistry,
  token: string,
  packages: InstalledPackage[],
  { concurrency = 4, timeoutMs = 60_000 } = {},
): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'orca-registry-tgz-'));
  try {
    // Versions of one name go up in order, one at a time, so its "latest" tag ends on the highest.
    const byName = new Map<string, InstalledPackage[]>();
    for (const pkg of packages) byName.set(pkg.name, [...(byName.get(pkg.name) ?? []), pkg]);
    const queues = [...byName.values()].map((versions) => versions.sort((a, b) => compareVersions(a.version, b.version)));
    // The biggest first, so a large package does not start last and keep the others waiting.
    queues.sort((a, b) => sizeHint(b) - sizeHint(a));
    const next = () => queues.shift();
    const worker = async () => {
      for (let queue = next(); queue; queue = next()) {
        for (const pkg of queue) await publishOne(registry, token, pkg, scratch, timeoutMs);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// `effect` alone is ~47 MB installed: start it first.
const sizeHint = (queue: InstalledPackage[]) => (queue.some((p) => p.name === 'effect') ? 1 : 0);

async function publishOne(registry: LocalRegistry, token: string, pkg: InstalledPackage, scratch: string, timeoutMs: number): Promise<void> {
  const manifest = readManifest(pkg.dir);
  if (manifest.bundleDependencies || manifest.bundledDependencies) {
    throw new Error(`${pkg.name}@${pkg.version} bundles its dependencies: packing it from node_modules is not supported.`);
  }
  const file = join(scratch, `${pkg.name.replace('/', '-')}-${pkg.version}.tgz`);
  await packFolder(pkg.dir, file);
  const data = readFileSync(file);
  const filename = `${basename(pkg.name)}-${pkg.version}.tgz`;
  const body = {
    _id: pkg.name,
    name: pkg.name,
    'dist-tags': { latest: pkg.version },
    versions: {
      [pkg.version]: {
        ...manifest,
        _id: `${pkg.name}@${pkg.version}`,
        dist: {
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          tarball: new URL(`${pkg.name}/-/${filename}`, registry.url).href,
        },
      },
    },
    _attachments: { [filename]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length } },
  };
  const res = await fetchWithTimeout(new URL(pkg.name.replace('/', '%2f'), registry.url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    timeoutMs,
  });
  if (!res.ok) throw new Error(`Expected the registry to accept ${pkg.name}@${pkg.version}, got HTTP ${res.status}: ${await res.text()}`);
}

// tar's entries under package/ (what every npm tarball holds), gzip at level 1: the tarballs only
// cross the loopback, and level 6 takes twice as long for effect's 47 MB.
async function packFolder(dir: string, file: string): Promise<void> {
  const name = basename(dir);
  const tar = spawn('tar', ['-cf', '-', '--exclude=node_modules', `--transform=s,^${name.replace(/[.\\^$*[\]]/g, '\\$&')},package,`, '-C', dirname(dir), name], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => tar.once('close', resolve));
  await pipeline(tar.stdout, createGzip({ level: 1 }), createWriteStream(file));
  const code = await exited;
  if (code !== 0) throw new Error(`Expected tar to pack ${dir}, but it exited with ${code}: ${stderr}`);
}

// Enough of semver's order for installed versions: numeric parts, a prerelease before its release.
function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split('-', 2);
    return { parts: core!.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.parts[i] !== y.parts[i]) return (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
