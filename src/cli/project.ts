import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PlanNotFoundError, QuarantinedPlanError } from '../persistence/errors.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { PlanStore } from '../persistence/plan-store.js';
import { UsageError } from '../request-errors.js';

/** The project a command works on: `--dir`, else the current directory. */
export function projectDir(dir: string | undefined): string {
  const path = resolve(dir ?? process.cwd());
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--dir ${dir}: no such directory.`);
  return path;
}

export const storeOf = (project: string) => PlanStore.forProject(project);

/**
 * Every plan that loads, oldest first. Files that do not (bad name, invalid content) are
 * quarantined as PlanStore does and reported through `onQuarantined`.
 */
export function loadAllPlans(store: PlanStore, onQuarantined: (message: string) => void): PlanFile[] {
  const before = new Set(quarantinedNames(store));
  const reported = new Set<string>();
  const plans: PlanFile[] = [];
  for (const id of store.listIds()) {
    try {
      plans.push(store.load(id));
    } catch (error) {
      if (error instanceof QuarantinedPlanError) {
        reported.add(basename(error.quarantinedTo));
        onQuarantined(error.message);
      } else if (!(error instanceof PlanNotFoundError)) throw error; // PlanNotFound: removed since it was listed
    }
  }
  // listIds moves misnamed files aside without an error: report those too.
  for (const name of quarantinedNames(store)) {
    if (before.has(name) || reported.has(name)) continue;
    onQuarantined(`${name.replace(/\.[^.]*$/, '')} is not named {plan_id}.json; it was moved to ${join(store.quarantineDir, name)}.`);
  }
  return plans;
}

function quarantinedNames(store: PlanStore): string[] {
  return listQuarantine(store).map((q) => q.name);
}

export interface QuarantinedFile {
  name: string;
  reason: string;
}

/** The files in `.opencode/plans/.quarantine`, with the reason written beside each. */
export function listQuarantine(store: PlanStore): QuarantinedFile[] {
  let names: string[];
  try {
    names = readdirSync(store.quarantineDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.endsWith('.reason.txt'))
    .sort()
    .map((name) => {
      let reason = 'no reason recorded';
      try {
        reason = readFileSync(join(store.quarantineDir, `${name}.reason.txt`), 'utf8').trim() || reason;
      } catch {
        // a file moved aside by hand has no reason beside it
      }
      return { name, reason };
    });
}
