import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This package's root (src/cli/ and dist/cli/ are both two levels below it) and manifest. */
export const packageRoot = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface PackageInfo {
  name: string;
  version: string;
  /** The @opencode-ai/plugin version the plugin was built against (the OpenCode it expects). */
  opencodePluginVersion: string | undefined;
}

export function packageInfo(): PackageInfo {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
  };
  return { name: manifest.name, version: manifest.version, opencodePluginVersion: manifest.dependencies?.['@opencode-ai/plugin'] };
}

export const PACKAGE_NAME = 'opencode-orca-statecharts';

/**
 * Where this copy of the package came from: `clone` (a checkout, run with tsx or from its dist/),
 * `npm` (installed from a registry, as the lockfile beside its node_modules records: `npm install`,
 * `npx`), or `local` (installed from a tarball or a folder, or anywhere no lockfile says: a global
 * install keeps none).
 */
export type InstallSource = 'clone' | 'npm' | 'local';

export function installSource(root = packageRoot): InstallSource {
  const parts = root.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return 'clone';
  const project = parts.slice(0, at).join(sep) || sep;
  const relative = parts.slice(at).join('/');
  // package-lock.json, else the copy npm keeps in node_modules (also written with package-lock=false).
  for (const lockfile of [join(project, 'package-lock.json'), join(project, 'node_modules', '.package-lock.json')]) {
    const entry = lockEntry(lockfile, relative);
    if (entry) return fromRegistry(entry) ? 'npm' : 'local';
  }
  return 'local';
}

type LockEntry = { version?: string; resolved?: string; integrity?: string; link?: boolean };

function lockEntry(lockfile: string, relative: string): LockEntry | undefined {
  try {
    const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages?: Record<string, LockEntry> };
    return lock.packages?.[relative];
  } catch {
    return undefined; // no such lockfile (or not one npm wrote)
  }
}

// A registry tarball's URL; or, with omit-lockfile-registry-resolved, no `resolved` but a version and
// an integrity (a tarball or folder install always records its file: path).
const fromRegistry = (entry: LockEntry) =>
  /^https?:\/\//.test(entry.resolved ?? '') || (entry.resolved === undefined && !entry.link && !!entry.version && !!entry.integrity);

/** Whether this copy lives in npx's cache (~/.npm/_npx/HASH/node_modules), which npm may clear at any time. */
export function inNpxCache(root = packageRoot): boolean {
  return root.split(sep).includes('_npx');
}

/**
 * What an OpenCode config names to load this copy: the npm name only when it came from npm
 * (OpenCode then installs it from the registry itself), else the file URL of its built entry,
 * which loads exactly this copy (a name OpenCode cannot find on the registry never loads).
 */
export function pluginSpec(root = packageRoot): string {
  return installSource(root) === 'npm' ? PACKAGE_NAME : pathToFileURL(join(root, 'dist', 'index.js')).href;
}

/** Whether the built plugin a file URL names exists (a clone must be built first: npm run build). */
export const builtEntryExists = (root = packageRoot) => existsSync(join(root, 'dist', 'index.js'));

/** The JSON schema of orca.jsonc shipped with this copy, as a URL an editor can open. */
export function schemaFileUrl(root = packageRoot): string | undefined {
  const path = join(root, 'schema', 'orca.schema.json');
  return existsSync(path) ? pathToFileURL(path).href : undefined;
}

