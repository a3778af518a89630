// Packs this project with `npm pack` and installs the tarball where OpenCode 1.18 looks for a
// plugin given by bare npm name, without any network, so a test can load the plugin exactly as
// a user's `"plugin": ["opencode-orca-statecharts"]` would.
//
// How OpenCode 1.18.33 resolves `"plugin": ["NAME"]` (read from the binary and verified by running it):
//   resolvePluginTarget("NAME") → Npm.add("NAME@latest") → dir = $XDG_CACHE_HOME/opencode/packages/NAME@latest;
//   if dir/node_modules/NAME exists it is used as is (no registry request); otherwise @npmcli/arborist
//   installs NAME@latest from the npm registry into dir. The entry comes from that package.json's
//   `exports["./server"]`, else `main` (`exports["."]` is ignored; without either the plugin is skipped
//   silently). Config dirs' node_modules (<project>/.opencode, ~/.config/opencode) are NOT consulted
//   for npm-named plugins.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { rememberPort } from './fresh-port.js';
import { projectRoot, xdgDirs } from './opencode-sandbox.js';

export type PackedProject = {
  name: string;
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Paths inside the package, as `npm pack` listed them (e.g. `dist/index.js`). */
  files: string[];
  /** Removes the temp dir holding the tarball. */
  remove(): void;
};

/**
 * `npm pack` of the project as it is on disk (dist must have been built: `npm test` builds it).
 * Fails with a clear message when dist is missing or older than src.
 */
export function packProject(): PackedProject {
  assertDistFresh();
  const dir = mkdtempSync(join(tmpdir(), 'orca-e2e-pack-'));
  try {
    // --ignore-scripts: packing must not rebuild or run anything; --offline: it needs no registry.
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--offline', '--pack-destination', dir], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    const [info] = JSON.parse(out.slice(out.indexOf('['))) as { name: string; version: string; filename: string; files: { path: string }[] }[];
    if (!info) throw new Error(`Expected \`npm pack --json\` to describe one tarball, got: ${out}`);
    const tarball = join(dir, info.filename);
    if (!existsSync(tarball)) throw new Error(`Expected npm pack to write ${tarball}.`);
    return {
      name: info.name,
      version: info.version,
      tarball,
      files: info.files.map((f) => f.path),
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Every src/**.ts must have a dist/**.js at least as new (every other src file a copy at least as
 * new), and every dist/**.js a source; otherwise the tarball would ship stale code.
 */
export function assertDistFresh(): void {
  const src = join(projectRoot, 'src');
  const dist = join(projectRoot, 'dist');
  if (!existsSync(join(dist, 'index.js'))) {
    throw new Error(`Expected ${join(dist, 'index.js')}; build first with \`npm run build\` (\`npm test\` does).`);
  }
  const stale: string[] = [];
  for (const file of walk(src)) {
    if (file.endsWith('.d.ts')) continue;
    // TypeScript compiles to .js; anything else (the plan viewer's page, src/ui/static) is copied as it is.
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(file).mtimeMs) stale.push(relative(projectRoot, file));
  }
  for (const file of walk(dist)) {
    if (!file.endsWith('.js')) continue;
    const source = join(src, relative(dist, file));
    if (!existsSync(source.replace(/\.js$/, '.ts')) && !existsSync(source)) stale.push(`${relative(projectRoot, file)} (no source left: delete dist/ and rebuild)`);
  }
  if (stale.length > 0) {
    throw new Error(`Expected dist/ to be built from the current src/ (run \`npm run build\`), but it is stale: ${stale.join(', ')}`);
  }
}

export type CachedInstall = {
  /** OpenCode's per-package install dir: $XDG_CACHE_HOME/opencode/packages/NAME@latest */
  installDir: string;
  /** The extracted package: installDir/node_modules/NAME (a real directory, not a link). */
  packageDir: string;
  /** Runtime dependencies linked into installDir/node_modules. */
  linkedDependencies: string[];
};

/**
 * Installs the tarball where OpenCode puts a bare-named npm plugin after its own first install:
 * the package is extracted (a real dir, so its realpath stays in the cache) and each runtime
 * dependency it declares is a symlink to this project's installed copy (their own dependencies
 * then resolve from the project's node_modules). Only declared dependencies are linked, so a
 * dist import missing from package.json "dependencies" fails to load, as it would for a user.
 */
export function installIntoOpencodeCache(packed: PackedProject, homeDir: string, spec = `${packed.name}@latest`): CachedInstall {
  const installDir = join(xdgDirs(homeDir).XDG_CACHE_HOME, 'opencode', 'packages', spec);
  const modules = join(installDir, 'node_modules');
  const packageDir = join(modules, packed.name);
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['-xzf', packed.tarball, '-C', packageDir, '--strip-components=1']);

  const dependencies = linkDependencies(packageDir, modules);
  // What Arborist leaves behind after `add: [spec], save: true`, so the dir looks like OpenCode's own install.
  writeFileSync(join(installDir, 'package.json'), JSON.stringify({ dependencies: { [packed.name]: spec.slice(packed.name.length + 1) } }, null, 2) + '\n');
  return { installDir, packageDir, linkedDependencies: dependencies };
}

/**
 * Installs the tarball into a config dir (e.g. <project>/.opencode) the way `npm install` would
 * leave it: node_modules/NAME extracted, its runtime dependencies linked beside it, and NAME listed
 * in package.json and in package-lock.json's root entry (so OpenCode's background dependency
 * check of that dir is satisfied and installs nothing). OpenCode 1.18 does not load npm-named
 * plugins from here; tests use this as the control that proves it.
 */
export function installIntoConfigDir(packed: PackedProject, configDir: string, pluginVersion: string): string {
  const modules = join(configDir, 'node_modules');
  const packageDir = join(modules, packed.name);
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['-xzf', packed.tarball, '-C', packageDir, '--strip-components=1']);
  linkDependencies(packageDir, modules);
  const dependencies = { '@opencode-ai/plugin': pluginVersion, [packed.name]: packed.version };
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies }, null, 2) + '\n');
  writeFileSync(
    join(configDir, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, requires: true, packages: { '': { dependencies } } }, null, 2) + '\n',
  );
  return packageDir;
}

