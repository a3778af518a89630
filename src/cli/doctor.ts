import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseOptions } from '../config/options.js';
import { opencodeVersionWords } from '../config/supported-opencode.js';
import type { CommandContext } from './command.js';
import { println } from './io.js';
import { configFilesOf, pluginEntries, readConfigFile, type PluginEntry } from './opencode-config.js';
import { findOpencode, opencodeVersion, pluginLocation } from './opencode-install.js';
import { PACKAGE_NAME, packageInfo, packageRoot } from './package-info.js';
import { listQuarantine, loadAllPlans, storeOf } from './project.js';
import { shortTime, WAITING_WORDS } from './format.js';
import { readAgenda } from '../agenda/runtime.js';
import { nextDue } from '../agenda/describe.js';
import { agendaLeaseHeld } from '../agenda/lease.js';
import { runner } from './agenda.js';
import { activityOf } from '../persistence/plan-activity.js';
import { summarize } from '../persistence/plan-index.js';
import { leaseHeld } from '../persistence/plan-lease.js';
import { errorMessage } from '../errors.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { prunePlans } from '../persistence/prune.js';
import { bytesText, DEFAULT_DRAFT_DAYS, type PlanKind, type RetentionRules, type Verdict } from '../persistence/retention.js';
import { dataHomeOf, pruneRules, rulesText, slotLine, slotStateOf, type SlotPlans, type SlotState } from './prune.js';
import { hasLiveSteps } from '../persistence/retention.js';
import { hiddenOpencodeConfig, listWorktrees, SLOT_LOCK_REASON, workspaceSupport } from '../workspace/index.js';

/**
 * Where this project's file-changing steps would work, and Orca's worktree slots of its repository,
 * each with who holds it, its size and its lock in git: held by a step of a plan not finished, free
 * (kept warm for the next steps), still held by a plan that is not running (given back when OpenCode
 * next starts here), Orca's own work on it now, or left by an Orca process that is gone.
 */
async function checkWorktrees(project: string, env: NodeJS.ProcessEnv, plans: SlotPlans, say: Say): Promise<void> {
  const support = await workspaceSupport(project, { dataHome: dataHomeOf(env) });
  if (!support.ok) say('ok', `steps share the project directory: ${support.reason}`);
  else {
    say('ok', `file-changing steps get their own worktree, under ${support.worktrees} (unless isolation.mode is "none")`);
    // A slot is what git carries: the config git hides reaches it only as Orca places it (docs/worktrees.md).
    const hidden = await hiddenOpencodeConfig(support).catch((error: unknown) => error as Error);
    if (hidden instanceof Error) say('warn', `could not tell what git hides of your OpenCode config: ${hidden.message}`);
    else if (hidden.inFolder.length + hidden.files.length > 0)
      say(
        'ok',
        'OpenCode config git hides, placed in each slot at every reset (folders linked, files copied; from the repository\'s top):',
        ...hidden.inFolder.map((path) => join(support.prefix, '.opencode', path)),
        ...hidden.files,
      );
  }
  // Slots made while worktrees could work here (before a submodule was added, say) are still there.
  const repository = support.ok ? support : support.repository;
  const slots = repository ? await listWorktrees(repository) : [];
  if (slots.length === 0) return;
  const size = (list: typeof slots) => bytesText(list.reduce((n, w) => n + w.bytes, 0));
  const states = new Map(slots.map((w) => [w, slotStateOf(w, plans)]));
  const group = (level: Level, state: SlotState, text: string) => {
    const of = slots.filter((w) => states.get(w) === state);
    if (of.length > 0) say(level, `${of.length} ${text}: ${size(of)}`, ...of.map((w) => slotLine(w, state)));
  };
  group('ok', 'held', 'worktree slot(s) held by steps of plans not finished');
  group('ok', 'free', 'free worktree slot(s), kept warm for the next steps (orca prune --slots removes them)');
  group('ok', 'busy', 'worktree slot(s) Orca is making ready, resetting or removing now');
  group('warn', 'ended', 'worktree slot(s) still held by plans that ended (given back when OpenCode next starts in this project; orca prune --slots removes them)');
  group('warn', 'left', 'worktree slot(s) still held by plans this project does not have (given back when OpenCode next starts with Orca in this repository)');
  group('warn', 'stale', 'worktree slot(s) left by an Orca process that is gone (taken back when OpenCode next starts here; orca prune --slots removes them)');
  group('warn', 'unknown', 'worktree slot(s) held by a claim that names no process (an older Orca, or damaged): kept until its claim file goes');
  const unlocked = slots.filter((w) => w.locked === null).length;
  say(
    'ok',
    `git worktree list shows ${slots.length === 1 ? 'it' : `these ${slots.length}`}, ${unlocked === 0 ? 'each ' : ''}locked with the reason "${SLOT_LOCK_REASON}"${unlocked > 0 ? ` (${unlocked} made by an older Orca not yet: locked at their next reset)` : ''}`,
  );
}

