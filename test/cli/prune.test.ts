import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inboxDir, postDecision } from '../../src/persistence/inbox.js';
import { loadSummaries, SUMMARY_CACHE_NAME } from '../../src/persistence/summary-cache.js';
import { workspaceSupport } from '../../src/workspace/support.js';
import { openWorktree, releaseSlot, resetFreeSlot } from '../../src/workspace/worktrees.js';
import { gitIn, initRepo } from '../workspace/repo.js';
import { agePlan, approvalPlan, failedStepPlan, runCli, runningPlan, tempProject, writesLanded, type Project } from './fixtures.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const prune = (...args: string[]) => runCli(['prune', '--dir', project.dir, ...args]);
const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };

const age = (planId: string, days: number) => agePlan(project.store, planId, days);

/** Every name in the plans folder that belongs to the plan. */
const artefactsOf = (planId: string) => readdirSync(project.store.dir).filter((n) => n.startsWith(planId));

describe('orca prune', () => {
  it('should list the drafts it would remove with status, age, size and total, and remove nothing (a dry run)', async () => {
    const host = project.host();
    const old = approvalPlan(host, 'old draft');
    const recent = approvalPlan(host, 'recent draft');
    await host.dispose();
    age(old, 45);
    age(recent, 3);
    postDecision(project.store.dir, old, { type: 'plan.message', message: 'x' }); // an inbox, to be sure it is counted
    const before = readdirSync(project.store.dir).sort();

    const { code, stdout, stderr } = await prune();
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('orca prune: .opencode/plans: drafts never approved, unchanged for more than 30 days; finished plans are kept (--finished-older-than <days> to include them)\n');
    // An old draft with a decision in its inbox is kept: someone acted on it.
    expect(stdout).toMatch(new RegExp(`  ${old} \\(pending_approval, draft, unchanged 45d\\): a decision waits in its inbox\\n`));
    expect(stdout).toContain('Nothing to remove.\n');
    rmInbox(old);

    const second = await prune();
    expect(second.stdout).toMatch(/Would remove 1 plan\(s\), \d+(\.\d)? kB:\n/);
    expect(second.stdout).toMatch(/ {2}PLAN +STATUS +KIND +UNCHANGED +SIZE\n/);
    expect(second.stdout).toMatch(new RegExp(`  ${old} +pending_approval +draft +45d +\\d+(\\.\\d)? kB\\n`));
    expect(second.stdout).toContain('Kept 1 plan(s): 1 changed more recently.\n');
    expect(second.stdout).toContain('A dry run: nothing was removed. Add --yes to remove these plans, their journals and inboxes.\n');
    expect(second.stdout).not.toContain(recent);
    expect(readdirSync(project.store.dir).sort()).toEqual(before);
    expect(existsSync(project.store.pathOf(old))).toBe(true);
  });

  it('should remove with --yes the plan file, its journal, its inbox, its lock and temp files, and its summary-cache entry', async () => {
    const host = project.host();
    const old = approvalPlan(host, 'old draft');
    const kept = approvalPlan(host, 'kept draft');
    await host.dispose();
    age(old, 45);
    mkdirSync(inboxDir(project.store.dir, old)); // an inbox whose decisions were taken
    writeFileSync(join(project.store.dir, `${old}.json.999999999.1.tmp`), '{'); // a write that never finished
    mkdirSync(join(project.store.dir, `${old}.json.lock`)); // the lock of a process that died long ago
    const stale = new Date(Date.now() - 60_000);
    utimesSync(join(project.store.dir, `${old}.json.lock`), stale, stale);
    loadSummaries(project.store); // the cache, as a start writes it
    expect(artefactsOf(old).sort()).toEqual([`${old}.inbox`, `${old}.journal.jsonl`, `${old}.json`, `${old}.json.999999999.1.tmp`, `${old}.json.lock`]);

    const { code, stdout, stderr } = await prune('--yes');
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`Removed 1 plan\\(s\\), \\d+(\\.\\d)? kB:\\n {2}PLAN.*\\n {2}${old} +pending_approval +draft +45d +`));
    expect(stdout).not.toContain('dry run');
    expect(artefactsOf(old)).toEqual([]);
    expect(artefactsOf(kept)).toContain(`${kept}.json`);
    const cache = JSON.parse(readFileSync(join(project.store.dir, SUMMARY_CACHE_NAME), 'utf8'));
    expect(Object.keys(cache.plans)).not.toContain(old);
    expect((await runCli(['plans', '--dir', project.dir])).stdout).not.toContain(old);
    expect((await prune()).stdout).toContain('Nothing to remove.\n');
  });

  it('should keep an old draft whose lease a live process holds', async () => {
    const host = project.host();
    const held = approvalPlan(host, 'held'); // the host still holds it
    await writesLanded(host, held); // none of its writes replaces the aged file later
    age(held, 45);
    const { code, stdout } = await prune('--yes');
    expect(code).toBe(0);
    expect(stdout).toContain('Nothing to remove.\n');
    expect(stdout).toMatch(new RegExp(`Kept 1 plan\\(s\\): 1 old but kept:\\n {2}${held} \\(pending_approval, draft, unchanged 45d\\): a process holds its lease \\(it runs there\\)\\n`));
    expect(existsSync(project.store.pathOf(held))).toBe(true);
  });

  it('should never remove a plan approved and waiting at a gate, however old and whatever the days', async () => {
    const host = project.host();
    const waiting = failedStepPlan(host, 1);
    await host.dispose();
    age(waiting, 400);
    const { code, stdout } = await prune('--drafts-older-than', '0', '--finished-older-than', '0', '--yes');
    expect(code).toBe(0);
    expect(stdout).toContain('Nothing to remove.\n');
    expect(stdout).toContain('Kept 1 plan(s): 1 approved and not finished (running, paused or waiting at a gate).\n');
    expect(existsSync(project.store.pathOf(waiting))).toBe(true);
    expect(existsSync(project.store.journalPathOf(waiting))).toBe(true);
  });

  it('should remove finished plans only when asked, with --finished-older-than or the prune option', async () => {
    const host = project.host();
    const rejected = approvalPlan(host, 'no thanks');
    host.send(rejected, { type: 'approval.reject', ...by });
    host.flush(rejected);
    await host.dispose();
    age(rejected, 100);
    expect((await prune()).stdout).toContain('Nothing to remove.\n\nKept 1 plan(s): 1 finished, not asked for.\n');
    expect((await prune('--finished-older-than', '120')).stdout).toContain('Nothing to remove.\n\nKept 1 plan(s): 1 changed more recently.\n');
    const asked = await prune('--finished-older-than', '90');
    expect(asked.stdout).toContain('finished plans (completed, failed, rejected), unchanged for more than 90 days\n');
    expect(asked.stdout).toMatch(new RegExp(`  ${rejected} +rejected +finished +100d +`));

    writeFileSync(join(project.dir, '.opencode', 'orca.jsonc'), '{ "prune": { "drafts_after_days": 7, "finished_after_days": 60 } }');
    const configured = await prune();
    expect(configured.stdout).toContain('drafts never approved, unchanged for more than 7 days; finished plans (completed, failed, rejected), unchanged for more than 60 days\n');
    expect(configured.stdout).toMatch(new RegExp(`Would remove 1 plan\\(s\\).*\\n.*\\n  ${rejected} +rejected`));
  });

  it('should leave quarantined files alone and say so', async () => {
    const host = project.host();
    const old = approvalPlan(host);
    await host.dispose();
    age(old, 45);
    const bad = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    writeFileSync(join(project.store.dir, `${bad}.json`), '{ "schema_version": 1 }');
    const dry = await prune();
    // prune moves nothing: a file that does not load is named and left where it is.
    expect(dry.stdout).toMatch(new RegExp(`Left alone: ${bad}\\.json does not load \\(.*\\); orca plans moves it to the quarantine\\.\\n`));
    expect(existsSync(join(project.store.dir, `${bad}.json`))).toBe(true);
    await runCli(['plans', '--dir', project.dir]); // quarantines it
    const quarantined = readdirSync(project.store.quarantineDir);
    expect(quarantined).toHaveLength(2); // the file and its reason

    const { code, stdout } = await prune('--yes');
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`Removed 1 plan\\(s\\)`));
    expect(stdout).toMatch(new RegExp(`Left alone: 1 quarantined file\\(s\\) in \\.opencode/plans/\\.quarantine \\(never pruned; orca doctor lists them\\):\\n {2}${bad}\\.json\\.[-\\dTZ]+ \\(\\d+ B\\)\\n`));
    expect(readdirSync(project.store.quarantineDir)).toEqual(quarantined);
  });

  it('should say there is nothing to prune in a project without plans', async () => {
    const { code, stdout } = await prune();
    expect(code).toBe(0);
    expect(stdout).toContain('Nothing to remove.\n');
  });

  it.each([
    [['--drafts-older-than', 'soon'], /^orca: --drafts-older-than must be a whole number of days from 0 to 36500, got "soon"\.$/],
    [['--drafts-older-than=-5'], /^orca: --drafts-older-than must be a whole number of days from 0 to 36500, got "-5"\.$/],
    [['--finished-older-than', '1.5'], /^orca: --finished-older-than must be a whole number of days from 0 to 36500, got "1\.5"\.$/],
    [['--finished-older-than', '99999'], /^orca: --finished-older-than must be a whole number of days from 0 to 36500, got "99999"\.$/],
    [['--drafts-older-than', '-5'], /^orca: --drafts-older-than must be a whole number of days from 0 to 36500, got "-5"\.$/],
    [['extra'], /^orca: orca prune takes at most 0 argument\(s\), got 1: "extra" \(orca --help\)\.$/],
  ])('should refuse %j with what was expected and exit 2', async (args, message) => {
    const { code, stdout, stderr } = await prune(...args);
    expect(stderr.trimEnd()).toMatch(message);
    expect(code).toBe(2);
    expect(stdout).toBe('');
  });

  it('should refuse --yes and the day counts on other commands', async () => {
    expect(await runCli(['plans', '--yes'])).toMatchObject({ code: 2, stderr: 'orca: orca plans does not take --yes (orca --help).\n' });
    expect(await runCli(['plans', '--drafts-older-than', '3'])).toMatchObject({ code: 2, stderr: 'orca: orca plans does not take --drafts-older-than (orca --help).\n' });
  });

  it('should refuse (exit 1) when the Orca options that hold its defaults do not load', async () => {
    writeFileSync(join(project.dir, '.opencode', 'orca.jsonc'), '{ "prune": { "drafts_after_days": 0 } }');
    const { code, stderr } = await prune();
    expect(code).toBe(1);
    expect(stderr).toMatch(/^orca: the Orca options do not load, and they say how long plans are kept: .*orca\.jsonc: prune\.drafts_after_days: .* \(orca doctor\)\n$/);
  });
});

