import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { OrcaConfigError, parseOptions, type OrcaOptions } from './options.js';
import { errorMessage } from '../errors.js';

/**
 * Orca's configuration: the plugin entry's options in opencode.json, then the global
 * `~/.config/opencode/orca.jsonc`, then the project's `.opencode/orca.jsonc`; a later source
 * overrides an earlier one key by key (objects merge, other values replace). Each file is JSONC
 * (comments, trailing commas) and is validated; a bad file stops the plugin from loading with
 * a message naming the file and the key, rather than running with guesses.
 */
export function configFiles(directory: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return [join(configHome, 'opencode', 'orca.jsonc'), join(directory, '.opencode', 'orca.jsonc')];
}

export function loadOrcaConfig(directory: string, pluginOptions: unknown, env: NodeJS.ProcessEnv = process.env): OrcaOptions {
  let merged = withoutSchemaKey(pluginOptions ?? {});
  parseOptions(merged); // the plugin entry alone must be valid, so its errors name it
  for (const file of configFiles(directory, env)) {
    if (!existsSync(file)) continue;
    const raw = readJsonc(file);
    try {
      parseOptions(withoutSchemaKey(raw));
    } catch (error) {
      throw new OrcaConfigError(`${file}: ${errorMessage(error).replace(/^Invalid opencode-orca-statecharts plugin options: /, '')}`);
    }
    merged = deepMerge(merged, withoutSchemaKey(raw));
  }
  return parseOptions(merged);
}

function readJsonc(file: string): unknown {
  const errors: ParseError[] = [];
  const text = readFileSync(file, 'utf8');
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new OrcaConfigError(`${file}:${line}: ${printParseErrorCode(first.error)} (not valid JSONC)`);
  }
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OrcaConfigError(`${file}: expected an object of Orca options, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value;
}

const withoutSchemaKey = (value: unknown): Record<string, unknown> => {
  const { $schema: _schema, ...rest } = (value ?? {}) as Record<string, unknown>;
  return rest;
};

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] =
      isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
