// A throwaway HOME and project for one OpenCode server, so tests never read or write the
// developer's real config, data or caches and never reach the network.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file's location (test/support/ → ../..). */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export type Sandbox = {
  /** Temp dir created for this sandbox, or undefined when the caller supplied both dirs. */
  rootDir: string | undefined;
  homeDir: string;
  projectDir: string;
};

/**
 * The `opencode` binary every test server runs: `ORCA_OPENCODE_BIN` when set (another OpenCode release, e.g.
 * `npm install --ignore-scripts opencode-linux-x64@1.18.20` in a folder of its own, then its
 * `node_modules/opencode-linux-x64/bin/opencode`; docs/development.md), else the pinned devDependency's.
 * Read at every spawn, so a file may set it for the servers of its own (test/e2e/opencode-versions.e2e.test.ts).
 */
export function opencodeBinary(): string {
  const override = process.env.ORCA_OPENCODE_BIN;
  if (override) {
    if (!existsSync(override)) throw new Error(`Expected the opencode binary ORCA_OPENCODE_BIN names at ${override}, but there is none.`);
    return override;
  }
  const path = join(projectRoot, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');
  if (!existsSync(path)) {
    throw new Error(`Expected the opencode binary at ${path}; run \`npm install\` (devDependency opencode-ai).`);
  }
  return path;
}

/** The installed @opencode-ai/plugin version, which must match the server's. */
export function pluginPackageVersion(): string {
  const manifest = join(projectRoot, 'node_modules', '@opencode-ai', 'plugin', 'package.json');
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

export function createSandbox({ homeDir, projectDir, git = true }: { homeDir?: string; projectDir?: string; git?: boolean }): Sandbox {
  const rootDir = homeDir && projectDir ? undefined : mkdtempSync(join(tmpdir(), 'orca-e2e-'));
  const home = homeDir ?? join(rootDir!, 'home');
  const project = projectDir ?? join(rootDir!, 'project');
  for (const dir of [home, join(home, 'tmp'), project, ...Object.values(xdgDirs(home))]) mkdirSync(dir, { recursive: true });
  if (git && !projectDir && !existsSync(join(project, '.git'))) initGitRepo(project);
  for (const dir of configDirs(home, project)) seedConfigDir(dir);
  writeIfMissing(join(home, '.npmrc'), OFFLINE_NPMRC);
  return { rootDir, homeDir: home, projectDir: project };
}

export function xdgDirs(home: string) {
  return {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
}

/**
 * Orca's worktrees folder in a sandbox home (real path, as `git worktree list` names it), or, given a
 * repository's folder, that repository's own folder in it: `<12 hex of the SHA-1 of the real path of its
 * git directory>` (src/workspace/support.ts). Several repositories share a home: count one's slots there.
 */
export function orcaWorktrees(home: string, repoDir?: string): string {
  const root = join(realpathSync(xdgDirs(home).XDG_DATA_HOME), 'opencode-orca', 'worktrees');
  return repoDir === undefined ? root : join(root, createHash('sha1').update(realpathSync(join(repoDir, '.git'))).digest('hex').slice(0, 12));
}

/**
 * The server's whole environment, built from scratch: an inherited OPENCODE_* variable or
 * provider key would break isolation. `extra` (config, password, a test's own vars) wins.
 */
export function hermeticEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: home,
    ...xdgDirs(home),
    TMPDIR: join(home, 'tmp'), // OpenCode keeps scratch files in $TMPDIR/opencode
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_EMBEDDED_WEB_UI: '1',
    OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: '1',
    ...extra,
  };
}

/**
 * What a test server's environment adds to the hermetic one for its catalog and allocator (see
 * StartOpencodeOptions.modelCatalog and .allocator): by default an empty catalog and the C library's allocator.
 */
export function serverTuning(home: string, { modelCatalog = 'empty', allocator = 'system' }: { modelCatalog?: 'empty' | 'opencode'; allocator?: 'system' | 'bun' } = {}): Record<string, string> {
  return {
    ...(modelCatalog === 'empty' ? { OPENCODE_MODELS_PATH: emptyModelCatalog(home) } : {}),
    ...(allocator === 'system' ? { Malloc: '1' } : {}),
  };
}

/** An empty models.dev catalog in the sandbox's home, for OPENCODE_MODELS_PATH (read instead of OpenCode's bundled one). */
function emptyModelCatalog(home: string): string {
  const path = join(home, 'models-catalog.json');
  writeIfMissing(path, '{}\n');
  return path;
}

/** Every dir OpenCode treats as a config dir for this project (ConfigPaths.directories in 1.18). */
export function configDirs(home: string, project: string): string[] {
  return [join(xdgDirs(home).XDG_CONFIG_HOME, 'opencode'), join(project, '.opencode')];
}

/**
 * OpenCode installs @opencode-ai/plugin into every config dir and plugin loading waits for it
 * (≈ 70 s offline). It skips the install when node_modules exists and package-lock's root
 * entry lists every package.json dependency, so seed exactly that. node_modules is a real dir
 * holding a symlink to the installed package, so a stray install can never prune our tree.
 */
export function seedConfigDir(dir: string): void {
  const version = pluginPackageVersion();
  const dependencies = { '@opencode-ai/plugin': version };
  mkdirSync(join(dir, 'node_modules', '@opencode-ai'), { recursive: true });
  writeJsonIfMissing(join(dir, 'package.json'), { dependencies });
  writeJsonIfMissing(join(dir, 'package-lock.json'), {
    lockfileVersion: 3,
    requires: true,
    packages: { '': { dependencies } },
  });
  const link = join(dir, 'node_modules', '@opencode-ai', 'plugin');
  if (!existsSync(link)) symlinkSync(join(projectRoot, 'node_modules', '@opencode-ai', 'plugin'), link, 'dir');
}

/**
 * The sandbox user's npm registry: a port nothing listens on. OpenCode installs packages (its plugin
 * package into a config folder it finds unseeded, an npm plugin) with npm's configuration, ~/.npmrc
 * included: an install a test did not mean never reaches the public registry (tests must never need
 * the internet; a slot's install once took 9 s per slot that way). It stalls as offline instead, so the
 * test shows it (config.e2e without the slot's placed install: timed out at 60 s). A file that installs
 * on purpose writes its own registry there (package.e2e: writeUserNpmrc).
 */
const OFFLINE_NPMRC = 'registry=http://127.0.0.1:9/\n';

function writeIfMissing(path: string, text: string): void {
  if (!existsSync(path)) writeFileSync(path, text);
}

function writeJsonIfMissing(path: string, value: unknown): void {
  if (!existsSync(path)) writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

// A real repo gives the project a stable id and worktree, as a user's project would have.
function initGitRepo(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=orca-e2e', '-c', 'user.email=e2e@orca.invalid', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q');
  writeFileSync(join(dir, 'README.md'), '# e2e project\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
}
