// Writes a throwaway plugin source file that OpenCode can load with `"plugin": ["file:///…"]`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedConfigDir } from './opencode-sandbox.js';

export type PluginFile = { path: string; url: string; remove(): void };

/**
 * The file sits beside a node_modules that links @opencode-ai/plugin, so the source may
 * import `tool` from it: OpenCode's Bun resolves imports from the file's own location.
 * Export only the plugin function: OpenCode calls every export of the entry as a plugin.
 */
export function writePluginFile(source: string, fileName = 'plugin.ts'): PluginFile {
  const dir = mkdtempSync(join(tmpdir(), 'orca-e2e-plugin-'));
  seedConfigDir(dir);
  const path = join(dir, fileName);
  writeFileSync(path, source);
  return { path, url: pathToFileURL(path).href, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
