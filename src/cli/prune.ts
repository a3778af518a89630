import { relative, sep } from 'node:path';
import { loadOrcaConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { prunePlans, type PruneReport } from '../persistence/prune.js';
import { ageText, bytesText, DEFAULT_DRAFT_DAYS, type KeepReason, type RetentionRules, type Verdict } from '../persistence/retention.js';
import { quote } from '../text/quote.js';
import { RefusedError, UsageError } from '../request-errors.js';
import type { CommandContext } from './command.js';
import { table } from './format.js';
import { println } from './io.js';
import { configFilesOf, pluginEntries, readConfigFile } from './opencode-config.js';
import { storeOf } from './project.js';

/** The longest period a day count may give: a hundred years. */
const MAX_DAYS = 36_500;

/** A day count of the command line: a whole number from 0 (UsageError otherwise). */
export function parseDays(flag: string, text: string): number {
  const days = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(days) || days > MAX_DAYS) {
    throw new UsageError(`${flag} must be a whole number of days from 0 to ${MAX_DAYS}, got ${quote(text)}.`);
  }
  return days;
}

/**
 * `orca prune`: which plans would go (drafts never approved and finished plans, unchanged for
 * their days), and with --yes, remove them. Which ones is persistence/retention.ts; removing them,
 * persistence/prune.ts. Days not given come from the `prune` option, then the defaults.
 */
export async function pruneCommand({ io, project, options }: CommandContext): Promise<number> {
  const store = storeOf(project);
  const rules = pruneRules(project, io.env, options);
  const report = await prunePlans(store, rules, { now: io.now(), apply: options.yes === true });
  const show = (path: string) => (path.startsWith(project + sep) ? relative(project, path) : path);
  const lines = [`orca prune: ${show(store.dir)}: ${rulesText(rules)}`, ''];
  const chosen = report.verdicts.filter((v) => v.remove);
  if (chosen.length === 0) lines.push('Nothing to remove.');
  else if (!options.yes) {
    lines.push(`Would remove ${chosen.length} plan(s), ${bytesText(total(chosen))}:`, ...planTable(chosen));
  } else if (report.removed.length > 0) {
    lines.push(`Removed ${report.removed.length} plan(s), ${bytesText(total(report.removed))}:`, ...planTable(report.removed));
  }
  if (report.failed.length > 0) {
    lines.push(`Not removed: ${report.failed.length} plan(s):`, ...report.failed.map((f) => `  ${f.verdict.plan.plan_id}: ${f.reason}`));
  }
  lines.push(...keptLines(report, show(store.quarantineDir)));
  if (!options.yes && chosen.length > 0) lines.push('', 'A dry run: nothing was removed. Add --yes to remove these plans, their journals and inboxes.');
  println(io.stdout, ...lines);
  return report.failed.length > 0 ? 1 : 0;
}

/**
 * The rules of a command line: each day count given, else the `prune` option's, else drafts after
 * 30 days and no finished plans. The options are read as the plugin reads them; ones that do not
 * load refuse the command (orca doctor says what is wrong).
 */
export function pruneRules(project: string, env: Record<string, string | undefined>, given: Pick<CommandContext['options'], 'draftsOlderThan' | 'finishedOlderThan'> = {}): RetentionRules {
  let configured: { drafts_after_days?: number; finished_after_days?: number } | undefined;
  try {
    configured = orcaOptionsOf(project, env).prune;
  } catch (error) {
    throw new RefusedError(`the Orca options do not load, and they say how long plans are kept: ${errorMessage(error).split('\n')[0]} (orca doctor)`);
  }
  return {
    draftsAfterDays: given.draftsOlderThan ?? configured?.drafts_after_days ?? DEFAULT_DRAFT_DAYS,
    finishedAfterDays: given.finishedOlderThan ?? configured?.finished_after_days ?? null,
  };
}

/** The plugin's options for this project as it would load them: the last plugin entry's, then the orca.jsonc files. */
function orcaOptionsOf(project: string, env: Record<string, string | undefined>) {
  const entries = configFilesOf(project, env).flatMap((path) => {
    const file = readConfigFile(path);
    return file && file.errors.length === 0 ? pluginEntries(file.value) : [];
  });
  return loadOrcaConfig(project, entries.at(-1)?.options, env);
}

export function rulesText(rules: RetentionRules): string {
  const drafts = rules.draftsAfterDays === null ? 'drafts are kept' : `drafts never approved, unchanged for more than ${days(rules.draftsAfterDays)}`;
  const finished =
    rules.finishedAfterDays === null
      ? 'finished plans are kept (--finished-older-than <days> to include them)'
      : `finished plans (completed, failed, rejected), unchanged for more than ${days(rules.finishedAfterDays)}`;
  return `${drafts}; ${finished}`;
}

const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

const total = (verdicts: readonly Verdict[]) => verdicts.reduce((sum, v) => sum + v.plan.bytes, 0);

function planTable(verdicts: readonly Verdict[]): string[] {
  const rows = verdicts.map((v) => [v.plan.plan_id, v.plan.status, v.kind, ageText(v.ageMs), bytesText(v.plan.bytes)]);
  return table(['PLAN', 'STATUS', 'KIND', 'UNCHANGED', 'SIZE'], rows).map((l) => `  ${l}`);
}

const KEPT_WORDS: Record<Exclude<KeepReason, 'leased' | 'queued' | 'undated'>, string> = {
  approved: 'approved and not finished (running, paused or waiting at a gate)',
  recent: 'changed more recently',
  not_asked: 'finished, not asked for',
};

/** What stays and why: old plans kept for a reason one by one, the rest counted, files left alone named. */
function keptLines(report: PruneReport, quarantineDir: string): string[] {
  const lines: string[] = [];
  const kept = report.verdicts.filter((v): v is Verdict & { remove: false; keep: KeepReason } => !v.remove);
  const named = kept.filter((v) => v.keep === 'leased' || v.keep === 'queued' || v.keep === 'undated');
  for (const v of named) {
    const why =
      v.keep === 'leased' ? 'a process holds its lease (it runs there)' : v.keep === 'queued' ? 'a decision waits in its inbox' : `its updated_at ${quote(v.plan.updated_at)} is not a time`;
    lines.push(`  ${v.plan.plan_id} (${v.plan.status}, ${v.kind}, unchanged ${ageText(v.ageMs)}): ${why}`);
  }
  const counts = (Object.keys(KEPT_WORDS) as (keyof typeof KEPT_WORDS)[])
    .map((reason) => [reason, kept.filter((v) => v.keep === reason).length] as const)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${KEPT_WORDS[reason]}`);
  const oldButKept = named.length > 0 ? `${counts.length > 0 ? '; ' : ': '}${named.length} old but kept:` : '.';
  if (kept.length > 0) lines.unshift('', `Kept ${kept.length} plan(s)${counts.length > 0 ? `: ${counts.join('; ')}` : ''}${oldButKept}`);
  for (const u of report.unreadable) {
    lines.push('', `Left alone: ${u.planId}.json does not load (${u.reason}); orca plans moves it to the quarantine.`);
  }
  if (report.quarantined.length > 0) {
    lines.push('', `Left alone: ${report.quarantined.length} quarantined file(s) in ${quarantineDir} (never pruned; orca doctor lists them):`);
    lines.push(...report.quarantined.map((q) => `  ${q.name} (${bytesText(q.bytes)})`));
  }
  return lines;
}
