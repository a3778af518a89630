import { accessSync, constants, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { manifestOf, packageRootOf, type PluginEntry } from './opencode-config.js';
import { PACKAGE_NAME } from './package-info.js';

type Env = Record<string, string | undefined>;

/** The opencode binary a user of this project runs: the project's own, else the one on PATH. */
export function findOpencode(project: string, env: Env): { path: string; where: string } | undefined {
  const local = join(project, 'node_modules', '.bin', 'opencode');
  if (existsSync(local)) return { path: local, where: "the project's node_modules/.bin/opencode" };
  const names = process.platform === 'win32' ? ['opencode.cmd', 'opencode.exe'] : ['opencode'];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return { path, where: `opencode on PATH, ${path}` };
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** `opencode --version`, e.g. "1.18.33". Throws with the tool's own output when it fails. */
export function opencodeVersion(path: string, env: Env): string {
  const out = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'], env });
  return out.trim().split('\n').at(-1)?.trim() ?? '';
}

/** Where OpenCode loads a plugin entry from, and the version found there (undefined: not there). */
export function pluginLocation(entry: PluginEntry, env: Env): { path: string; version: string | undefined; note: string } {
  if (entry.kind === 'file') {
    const root = packageRootOf(entry.spec);
    const version = root ? manifestOf(root)?.version : undefined;
    return { path: entry.spec, version, note: root ? `package at ${root}` : 'no package.json above that path' };
  }
  // OpenCode 1.18 installs an npm-named plugin into its package cache and loads it from there
  // (never from the project's node_modules): $XDG_CACHE_HOME/opencode/packages/NAME@latest/node_modules/NAME.
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  const versioned = entry.spec.includes('@') ? entry.spec : `${entry.spec}@latest`;
  const path = join(cache, 'opencode', 'packages', versioned, 'node_modules', PACKAGE_NAME);
  const version = manifestOf(path)?.version;
  return {
    path,
    version,
    note: version ? "OpenCode's package cache" : `not in OpenCode's package cache yet: OpenCode installs ${versioned} from npm when it starts`,
  };
}