describe('orca prune --slots', () => {
  let home: string;
  let sleeper: ChildProcess | undefined;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'orca-cli-slots-'));
  });
  afterEach(() => {
    sleeper?.kill();
    rmSync(home, { recursive: true, force: true });
  });
  const env = () => ({ HOME: home, XDG_DATA_HOME: join(home, 'data') });
  const slots = (...args: string[]) => runCli(['prune', '--slots', '--dir', project.dir, ...args], env());
  const listed = () => gitIn(project.dir, 'worktree', 'list', '--porcelain');
  const orcaClaim = (step_id: string, pid: number) => ({ plan_id: '', step_id, attempt: 0, base: null, pid, host: hostname(), run: 'another process' });

  /**
   * The repository's slots, one of each kind: held by a running plan's step (with its work), free and
   * reset, given back and not reset (its step's change staged), held by a plan that ended (rejected),
   * by a plan this project does not have, left by an Orca process that is gone, Orca's work of a live
   * process, and a claim of an older Orca that names no process.
   */
  async function slotsOfEveryKind() {
    initRepo(project.dir, { 'README.md': 'hello\n', '.gitignore': '.opencode/\n' });
    const host = project.host();
    const live = runningPlan(host);
    const ended = approvalPlan(host, 'no thanks');
    host.send(ended, { type: 'approval.reject', ...by });
    host.flush(ended);
    await host.dispose();
    const support = await workspaceSupport(project.dir, { dataHome: env().XDG_DATA_HOME });
    if (!support.ok) throw new Error(support.reason);
    const open = (planId: string, stepId: string) => openWorktree(support, { planId, stepId, attempt: 1, include: [] }).then((w) => w.root!);
    const root = {
      held: await open(live, 's1'),
      free: await open(ended, 'early'),
      notReset: await open(ended, 'late'),
      ended: await open(ended, 's1'),
      left: await open(OTHER_PLAN, 's1'),
      stale: await open(ended, 'stale'),
      busy: await open(ended, 'busy'),
      unknown: await open(ended, 'unknown'),
    };
    writeFileSync(join(root.held, 'work.txt'), 'the step at work\n');
    await releaseSlot(support, root.free, ended, 'early');
    await resetFreeSlot(support, root.free);
    writeFileSync(join(root.notReset, 'README.md'), 'changed by the step\n');
    gitIn(root.notReset, 'add', '-A');
    await releaseSlot(support, root.notReset, ended, 'late');
    writeFileSync(`${root.stale}.claim.json`, JSON.stringify(orcaClaim('reset', deadPid())));
    sleeper = spawn('sleep', ['60']);
    writeFileSync(`${root.busy}.claim.json`, JSON.stringify(orcaClaim('reset', sleeper.pid!)));
    writeFileSync(`${root.unknown}.claim.json`, JSON.stringify({ plan_id: '', step_id: 'prepare', attempt: 0, base: null }));
    return { support, live, ended, root };
  }

  it('should list the slots it would remove (free, left by a process that is gone, of a plan that ended), name the ones it keeps and why, and remove nothing', async () => {
    const { live, ended, root } = await slotsOfEveryKind();
    const before = listed();

    const { code, stdout, stderr } = await slots();
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`orca prune --slots: Orca's worktree slots of the git repository at ${realpathSync(project.dir)}, in `);
    expect(stdout).toMatch(/Would remove 4 slot\(s\), \d+ B:\n {2}SLOT +PATH +STATE +SIZE\n/);
    const row = (path: string, state: string) => new RegExp(`\\n {2}\\d+ +${escape(path)} +${escape(state)} +\\d+ B\\n`);
    expect(stdout).toMatch(row(root.free, 'free'));
    expect(stdout).toMatch(row(root.notReset, 'free, not reset'));
    expect(stdout).toMatch(row(root.ended, `held by ${ended}, ended`));
    expect(stdout).toMatch(row(root.stale, `left by process ${deadPid.last}, gone`));
    expect(stdout).toContain('\nKept 4 slot(s):\n');
    expect(stdout).toContain(`  ${root.held}: held by ${live} step s1, attempt 1; `);
    expect(stdout).toContain("a step of a plan of this project not finished holds it, with the step's work");
    expect(stdout).toContain(`  ${root.left}: held by ${OTHER_PLAN} step s1, attempt 1; `);
    expect(stdout).toContain(`  ${root.busy}: being reset by Orca (process ${sleeper!.pid}); `);
    expect(stdout).toContain(`  ${root.unknown}: held by Orca's prepare (a version that does not name its process); `);
    expect(stdout).toContain(`${root.unknown}.claim.json`);
    expect(stdout).toContain('A dry run: nothing was removed. Add --yes to remove these slots (their git worktree entries and folders).\n');
    expect(listed()).toBe(before);
    for (const path of Object.values(root)) expect(existsSync(path)).toBe(true);
  });

  it('should remove them with --yes (their locked git worktree entries and folders) and say what it removed; a slot a step holds stays, with its work', async () => {
    const { live, root } = await slotsOfEveryKind();
    expect(listed()).toContain(`worktree ${root.free}\nHEAD`);
    expect(listed()).toMatch(new RegExp(`worktree ${escape(root.free)}\\n[^]*?locked Orca's warm slot`));

    const { code, stdout, stderr } = await slots('--yes');
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Removed 4 slot\(s\), \d+ B: their git worktree entries and folders\n {2}SLOT +PATH +STATE +SIZE\n/);
    expect(stdout).not.toContain('dry run');
    for (const gone of [root.free, root.notReset, root.ended, root.stale]) {
      expect(stdout).toContain(` ${gone} `);
      expect(existsSync(gone)).toBe(false);
      expect(existsSync(`${gone}.claim.json`)).toBe(false);
      expect(existsSync(`${gone}.last-step.json`)).toBe(false);
      expect(listed()).not.toContain(`worktree ${gone}\n`);
    }
    for (const kept of [root.held, root.left, root.busy, root.unknown]) expect(listed()).toContain(`worktree ${kept}\n`);
    expect(readFileSync(join(root.held, 'work.txt'), 'utf8')).toBe('the step at work\n');
    expect(JSON.parse(readFileSync(`${root.held}.claim.json`, 'utf8'))).toMatchObject({ plan_id: live, step_id: 's1' });

    const again = await slots('--yes');
    expect(again.stdout).toContain('Nothing to remove.\n\nKept 4 slot(s):\n');
  });

  it('should say there are no slots without git, and refuse the day counts beside --slots and --slots on other commands', async () => {
    const none = await slots();
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^orca prune --slots: no worktree slots: .* is not in a git repository\.\n$/);
    expect(await slots('--drafts-older-than', '3')).toMatchObject({
      code: 2,
      stderr: 'orca: orca prune --slots removes worktree slots only: it takes no --drafts-older-than or --finished-older-than (orca --help).\n',
    });
    expect(await runCli(['doctor', '--slots'])).toMatchObject({ code: 2, stderr: 'orca: orca doctor does not take --slots (orca --help).\n' });
  });
});

const OTHER_PLAN = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pid of a process of this machine that has ended (the last one given is kept, to be named). */
function deadPid(): number {
  deadPid.last = spawnSync('true').pid!;
  return deadPid.last;
}
deadPid.last = 0;

/** Its decisions taken, as a process that ran the plan would have. */
function rmInbox(planId: string) {
  for (const name of readdirSync(inboxDir(project.store.dir, planId))) rmSync(join(inboxDir(project.store.dir, planId), name));
}
