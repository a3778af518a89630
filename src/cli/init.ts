import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CommandContext } from './command.js';
import { RefusedError } from './errors.js';
import { println } from './io.js';
import { addProperty, appendToArray } from './jsonc-append.js';
import { pluginEntries, PROJECT_CONFIG_NAMES, readConfigFile, type ConfigFile } from './opencode-config.js';
import { orcaStarter } from './orca-starter.js';
import { PACKAGE_NAME, packageInfo } from './package-info.js';

const NEW_CONFIG = `{\n  "$schema": "https://opencode.ai/config.json",\n  "plugin": ["${PACKAGE_NAME}"]\n}\n`;

/**
 * `orca init`: load the plugin from the project's opencode.json(c), editing the file in place so
 * its comments and formatting survive, and write a starter `.opencode/orca.jsonc`. Idempotent.
 */
export function initCommand({ io, project }: CommandContext): number {
  const show = (path: string) => relative(project, path) || path;
  const read = (dir: string) => PROJECT_CONFIG_NAMES.map((n) => readConfigFile(join(dir, n))).filter((f): f is ConfigFile => f !== undefined);
  const rootFiles = read(project);
  const files = [...rootFiles, ...read(join(project, '.opencode'))];
  for (const file of files) {
    if (file.errors.length > 0) throw new RefusedError(`${show(file.path)} is not valid JSONC (${file.errors[0]}); fix it, then run orca init again.`);
  }
  const loading = files.find((f) => pluginEntries(f.value).length > 0);
  if (loading) {
    println(io.stdout, `${show(loading.path)} already loads ${PACKAGE_NAME} (${pluginEntries(loading.value)[0]!.spec}): left unchanged`);
  } else {
    const target = rootFiles[0]; // opencode.jsonc before opencode.json
    if (target) {
      writeFileSync(target.path, withPlugin(target));
      println(io.stdout, `added ${PACKAGE_NAME} to the plugins of ${show(target.path)}`);
    } else {
      writeFileSync(join(project, 'opencode.json'), NEW_CONFIG);
      println(io.stdout, `created opencode.json loading ${PACKAGE_NAME}`);
    }
  }
  const starter = join(project, '.opencode', 'orca.jsonc');
  if (existsSync(starter)) {
    println(io.stdout, `${show(starter)} already exists: left unchanged`);
  } else {
    mkdirSync(join(project, '.opencode'), { recursive: true });
    writeFileSync(starter, orcaStarter(packageInfo().version));
    println(io.stdout, `wrote ${show(starter)} (documents the options; the plugin does not read it yet, see its first lines)`);
  }
  return 0;
}

/** The file's text with this plugin appended to `plugin` (created if missing); nothing else changes. */
function withPlugin(file: ConfigFile): string {
  const plugins = (file.value as { plugin?: unknown }).plugin;
  if (plugins !== undefined && !Array.isArray(plugins)) {
    throw new RefusedError(`"plugin" in ${file.path} is not an array: add "${PACKAGE_NAME}" to it by hand.`);
  }
  return plugins ? appendToArray(file.text, 'plugin', PACKAGE_NAME)! : addProperty(file.text, 'plugin', [PACKAGE_NAME]);
}
