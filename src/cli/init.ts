import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CommandContext } from './command.js';
import { RefusedError, UsageError } from '../request-errors.js';
import { println } from './io.js';
import { addProperty, appendToArray } from './jsonc-append.js';
import { pluginEntries, PROJECT_CONFIG_NAMES, readConfigFile, type ConfigFile } from './opencode-config.js';
import { orcaStarter, schemaUrl } from './orca-starter.js';
import { builtEntryExists, inNpxCache, installSource, PACKAGE_NAME, packageInfo, packageRoot, pluginSpec, schemaFileUrl } from './package-info.js';
import { NO_MODEL } from './doctor.js';
import { quote } from '../text/quote.js';

/**
 * `orca init`: load the plugin from the project's opencode.json(c), editing the file in place so
 * its comments and formatting survive, set `model` when asked (`--model`), and write a starter
 * `.opencode/orca.jsonc`. Idempotent. Run from a copy installed from a registry (`npx
 * opencode-orca-statecharts init`, or installed in the project) it writes the package name, which
 * OpenCode installs from the registry npm is configured with; from a clone or a tarball, the file
 * URL of this copy's built plugin, since the name would not load it.
 */
export function initCommand({ io, project, options }: CommandContext): number {
  const show = (path: string) => relative(project, path) || path;
  if (options.model !== undefined && !/^[^/\s]+\/\S+$/.test(options.model)) {
    throw new UsageError(`--model must be "<provider>/<model>" as opencode models lists them, got ${quote(options.model)}.`);
  }
  const read = (dir: string) => PROJECT_CONFIG_NAMES.map((n) => readConfigFile(join(dir, n))).filter((f): f is ConfigFile => f !== undefined);
  const rootFiles = read(project);
  const files = [...rootFiles, ...read(join(project, '.opencode'))];
  for (const file of files) {
    if (file.errors.length > 0) throw new RefusedError(`${show(file.path)} is not valid JSONC (${file.errors[0]}); fix it, then run orca init again.`);
  }
  const spec = pluginSpec();
  const loading = files.find((f) => pluginEntries(f.value).length > 0);
  let target = rootFiles[0]; // opencode.jsonc before opencode.json
  if (loading) {
    println(io.stdout, `${show(loading.path)} already loads ${PACKAGE_NAME} (${pluginEntries(loading.value)[0]!.spec}): left unchanged`);
  } else if (target) {
    writeFileSync(target.path, withPlugin(target, spec));
    println(io.stdout, `added ${spec} to the plugins of ${show(target.path)}`);
  } else {
    const path = join(project, 'opencode.json');
    writeFileSync(path, `${JSON.stringify({ $schema: 'https://opencode.ai/config.json', plugin: [spec] }, null, 2)}\n`);
    println(io.stdout, `created opencode.json loading ${spec}`);
    target = readConfigFile(path);
  }
  if (spec !== PACKAGE_NAME) {
    println(io.stdout, `  (the file URL of this copy's built plugin: ${PACKAGE_NAME} is not installed from npm here, so OpenCode could not load it by name)`);
    if (!builtEntryExists()) println(io.stdout, `  ${packageRoot}/dist/index.js does not exist yet: run npm run build in ${packageRoot}`);
    if (inNpxCache()) {
      println(io.stdout, `  ! that file is in npx's cache, which npm may clear: install ${PACKAGE_NAME} where it stays (in the project, or npm install -g), then run orca init again`);
    }
  }
  setModel(files, target, options.model, io, show);

  const starter = join(project, '.opencode', 'orca.jsonc');
  if (existsSync(starter)) {
    println(io.stdout, `${show(starter)} already exists: left unchanged`);
  } else {
    mkdirSync(join(project, '.opencode'), { recursive: true });
    const { version } = packageInfo();
    writeFileSync(starter, orcaStarter(version, installSource() === 'npm' ? schemaUrl(version) : (schemaFileUrl() ?? schemaUrl(version))));
    println(io.stdout, `wrote ${show(starter)}: Orca's options, each commented out at its default (read when OpenCode starts; orca doctor checks them)`);
  }
  return 0;
}

/** Writes `--model` into the project's config, or says clearly that one is needed when no config in the project sets it. */
function setModel(files: ConfigFile[], target: ConfigFile | undefined, model: string | undefined, io: CommandContext['io'], show: (path: string) => string) {
  const current = [...files].reverse().find((f) => typeof (f.value as { model?: unknown }).model === 'string');
  if (model === undefined) {
    if (current) println(io.stdout, `${show(current.path)} sets "model": ${(current.value as { model: string }).model}`);
    else println(io.stdout, `! ${NO_MODEL.join(' ')} (a global config may set it: orca doctor checks every file)`);
    return;
  }
  const file = current ?? target;
  if (!file) throw new RefusedError('No opencode.json to write "model" to.');
  const fresh = readConfigFile(file.path)!;
  const value = (fresh.value as { model?: unknown }).model;
  if (value === model) return println(io.stdout, `${show(file.path)} already sets "model": ${model}`);
  if (value !== undefined) {
    throw new RefusedError(`${show(file.path)} already sets "model" to ${quote(value)}: change it there by hand if you want ${quote(model)}.`);
  }
  writeFileSync(file.path, addProperty(fresh.text, 'model', model));
  println(io.stdout, `set "model": ${model} in ${show(file.path)}`);
}

/** The file's text with the plugin appended to `plugin` (created if missing); nothing else changes. */
function withPlugin(file: ConfigFile, spec: string): string {
  const plugins = (file.value as { plugin?: unknown }).plugin;
  if (plugins !== undefined && !Array.isArray(plugins)) {
    throw new RefusedError(`"plugin" in ${file.path} is not an array: add "${spec}" to it by hand.`);
  }
  return plugins ? appendToArray(file.text, 'plugin', spec)! : addProperty(file.text, 'plugin', [spec]);
}