type Level = 'ok' | 'warn' | 'fail';
type Say = (level: Level, text: string, ...details: string[]) => void;
const MARK: Record<Level, string> = { ok: '✓', warn: '!', fail: '✗' };

/** `orca doctor`: what OpenCode, the plugin, its config and the plans of this project look like. */
export async function doctorCommand({ io, project }: CommandContext): Promise<number> {
  const lines: string[] = [`orca doctor: ${project}`];
  let problems = 0;
  const say: Say = (level, text, ...details) => {
    if (level === 'fail') problems += 1;
    lines.push(`  ${MARK[level]} ${text}`, ...details.map((d) => `      ${d}`));
  };
  const show = (path: string) => (path.startsWith(project + sep) ? relative(project, path) : path);
  const self = packageInfo();

  lines.push('', 'OpenCode');
  const opencode = findOpencode(project, io.env);
  if (!opencode) say('warn', 'opencode not found (neither node_modules/.bin/opencode in the project nor on PATH)');
  else {
    try {
      const version = opencodeVersion(opencode.path, io.env);
      const words = opencodeVersionWords(version); // outside the supported range: a warning, not a problem
      say(words.supported ? 'ok' : 'warn', `OpenCode ${version} (${opencode.where}): ${words.summary}`, ...(words.advice ? [words.advice] : []));
    } catch (error) {
      say('fail', `${opencode.path} --version failed: ${firstLine(error)}`);
    }
  }

  lines.push('', 'Plugin');
  say('ok', `this CLI is ${PACKAGE_NAME} ${self.version} (${packageRoot})`);
  const entries: PluginEntry[] = [];
  const models: string[] = [];
  for (const path of configFilesOf(project, io.env)) {
    const file = readConfigFile(path)!;
    if (file.errors.length > 0) {
      say('fail', `${show(path)}: not valid JSONC: ${file.errors.join('; ')}`);
      continue;
    }
    models.push(...modelOf(file.value, show(path)));
    const found = pluginEntries(file.value);
    say('ok', `${show(path)}: valid${found.length ? '' : `, does not load ${PACKAGE_NAME}`}`);
    for (const entry of found) {
      entries.push(entry);
      checkEntry(entry, say, io.env, self.version);
    }
  }
  if (entries.length === 0) say('fail', `no OpenCode config loads ${PACKAGE_NAME}: run orca init`);
  const inline = inlineConfig(io.env.OPENCODE_CONFIG_CONTENT); // read last by OpenCode: it wins
  if (inline) models.push(...modelOf(inline, 'OPENCODE_CONFIG_CONTENT'));
  if (models.length > 0) say('ok', `model ${models.at(-1)}`);
  else say('fail', ...NO_MODEL);
  checkStarter(join(project, '.opencode', 'orca.jsonc'), say, show);

  lines.push('', 'Plans');
  const store = storeOf(project);
  const plans = loadAllPlans(store, () => {}); // what could not load is now in the quarantine, listed below
  say('ok', ...(await plansOnDisk(store, project, io, show)));
  if (existsSync(store.dir) && !existsSync(join(store.dir, '.gitignore')))
    say('warn', `${show(store.dir)} has no .gitignore: OpenCode's file snapshot hashes the plan files again at every turn (slower plans)`, `add one that holds "*" unless you commit your plans (docs/plan-files.md)`);
  for (const q of listQuarantine(store)) say('warn', `quarantined: ${show(store.quarantineDir)}/${q.name}`, q.reason);
  for (const plan of plans) {
    const activity = activityOf(summarize(plan), leaseHeld(store.pathOf(plan.plan_id)));
    if (activity === 'paused') {
      say('warn', `${plan.plan_id} is paused (work in flight, but nothing runs it): ask Orca in OpenCode to continue plan ${plan.plan_id}`, plan.goal);
    } else if (activity === 'running') say('ok', `${plan.plan_id} is running in an OpenCode server`, plan.goal);
    if (plan.waiting_for === null) continue;
    const how = plan.waiting_for === 'question' ? 'answer in OpenCode' : `orca decide ${plan.plan_id} ${DECISIONS[plan.waiting_for]}`;
    say('warn', `${plan.plan_id} waits for ${WAITING_WORDS[plan.waiting_for]}: ${how}`, plan.goal);
  }

  lines.push('', 'Worktrees');
  const ids = (live: boolean) => new Set(plans.filter((p) => hasLiveSteps(p.status) === live).map((p) => p.plan_id));
  await checkWorktrees(project, io.env, { live: ids(true), ended: ids(false) }, say);

  lines.push('', 'Agenda');
  checkAgenda(project, say);

  lines.push('', problems === 0 ? 'No problems found.' : `${problems} problem(s) found.`);
  println(io.stdout, ...lines);
  return problems === 0 ? 0 : 1;
}

/**
 * How many plans of each kind (drafts never approved, finished, other) and their disk use, and what
 * `orca prune` would remove with its defaults (the `prune` option's days, else drafts after 30).
 */
