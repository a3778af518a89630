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
 * `npm` (installed from a registry, as the lockfile beside its node_modules records), or `local`
 * (installed from a tarball or a folder, or anywhere the lockfile does not say).
 */
export type InstallSource = 'clone' | 'npm' | 'local';

export function installSource(root = packageRoot): InstallSource {
  const parts = root.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return 'clone';
  const project = parts.slice(0, at).join(sep) || sep;
  const relative = parts.slice(at).join('/');
  try {
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages?: Record<string, { resolved?: string }> };
    return /^https?:\/\//.test(lock.packages?.[relative]?.resolved ?? '') ? 'npm' : 'local';
  } catch {
    return 'local'; // no lockfile (a global install): the copy on disk is what there is
  }
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

