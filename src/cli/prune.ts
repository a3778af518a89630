import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { loadOrcaConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { prunePlans, type PruneReport } from '../persistence/prune.js';
import { ageText, bytesText, DEFAULT_DRAFT_DAYS, hasLiveSteps, type KeepReason, type RetentionRules, type Verdict } from '../persistence/retention.js';
import { quote } from '../text/quote.js';
import { RefusedError, UsageError } from '../request-errors.js';
import type { CommandContext } from './command.js';
import { table } from './format.js';
import { println } from './io.js';
import { configFilesOf, pluginEntries, readConfigFile } from './opencode-config.js';
import { storeOf } from './project.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { isStaleClaim, listWorktrees, removeSlot, SLOT_LOCK_REASON, workspaceSupport, type GitRepository, type OrcaWorktree } from '../workspace/index.js';

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
export async function pruneCommand(context: CommandContext): Promise<number> {
  const { io, project, options } = context;
  if (options.slots) return pruneSlotsCommand(context);
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

/** Where Orca keeps its worktree slots: `$XDG_DATA_HOME`, else `~/.local/share` (as the plugin says it). */
export const dataHomeOf = (env: Record<string, string | undefined>) => env.XDG_DATA_HOME || join(env.HOME ?? homedir(), '.local', 'share');

/**
 * What a slot is, to whom would remove it: free; held by a step of a plan of this project not
 * finished (`held`), of one that ended (`ended`: nobody gave it back, as no server saw the plan end),
 * of a plan this project does not have (`left`: removed, or another project's in the repository);
 * Orca's own work on it now (`busy`), or left by an Orca process that is gone (`stale`,
 * isStaleClaim); or a claim nothing tells more of (`unknown`: damaged, or an older version's).
 */
export type SlotState = 'free' | 'held' | 'ended' | 'left' | 'busy' | 'stale' | 'unknown';

/** The plans of this project whose steps may still need their slots (`live`), and those that ended. */
export interface SlotPlans {
  live: ReadonlySet<string>;
  ended: ReadonlySet<string>;
}

export function slotStateOf(slot: Pick<OrcaWorktree, 'claim'>, plans: SlotPlans): SlotState {
  const claim = slot.claim;
  if (!claim) return 'free';
  if (claim.plan_id) return plans.live.has(claim.plan_id) ? 'held' : plans.ended.has(claim.plan_id) ? 'ended' : 'left';
  if (isStaleClaim(claim)) return 'stale';
  return claim.pid !== undefined ? 'busy' : 'unknown';
}

/** `orca prune --slots` removes a slot free, left by a process that is gone, or of a plan that ended; never one a live step holds or Orca works on. */
export const removable = (state: SlotState) => state === 'free' || state === 'stale' || state === 'ended';

const WORK_WORDS: Record<string, string> = { prepare: 'being made ready', reset: 'being reset', remove: 'being removed' };

/** One slot in words: who holds it (or what it still holds), its size, and its lock in git. */
export function slotLine(slot: OrcaWorktree, state: SlotState): string {
  const claim = slot.claim;
  const who = ((): string => {
    switch (state) {
      case 'free':
        return slot.lastStep ? `free; still holds the files of step ${slot.lastStep.step_id} of ${slot.lastStep.plan_id || 'a plan'} until it is reset` : 'free';
      case 'held':
      case 'ended':
      case 'left':
        return `held by ${claim!.plan_id} step ${claim!.step_id}, attempt ${claim!.attempt}`;
      case 'busy':
        return `${WORK_WORDS[claim!.step_id] ?? claim!.step_id} by Orca (process ${claim!.pid})`;
      case 'stale':
        return `left ${WORK_WORDS[claim!.step_id] ?? claim!.step_id} by an Orca process that is gone (${claim!.pid})`;
      case 'unknown':
        return claim!.step_id ? `held by Orca's ${claim!.step_id} (a version that does not name its process)` : 'held by a claim Orca cannot read';
    }
  })();
  const lock = slot.locked === SLOT_LOCK_REASON ? 'locked' : slot.locked === null ? 'not locked (made by an older Orca: locked at its next reset)' : `locked: ${quote(slot.locked)}`;
  return `${slot.path}: ${who}; ${bytesText(slot.bytes)}; ${lock}`;
}

/**
 * Of the plans `planIds`, those of this project whose steps may still need their slots (hasLiveSteps)
 * and those that ended, read from their files as they are (no quarantine, no lease). A plan this
 * project does not have (removed, another project's of the same repository) is in neither.
 */
export function slotPlans(store: PlanStore, planIds: Iterable<string>): SlotPlans {
  const live = new Set<string>();
  const ended = new Set<string>();
  for (const id of new Set(planIds)) {
    if (!id) continue;
    let status: unknown;
    try {
      status = (JSON.parse(readFileSync(store.pathOf(id), 'utf8')) as { status?: unknown }).status;
    } catch {
      continue; // no such plan here, or unreadable: nothing tells
    }
    if (typeof status === 'string') (hasLiveSteps(status) ? live : ended).add(id);
  }
  return { live, ended };
}

/**
 * `orca prune --slots`: Orca's worktree slots of the project's repository, those it would remove (free,
 * or left by an Orca process that is gone) and those it keeps (a step holds it, or Orca works on it
 * now), and with --yes, removes them: their git worktree entries (locked: unlocked as they go) and folders.
 */
async function pruneSlotsCommand({ io, project, options }: CommandContext): Promise<number> {
  if (options.draftsOlderThan !== undefined || options.finishedOlderThan !== undefined) {
    throw new UsageError('orca prune --slots removes worktree slots only: it takes no --drafts-older-than or --finished-older-than (orca --help).');
  }
  const support = await workspaceSupport(project, { dataHome: dataHomeOf(io.env) });
  const repo: GitRepository | undefined = support.ok ? support : support.repository;
  if (!repo) {
    println(io.stdout, `orca prune --slots: no worktree slots: ${support.ok ? '' : support.reason}`);
    return 0;
  }
  const slots = await listWorktrees(repo);
  const plans = slotPlans(storeOf(project), slots.map((s) => s.claim?.plan_id ?? ''));
  const states = new Map(slots.map((s) => [s, slotStateOf(s, plans)]));
  const chosen = slots.filter((s) => removable(states.get(s)!));
  const kept = slots.filter((s) => !removable(states.get(s)!));
  const lines = [`orca prune --slots: Orca's worktree slots of the git repository at ${repo.toplevel}, in ${repo.worktrees}`, ''];
  const size = (list: readonly OrcaWorktree[]) => bytesText(list.reduce((n, s) => n + s.bytes, 0));
  const slotTable = (list: readonly OrcaWorktree[]) =>
    table(
      ['SLOT', 'PATH', 'STATE', 'SIZE'],
      list.map((s) => [String(s.slot), s.path, removedStateWords(s, states.get(s)!), bytesText(s.bytes)]),
    ).map((l) => `  ${l}`);
  const failed: string[] = [];
  if (chosen.length === 0) lines.push(slots.length === 0 ? 'Nothing to remove: no slots.' : 'Nothing to remove.');
  else if (!options.yes) lines.push(`Would remove ${chosen.length} slot(s), ${size(chosen)}:`, ...slotTable(chosen));
  else {
    const removed: OrcaWorktree[] = [];
    for (const slot of chosen) {
      try {
        if (await removeSlot(repo, slot, { planEnded: states.get(slot) === 'ended' })) removed.push(slot);
        else failed.push(`  ${slot.path}: taken meanwhile (a step, or Orca's own work on it): kept`);
      } catch (error) {
        failed.push(`  ${slot.path}: ${errorMessage(error).split('\n')[0]}`);
      }
    }
    if (removed.length > 0) lines.push(`Removed ${removed.length} slot(s), ${size(removed)}: their git worktree entries and folders`, ...slotTable(removed));
    if (failed.length > 0) lines.push(`Not removed: ${failed.length} slot(s):`, ...failed);
  }
  if (kept.length > 0) {
    lines.push('', `Kept ${kept.length} slot(s):`);
    for (const slot of kept) lines.push(`  ${slotLine(slot, states.get(slot)!)}`, `    ${KEPT_SLOT_WORDS[states.get(slot)!].replace('<path>', slot.path)}`);
  }
  if (!options.yes && chosen.length > 0) lines.push('', 'A dry run: nothing was removed. Add --yes to remove these slots (their git worktree entries and folders).');
  if (options.yes && chosen.length > 0) lines.push('', 'A server that runs here makes a slot again when a step needs one.');
  println(io.stdout, ...lines);
  return failed.some((line) => !line.endsWith(': kept')) ? 1 : 0;
}

function removedStateWords(slot: OrcaWorktree, state: SlotState): string {
  if (state === 'stale') return `left by process ${slot.claim!.pid}, gone`;
  if (state === 'ended') return `held by ${slot.claim!.plan_id}, ended`;
  return slot.lastStep ? 'free, not reset' : 'free';
}

const KEPT_SLOT_WORDS: Record<SlotState, string> = {
  free: '',
  stale: '',
  ended: '',
  held: "a step of a plan of this project not finished holds it, with the step's work: given back once the step landed or its plan ended",
  left: 'this project has no such plan (removed, or another project of this repository runs it): given back when OpenCode next starts with Orca in this repository',
  busy: 'Orca works on it now',
  unknown: "nothing tells who holds it (a claim of an older Orca, or one damaged): it stays while its claim file (<path>.claim.json) does; delete that file if no OpenCode runs Orca on this repository",
};