async function plansOnDisk(store: PlanStore, project: string, io: CommandContext['io'], show: (path: string) => string): Promise<[string, ...string[]]> {
  let rules: RetentionRules;
  try {
    rules = pruneRules(project, io.env);
  } catch {
    rules = { draftsAfterDays: DEFAULT_DRAFT_DAYS, finishedAfterDays: null }; // the options' problem is said above
  }
  const { verdicts } = await prunePlans(store, rules, { now: io.now(), apply: false });
  const where = show(store.dir);
  if (verdicts.length === 0) return [`0 plan(s) in ${where}`];
  const bytes = (of: readonly Verdict[]) => bytesText(of.reduce((sum, v) => sum + v.plan.bytes, 0));
  const kind = (k: PlanKind, words: string) => {
    const of = verdicts.filter((v) => v.kind === k);
    return of.length === 0 ? `0 ${words}` : `${of.length} ${words} (${bytes(of)})`;
  };
  const chosen = verdicts.filter((v) => v.remove);
  return [
    `${verdicts.length} plan(s) in ${where}, ${bytes(verdicts)}: ${kind('draft', 'draft(s) never approved')}, ${kind('finished', 'finished')}, ${kind('other', 'other')}`,
    `orca prune would remove ${chosen.length === 0 ? 'none' : `${chosen.length} plan(s), ${bytes(chosen)}`}: ${rulesText(rules)}`,
  ];
}

function checkEntry(entry: PluginEntry, say: Say, env: Record<string, string | undefined>, version: string) {
  const where = pluginLocation(entry, env);
  const details = [`loads from ${where.path} (${where.note})`];
  if (where.version) details.push(`version there: ${where.version}${where.version === version ? '' : ` (this CLI is ${version})`}`);
  try {
    parseOptions(entry.options);
    say('ok', `plugin entry "${entry.spec}"${entry.options === undefined ? ' (no options)' : ' with valid options'}`, ...details);
  } catch (error) {
    say('fail', `plugin entry "${entry.spec}": ${firstLine(error)}`, ...details);
  }
}

/** .opencode/orca.jsonc: read by the plugin at start, over the global file and the plugin entry (src/config/load.ts). */
function checkStarter(path: string, say: Say, show: (path: string) => string) {
  const file = readConfigFile(path);
  if (!file) return;
  const note = 'read at start, over ~/.config/opencode/orca.jsonc and the opencode.json plugin entry';
  if (file.errors.length > 0) return say('fail', `${show(path)}: not valid JSONC: ${file.errors.join('; ')}`, note);
  const { $schema: _schema, ...options } = file.value as Record<string, unknown>;
  try {
    parseOptions(options);
    say('ok', `${show(path)}: valid options`, note);
  } catch (error) {
    say('fail', `${show(path)}: ${firstLine(error)}`, note);
  }
}

/** .opencode/agenda: pending items, the next due time, who runs it, a pause, lines that were skipped. */
function checkAgenda(project: string, say: Say) {
  const agenda = readAgenda(project);
  const pending = agenda.list();
  const next = nextDue(pending);
  say('ok', pending.length === 0 ? 'no pending agenda items' : `${pending.length} pending agenda item(s)${next ? `, next due ${shortTime(next)}` : ''}`);
  const running = agendaLeaseHeld(project);
  say(running || pending.length === 0 ? 'ok' : 'warn', runner(project), ...(running ? [] : ['keep `opencode serve` running for the project (docs/agenda.md#triggers-fire-only-while-a-server-runs) so items fire on time']));
  if (agenda.paused) say('warn', 'the agenda is paused: nothing fires until orca agenda resume or /agenda-resume', ...(agenda.configProblem ? [agenda.configProblem] : []));
  for (const p of agenda.problems) say('warn', `.opencode/agenda/events.jsonl line ${p.line} was skipped: ${p.reason}`, p.text);
}

/** Why a config without `model` is a problem for Orca, and what to add. */
export const NO_MODEL = [
  'no OpenCode config sets "model": Orca\'s question dialog and slash commands stay off without one',
  '(OpenCode could otherwise pick the dialog\'s in-process stand-in as everybody\'s default model).',
  'Add "model": "<provider>/<model>" to opencode.json (opencode models lists them), or run orca init --model <provider>/<model>.',
] as const;

/** The config's `model` when it names one ("provider/model"), labelled with where it came from. */
function modelOf(config: unknown, where: string): string[] {
  const model = (config as { model?: unknown } | null)?.model;
  return typeof model === 'string' && model.includes('/') ? [`${model} (${where})`] : [];
}

function inlineConfig(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // OpenCode reports a broken OPENCODE_CONFIG_CONTENT itself when it starts
  }
}

const DECISIONS = {
  approval: 'approve|reject|changes',
  deviation: 'retry|replan|stop',
  budget: 'continue|stop',
  resume: 'rerun|done|stop',
  merge: 'ontop|resolved|stop',
  verification: 'replan|accept|stop',
} as const;

const firstLine = (error: unknown) => errorMessage(error).split('\n')[0];
