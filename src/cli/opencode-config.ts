import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { PACKAGE_NAME } from './package-info.js';

/** The project's own config files, in the order init prefers them. */
export const PROJECT_CONFIG_NAMES = ['opencode.jsonc', 'opencode.json'] as const;

export interface ConfigFile {
  path: string;
  text: string;
  value: unknown;
  /** Parse errors as "message at line L, column C"; empty when the file is valid JSONC. */
  errors: string[];
}

/** Read and parse one config file as OpenCode does (JSON with comments and trailing commas). */
export function readConfigFile(path: string): ConfigFile | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const problems: ParseError[] = [];
  const value = parse(text, problems, { allowTrailingComma: true });
  const errors = problems.map((p) => `${printParseErrorCode(p.error)} at ${position(text, p.offset)}`);
  if (errors.length === 0 && (typeof value !== 'object' || value === null || Array.isArray(value))) errors.push('the top level is not an object');
  return { path, text, value, errors };
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** Every config file OpenCode would read for this project that exists: global first, then the project's. */
export function configFilesOf(project: string, env: Record<string, string | undefined>): string[] {
  const globalDir = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'opencode');
  const candidates = [
    ...['config.json', 'opencode.json', 'opencode.jsonc'].map((n) => join(globalDir, n)),
    ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : []),
    ...PROJECT_CONFIG_NAMES.map((n) => join(project, n)),
    ...PROJECT_CONFIG_NAMES.map((n) => join(project, '.opencode', n)),
  ];
  return [...new Set(candidates)].filter((p) => existsSync(p));
}

/** One entry of a config's `plugin` array that loads this plugin. */
export interface PluginEntry {
  /** As written: "opencode-orca-statecharts", "opencode-orca-statecharts@0.1.0" or "file:///…". */
  spec: string;
  /** The tuple's second element, if any. */
  options: unknown;
  kind: 'npm' | 'file';
}

/** The entries of `config.plugin` that name this package (by npm name, or a file:// path into it). */
export function pluginEntries(config: unknown): PluginEntry[] {
  const list = (config as { plugin?: unknown } | null)?.plugin;
  if (!Array.isArray(list)) return [];
  const entries: PluginEntry[] = [];
  for (const item of list) {
    const [spec, options] = Array.isArray(item) ? [item[0], item[1]] : [item, undefined];
    if (typeof spec !== 'string') continue;
    if (spec === PACKAGE_NAME || spec.startsWith(`${PACKAGE_NAME}@`)) entries.push({ spec, options, kind: 'npm' });
    else if (spec.startsWith('file://') && fileEntryIsOurs(spec)) entries.push({ spec, options, kind: 'file' });
  }
  return entries;
}

function fileEntryIsOurs(spec: string): boolean {
  if (spec.includes(PACKAGE_NAME)) return true;
  const root = packageRootOf(spec);
  return root !== undefined && manifestOf(root)?.name === PACKAGE_NAME;
}

/** The nearest directory at or above a file:// entry's path that holds a package.json. */
export function packageRootOf(spec: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(fileURLToPath(spec));
  } catch {
    return undefined;
  }
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function manifestOf(dir: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
