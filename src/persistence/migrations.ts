import { PLAN_MACHINE_VERSION } from '../machines/plan.machine.js';
import { SCHEMA_VERSION } from './plan-file.js';

/**
 * Pure upgrades of a parsed plan file, keyed by the version they upgrade FROM. Each entry gets a
 * fixture in test/fixtures and a test that loads it. Version 1 is the first: nothing to upgrade yet.
 */
type Migration = (file: Record<string, unknown>) => Record<string, unknown>;

const schemaMigrations: Record<number, Migration> = {};
const machineMigrations: Record<number, Migration> = {};

export class UnsupportedVersionError extends Error {
  override name = 'UnsupportedVersionError';
}

function upgrade(
  file: Record<string, unknown>,
  key: 'schema_version' | 'machine_version',
  current: number,
  steps: Record<number, Migration>,
): Record<string, unknown> {
  let version = file[key];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new UnsupportedVersionError(`${key} is ${JSON.stringify(version)}: expected an integer from 1 to ${current}`);
  }
  if (version > current) {
    throw new UnsupportedVersionError(
      `${key} ${version} is newer than this plugin understands (${current}): upgrade opencode-orca-statecharts`,
    );
  }
  while (version < current) {
    const step = steps[version];
    if (!step) throw new UnsupportedVersionError(`no migration from ${key} ${version}`);
    file = { ...step(file), [key]: version + 1 };
    version += 1;
  }
  return file;
}

export function migratePlanFile(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnsupportedVersionError('not a JSON object');
  }
  const file = raw as Record<string, unknown>;
  if (!('schema_version' in file) || !('snapshot' in file)) {
    throw new UnsupportedVersionError('not an Orca plan file (no schema_version or snapshot)');
  }
  const schemaUpgraded = upgrade(file, 'schema_version', SCHEMA_VERSION, schemaMigrations);
  return upgrade(schemaUpgraded, 'machine_version', PLAN_MACHINE_VERSION, machineMigrations);
}
