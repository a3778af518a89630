import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