// Links each dependency the extracted package declares to this project's installed copy.
function linkDependencies(packageDir: string, modules: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const dependencies = Object.keys(manifest.dependencies ?? {});
  for (const dep of dependencies) {
    const installed = join(projectRoot, 'node_modules', dep);
    if (!existsSync(join(installed, 'package.json'))) {
      throw new Error(`Expected runtime dependency ${dep} installed at ${installed}; run \`npm install\`.`);
    }
    const link = join(modules, dep);
    if (existsSync(link)) continue; // e.g. the @opencode-ai/plugin link seedConfigDir made
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(installed, link, 'dir');
  }
  return dependencies;
}

export type FakeRegistry = {
  /** e.g. http://127.0.0.1:PORT/ — give it to OpenCode as npm_config_registry. */
  url: string;
  /** `METHOD path` of every request received. */
  requests: string[];
  close(): Promise<void>;
};

/**
 * A registry that knows no package: every request is recorded and answered 404 at once. Pointing
 * OpenCode's npm client at it means any install attempt fails fast, offline, and visibly.
 */
export async function startFakeRegistry(): Promise<FakeRegistry> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not found (orca e2e offline registry)' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  rememberPort(port);
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Env for the server so every npm operation OpenCode attempts goes to `registry` and nowhere else. */
export function offlineNpmEnv(registry: FakeRegistry): Record<string, string> {
  return {
    npm_config_registry: registry.url,
    npm_config_fetch_retries: '0',
    npm_config_fetch_timeout: '5000',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
