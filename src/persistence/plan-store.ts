import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidPlanFileError, PlanNotFoundError, QuarantinedPlanError } from './errors.js';
import { writeFileAtomic, writeFileAtomicAsync } from './atomic-write.js';
import { migratePlanFile } from './migrations.js';
import { describeIssues, planFile, type PlanFile } from './plan-file.js';
import { isPlanId, parsePlanId } from './plan-id.js';
import { ensureStateDir } from './state-dir.js';
import { errorMessage } from '../errors.js';

export const plansDir = (projectDir: string) => join(projectDir, '.opencode', 'plans');

/** Plan files on disk: atomic saves, validated loads, and quarantine for whatever cannot load. */
export class PlanStore {
  readonly quarantineDir: string;

  constructor(readonly dir: string) {
    this.quarantineDir = join(dir, '.quarantine');
  }

  static forProject(projectDir: string) {
    return new PlanStore(plansDir(projectDir));
  }

  pathOf(planId: string) {
    return join(this.dir, `${parsePlanId(planId)}.json`);
  }

  journalPathOf(planId: string) {
    return join(this.dir, `${parsePlanId(planId)}.journal.jsonl`);
  }

  /**
   * Write a plan file atomically. It is first checked with the schema `load` reads it with, so the
   * plugin never writes what it would quarantine at the next start: InvalidPlanFileError instead.
   */
  save(file: PlanFile, options: { fsync?: boolean } = {}): string {
    const text = this.serialize(file);
    ensureStateDir(this.dir);
    writeFileAtomic(this.pathOf(file.plan_id), text, options);
    return text;
  }

  /**
   * save, off the event loop, for a file `check` has passed (the check is synchronous, so a refusal
   * reaches the caller, not a promise); `commit` decides, once the content is durable, whether it
   * still replaces the file. `text`: the file as `save` serialised it, when it did.
   */
  saveCheckedAsync(file: PlanFile, commit: () => boolean, text = `${JSON.stringify(file, null, 2)}\n`): Promise<boolean> {
    ensureStateDir(this.dir);
    return writeFileAtomicAsync(this.pathOf(file.plan_id), text, commit);
  }

  /** Throws InvalidPlanFileError for a file `load` would quarantine. */
  check(file: PlanFile): void {
    const planId = parsePlanId(file.plan_id);
    const checked = checkPlanFile(file, planId);
    if (!checked.ok) throw new InvalidPlanFileError(planId, checked.reason);
  }

  /** The file's text as it is written, once it passed `check` (InvalidPlanFileError otherwise). */
  serialize(file: PlanFile): string {
    this.check(file);
    return `${JSON.stringify(file, null, 2)}\n`;
  }

  exists(planId: string): boolean {
    return existsSync(this.pathOf(planId));
  }

  /** Read, migrate and validate. A file that fails is quarantined and a QuarantinedPlanError thrown. */
  load(planId: string): PlanFile {
    const path = this.pathOf(planId);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new PlanNotFoundError(planId);
      throw error;
    }
    const result = parsePlanFileText(text, planId);
    if (!result.ok) throw this.quarantine(planId, result.reason);
    return result.file;
  }

  /** Plan ids on disk, oldest first (ULIDs sort by time). Files that are not plan files are quarantined. */
  listIds(): string[] {
    if (!existsSync(this.dir)) return [];
    const ids: string[] = [];
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
      const id = entry.name.slice(0, -'.json'.length);
      if (isPlanId(id)) ids.push(id);
      else this.quarantineFile(entry.name, `file name "${entry.name}" is not {plan_id}.json`);
    }
    return ids.sort();
  }

  /**
   * Remove temp files of writes that never finished: their writer (the pid in the name,
   * `{plan_id}.json.{pid}[.{n}].tmp`) is gone. A live writer's temp files are left alone.
   */
  sweepTemps(isAlive: (pid: number) => boolean = processAlive): string[] {
    if (!existsSync(this.dir)) return [];
    const removed: string[] = [];
    for (const name of readdirSync(this.dir)) {
      const pid = /^plan_\w+\.json\.(\d+)(?:\.\d+)?\.tmp$/.exec(name)?.[1];
      if (pid === undefined || isAlive(Number(pid))) continue;
      rmSync(join(this.dir, name), { force: true });
      removed.push(name);
    }
    return removed;
  }

  /** Move a plan's file aside with the reason written beside it; other plans are unaffected. */
  quarantine(planId: string, reason: string): QuarantinedPlanError {
    const to = this.quarantineFile(`${parsePlanId(planId)}.json`, reason);
    return new QuarantinedPlanError(planId, reason, to);
  }

  private quarantineFile(name: string, reason: string): string {
    mkdirSync(this.quarantineDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const to = join(this.quarantineDir, `${name}.${stamp}`);
    renameSync(join(this.dir, name), to);
    writeFileSync(`${to}.reason.txt`, `${reason}\n`);
    return to;
  }
}

export function parsePlanFileText(
  text: string,
  planId: string,
): { ok: true; file: PlanFile } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${errorMessage(error)})` };
  }
  let migrated: unknown;
  try {
    migrated = migratePlanFile(raw);
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
  return checkPlanFile(migrated, planId);
}

/** The one check of a plan file, on load (after migrations) and before every write. */
export function checkPlanFile(value: unknown, planId: string): { ok: true; file: PlanFile } | { ok: false; reason: string } {
  const parsed = planFile.safeParse(value);
  if (!parsed.success) return { ok: false, reason: `invalid plan file: ${describeIssues(parsed.error)}` };
  if (parsed.data.plan_id !== planId || parsed.data.snapshot.context.plan_id !== planId) {
    return { ok: false, reason: `plan_id inside the file does not match its name ${planId}.json` };
  }
  return { ok: true, file: parsed.data };
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
