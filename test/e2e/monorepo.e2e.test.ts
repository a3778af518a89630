// A project that is a folder of a larger git repository (issue 33.4), on the real opencode binary
// with a scripted model. The project is a folder inside a repository built here, one per case, all
// started at once (OWN_SERVER says which cases need a server of their own):
// - `tracked`: git tracks the folder's files;
// - `untracked`: the folder holds only untracked files;
// - `empty`: a new package, git carries nothing of it (the harness's own `.opencode` seed in it is
//   excluded through the repository's info/exclude, as a user's would be by their ignore rules);
// - `ignored`: the enclosing repository is a home directory kept in git with `*` ignored (the
//   server's HOME is that repository): steps share the project directory, unmeasured, and Orca says
//   why once in its log and in `orca doctor`;
// - `linked`: the enclosing repository is itself a linked worktree (`git worktree add`) of another.
// Each runs a plan of one coder step that reads a file of the project (where there is one) in its
// working directory (OpenCode's "Working directory:" line) and writes its change there. The step
// must work in a worktree slot's copy of the folder (`<slot>/<prefix>`), or in the project
// directory when ignored; its change must land in the user's folder as an uncommitted change, the
// user's index (a change staged beforehand), HEAD and branch untouched.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDist } from '../support/dist-snapshot.js';
import { reportOnFailure } from '../support/failure-report.js';
import { orcaWorktrees, xdgDirs } from '../support/opencode-sandbox.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { readLines } from '../support/read-tool.js';
import { agentOf, jsonReply, passingReview, scenarioOf } from './team.js';

type Case = 'tracked' | 'untracked' | 'empty' | 'ignored' | 'linked';
const CASES: Case[] = ['tracked', 'untracked', 'empty', 'ignored', 'linked'];
/**
 * The cases on a server of their own (`ignored`: its server's HOME is that repository); the others are
 * projects on the worker's shared server, whose OpenCode config (the scripted model's provider, Orca)
 * is the project's `.opencode/opencode.json`. In `empty`, git carries nothing of the folder, that file
 * included: Orca places it in the slot's copy of the folder, or the step's instance there has no model.
 */
const OWN_SERVER: Case[] = ['ignored'];

/** What each case's coder reads (project-relative, when the folder has a file) and the file it writes. */
const WORK: Record<Case, { read?: string; target: string }> = {
  tracked: { read: 'src/index.txt', target: 'src/index.txt' },
  untracked: { read: 'notes.txt', target: 'src/new.txt' },
  empty: { target: 'index.js' },
  ignored: { read: 'src/index.txt', target: 'src/index.txt' },
  linked: { read: 'src/index.txt', target: 'src/index.txt' },
};
const INDEX_LINES = ['// the package of the e2e monorepo', 'export const answer = 42;'];
const NOTES_LINES = ['untracked notes of the user, in a package git does not track yet'];
const coderLine = (c: Case) => `written by the ${c} coder in its working directory`;
const asText = (ls: readonly string[]) => `${ls.join('\n')}\n`;
/** What the step's target holds once it landed: what the coder read, then its own line. */
const expectedTarget = (c: Case) => asText([...(c === 'untracked' ? NOTES_LINES : c === 'empty' ? [] : INDEX_LINES), coderLine(c)]);

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=orca-e2e', '-c', 'user.email=e2e@orca.invalid', ...args], { cwd: dir, encoding: 'utf8' });
const gitCode = (dir: string, ...args: string[]) => {
  try {
    execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
};
function write(path: string, text: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}
function newRepo(dir: string) {
  mkdirSync(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
}

interface Layout {
  /** The enclosing repository's working tree. */
  toplevel: string;
  /** The project folder in it, as git says it (`packages/app/`). */
  prefix: string;
  project: string;
  /** The server's HOME, when the case needs it somewhere (the ignored case: the repository itself). */
  home?: string;
  /** The repository whose .git every worktree shares (the linked case: the main checkout). */
  common: string;
}

/** Builds the case's repository under `root`; the user has a change staged in it (outside the project folder). */
function buildCase(c: Case, root: string): Layout {
  if (c === 'ignored') {
    const home = join(root, 'home');
    newRepo(home);
    write(join(home, '.gitignore'), '*\n');
    write(join(home, '.bashrc'), 'export EDITOR=vi\n');
    gitIn(home, 'add', '-f', '.gitignore', '.bashrc');
    gitIn(home, 'commit', '-q', '-m', 'dotfiles');
    const project = join(home, 'projects', 'app');
    write(join(project, 'src', 'index.txt'), asText(INDEX_LINES));
    write(join(home, '.bashrc'), 'export EDITOR=vim\n');
    gitIn(home, 'add', '.bashrc');
    return { toplevel: home, prefix: 'projects/app/', project, home, common: home };
  }
  const main = join(root, c === 'linked' ? 'main' : 'repo');
  newRepo(main);
  write(join(main, 'README.md'), '# e2e monorepo\n');
  write(join(main, 'packages', 'lib', 'lib.txt'), 'the shared library\n');
  const prefix = c === 'empty' ? 'packages/new/' : 'packages/app/';
  if (c === 'tracked' || c === 'linked') write(join(main, prefix, 'src', 'index.txt'), asText(INDEX_LINES));
  gitIn(main, 'add', '.');
  gitIn(main, 'commit', '-q', '-m', 'monorepo');
  let toplevel = main;
  if (c === 'linked') {
    toplevel = join(root, 'feature');
    gitIn(main, 'worktree', 'add', '-q', '-b', 'feature', toplevel);
  }
  const project = join(toplevel, prefix);
  mkdirSync(project, { recursive: true });
  if (c === 'untracked') write(join(project, 'notes.txt'), asText(NOTES_LINES));
  // The server's config dir the harness seeds in the project (see opencode-sandbox.ts) is hidden from git here: the folder stays empty to git.
  if (c === 'empty') write(join(main, '.git', 'info', 'exclude'), `/${prefix}.opencode/\n`);
  write(join(toplevel, 'packages', 'lib', 'lib.txt'), 'the shared library, staged change of the user\n');
  gitIn(toplevel, 'add', 'packages/lib/lib.txt');
  return { toplevel, prefix, project: project.replace(/\/$/, ''), common: main };
}

/** The user's side of the repository: what later must be as it was (plus the step's change). */
function userSide(l: Layout) {
  return {
    index: gitIn(l.toplevel, 'ls-files', '--stage'),
    head: gitIn(l.toplevel, 'rev-parse', 'HEAD').trim(),
    branch: gitIn(l.toplevel, 'symbolic-ref', 'HEAD').trim(),
    commits: gitIn(l.toplevel, 'rev-list', '--count', 'HEAD').trim(),
    refs: gitIn(l.toplevel, 'for-each-ref'),
    status: statusLines(l.toplevel),
    mainHead: gitIn(l.common, 'rev-parse', 'HEAD').trim(),
  };
}
const statusLines = (dir: string) => gitIn(dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort();

/** The session's directory, from OpenCode's <env> block in the system prompt. */
function workdirOf(req: RecordedRequest): string {
  const found = /Working directory: (.+)/.exec(req.system);
  if (!found) throw new Error('no "Working directory:" in the system prompt');
  return found[1]!.trim();
}

let model: ScriptedModel;
const requestsOf = (agent: string, c: Case) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === c);

function coder(req: RecordedRequest): ScriptedReply {
  const c = scenarioOf(req) as Case;
  const { read, target } = WORK[c];
  const dir = workdirOf(req);
  const done = toolResults(req).length;
  const reads = read ? [read] : [];
  if (done < reads.length) return { toolCalls: [{ name: 'read', arguments: { filePath: join(dir, reads[done]!) } }] };
  if (done === reads.length) {
    const seen = read ? readLines(lastToolResult(req)!.content) : [];
    if (read && seen.length === 0) throw new Error(`read of ${read} in ${dir} gave no lines`);
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, target), content: asText([...seen, coderLine(c)]) } }] };
  }
  return jsonReply({ type: 'success', summary: `wrote ${target}`, artifacts: [target], key_findings: [] });
}

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const c = scenarioOf(req) as Case;
  if (!CASES.includes(c)) throw new Error(`no case in a ${agent} request`);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner')
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${c} goal`,
      steps: [{ id: 'write', agent: 'coder', files: [WORK[c].target], description: `Write ${WORK[c].target}` }],
      assumptions: [],
      risks: [],
      verification: [],
    });
  if (agent === 'coder') return coder(req);
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${c}`);
}

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const worktreesOf = (s: OpencodeServer) => orcaWorktrees(s.homeDir);
const count = (text: string, part: string) => text.split(part).length - 1;

describe('a project inside a larger git repository', () => {
  const servers: Partial<Record<Case, OpencodeServer>> = {};
  const layouts: Partial<Record<Case, Layout>> = {};
  const before: Partial<Record<Case, ReturnType<typeof userSide>>> = {};
  /** Git's view of the folder before the plan: tracked and untracked-not-ignored files. */
  const carried: Partial<Record<Case, { tracked: string; untracked: string }>> = {};
  const runs = new Map<Case, { sent: number; done: Promise<unknown>; ms: Promise<number> }>();
  let root: string;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  for (const c of CASES) reportOnFailure(() => ({ server: servers[c], ...(c === 'tracked' ? { model } : {}) }));

  async function result(c: Case) {
    const prompt = (await runs.get(c)!.done) as { error?: unknown } | undefined;
    if (prompt?.error) throw new Error(`the Orca prompt of ${c} failed: ${JSON.stringify(prompt.error).slice(0, 500)}`);
    const tool = requestsOf('orca', c).map(lastToolResult).filter(Boolean).at(-1);
    if (!tool) throw new Error(`Orca's last turn in ${c} does not follow an orca_ask_planner result`);
    return JSON.parse(tool.content);
  }
  const planFile = (c: Case, planId: string) => JSON.parse(readFileSync(join(layouts[c]!.project, '.opencode', 'plans', `${planId}.json`), 'utf8'));

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'orca-monorepo-')));
    for (const c of CASES) layouts[c] = buildCase(c, join(root, c));
    // Steps' slots load the plugin again while the file runs: a copy, so a build elsewhere cannot take it away.
    [model, plugin] = await Promise.all([startScriptedModel({ respond }), snapshotDist('orca-monorepo-dist-')]);
    const config = { plugin: [[plugin.url, { hitl: { auto: { approval: 'approve', deviation: 'stop' } } }]] };
    const start = (c: Case) =>
      startOpencode({
        ...(layouts[c]!.home ? { homeDir: layouts[c]!.home } : {}),
        ...(OWN_SERVER.includes(c) ? {} : { server: 'shared' as const }),
        modelUrl: model.url,
        git: false,
        projectDir: layouts[c]!.project,
        config,
        requestTimeoutMs: 300_000, // the Orca prompt blocks while its plan runs: two minutes at load 16
      }).then((s) => (servers[c] = s));
    // All at once; settle all before failing, so afterAll stops whichever did start.
    const started = await Promise.allSettled(CASES.map(start));
    for (const s of started) if (s.status === 'rejected') throw s.reason;

    for (const c of CASES) {
      const l = layouts[c]!;
      before[c] = userSide(l);
      carried[c] = {
        tracked: gitIn(l.toplevel, 'ls-files', '--', l.prefix),
        untracked: gitIn(l.toplevel, 'ls-files', '--others', '--exclude-standard', '--', l.prefix),
      };
      const s = servers[c]!;
      const session = (await s.client.session.create({ title: c })).data!;
      const sent = Date.now();
      const done = s.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${c}` }] });
      done.catch(() => {}); // awaited (and reported) by the case's test
      runs.set(c, { sent, done, ms: done.then(() => Date.now() - sent, () => Date.now() - sent) });
    }
  }, 180_000);

  afterAll(async () => {
    // For the record, not a test: how long each case took from its prompt, and when each agent's first request came.
    const firstOf = (agent: string, c: Case, sent: number) => {
      const at = requestsOf(agent, c)[0]?.at;
      return at === undefined ? '-' : `${agent} +${at - sent}`;
    };
    const times = await Promise.all(
      [...runs].map(async ([c, run]) => `${c} ${await run.ms} ms (${['orca', 'planner', 'coder', 'reviewer'].map((a) => firstOf(a, c, run.sent)).join(', ')})`),
    );
    if (times.length > 0) console.log(`monorepo e2e:\n${times.join('\n')}`);
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
    await model?.close();
    plugin?.remove();
    if (root && !process.env.ORCA_E2E_KEEP) rmSync(root, { recursive: true, force: true });
  });

  /** The plan completed, its one step in a slot's copy of the folder; its change landed in the user's folder, uncommitted. */
  async function landedFromSlot(c: Case, status: string) {
    const res = await result(c);
    expect(res).toMatchObject({ status: 'completed' });
    const s = servers[c]!;
    const l = layouts[c]!;
    const folder = l.prefix.replace(/\/$/, '');
    const { target } = WORK[c];

    // The coder and its reviewer worked in `<slots>/<n>/<prefix>`, the slot being a worktree of the enclosing repository.
    const coders = requestsOf('coder', c);
    expect(coders.length).toBeGreaterThan(0);
    const dir = workdirOf(coders[0]!);
    const slots = join(orcaWorktrees(s.homeDir, l.common), 'slots');
    expect(dir).toMatch(new RegExp(`^${escapeRe(slots + sep)}\\d+${escapeRe(sep + folder)}$`));
    const slot = dir.slice(0, -folder.length - 1);
    expect(gitIn(l.toplevel, 'worktree', 'list', '--porcelain')).toContain(`worktree ${slot}\n`);
    expect(requestsOf('reviewer', c).map(workdirOf)).toEqual([dir]);
    // What it read there is the user's file, as it is in the user's folder.
    if (WORK[c].read) expect(readLines(toolResults(coders.at(-1)!)[0]!.content)).toEqual(c === 'untracked' ? NOTES_LINES : INDEX_LINES);

    const [step] = planFile(c, res.plan_id).steps;
    expect(step).toMatchObject({ status: 'completed', attempts: 1 });
    // Measured by git in the slot, project-relative: the target alone (in the empty case, nothing was in the folder before).
    const modified = WORK[c].read === target;
    const added = modified ? 1 : expectedTarget(c).split('\n').length - 1;
    expect(step.diff).toMatchObject({ files: [{ path: target, status: modified ? 'modified' : 'added', added, removed: 0 }], undeclared: [], where: 'worktree' });

    // Landed in the user's folder as an uncommitted change; index (the staged change), HEAD, branch and commits as they were.
    expect(readFileSync(join(l.project, target), 'utf8')).toBe(expectedTarget(c));
    const was = before[c]!;
    expect(userSide(l)).toEqual({ ...was, status: [...was.status, `${status} ${l.prefix}${target}`].sort() });
    return { dir, slot };
  }

  it('a tracked folder: the step works in the slot copy of it and its change lands there', async () => {
    expect(carried.tracked!.tracked).not.toBe('');
    await landedFromSlot('tracked', ' M');
    expect(servers.tracked!.logs()).toContain('file-changing steps work in their own git worktrees');
  }, 300_000);

  it('a folder of untracked files only: the slot carries them, the step reads one and its new file lands', async () => {
    expect(carried.untracked).toMatchObject({ tracked: '' });
    expect(carried.untracked!.untracked).toContain('packages/app/notes.txt');
    await landedFromSlot('untracked', '??');
  }, 300_000);

  it('an empty folder (a new package git carries nothing of): the slot has the folder, made empty, and the step works in it', async () => {
    expect(carried.empty).toEqual({ tracked: '', untracked: '' });
    await landedFromSlot('empty', '??');
  }, 300_000);

  it('a repository that is itself a linked worktree: the slot is a worktree of the same repository, neither checkout moves', async () => {
    const l = layouts.linked!;
    expect(gitIn(l.toplevel, 'rev-parse', '--path-format=absolute', '--git-common-dir').trim()).toBe(join(l.common, '.git'));
    const { slot } = await landedFromSlot('linked', ' M');
    expect(gitIn(l.common, 'worktree', 'list', '--porcelain')).toContain(`worktree ${slot}\n`);
    expect(before.linked!.branch).toBe('refs/heads/feature');
    expect(gitIn(l.common, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(statusLines(l.common)).toEqual([]);
  }, 300_000);

  it('a folder the enclosing repository ignores (a home directory in git, `*` ignored): steps share the project directory, and Orca says why once', async () => {
    const l = layouts.ignored!;
    expect(gitCode(l.toplevel, 'check-ignore', '-q', 'projects/app')).toBe(0);
    const res = await result('ignored');
    expect(res).toMatchObject({ status: 'completed' });
    const s = servers.ignored!;
    const reason = `the project folder projects/app is ignored by the git repository at ${l.toplevel}, so git carries none of its files.`;
    expect(count(s.logs(), reason)).toBe(1);
    expect(s.logs()).toContain(`steps share the project directory (no git: what each changed is not measured): ${reason}`);

    const coders = requestsOf('coder', 'ignored');
    expect(coders.map(workdirOf)).toEqual(coders.map(() => l.project));
    expect(readLines(toolResults(coders.at(-1)!)[0]!.content)).toEqual(INDEX_LINES);
    const [step] = planFile('ignored', res.plan_id).steps;
    expect(step).toMatchObject({ status: 'completed', attempts: 1 });
    expect(step.diff).toBeUndefined();
    expect(readFileSync(join(l.project, WORK.ignored.target), 'utf8')).toBe(expectedTarget('ignored'));
    // No slot was made; git's side of the home directory is as it was (the staged .bashrc).
    expect(existsSync(worktreesOf(s))).toBe(false);
    expect(userSide(l)).toEqual(before.ignored);
    expect(before.ignored!.status).toEqual(['M  .bashrc']);

    // `orca doctor`, the built CLI run with the server's HOME and XDG dirs, names the reason too.
    const doctor = await runDoctor(s, plugin.url);
    expect(doctor).toContain(`✓ steps share the project directory: ${reason}`);
  }, 300_000);

  it('orca doctor in a monorepo package says its steps get their own worktree, and lists the slot', async () => {
    await result('tracked');
    const s = servers.tracked!;
    const doctor = await runDoctor(s, plugin.url);
    expect(doctor).toContain(`✓ file-changing steps get their own worktree, under ${worktreesOf(s)}${sep}`);
    expect(doctor).toMatch(/✓ \d+ (free )?worktree slot\(s\)/);
    expect(doctor).not.toContain('steps share the project directory');
  }, 300_000);
});

/** `node dist/cli/main.js doctor --dir <project>` from the plugin's copy, with the server's HOME and XDG dirs. */
function runDoctor(s: OpencodeServer, pluginUrl: string): Promise<string> {
  const cli = join(fileURLToPath(pluginUrl), '..', 'cli', 'main.js');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.homeDir, ...xdgDirs(s.homeDir) };
  return new Promise((resolve, reject) => {
    // Exits 1 when it finds a problem (here: the plugin is loaded through OPENCODE_CONFIG_CONTENT, no config file): the text is what counts.
    execFile(process.execPath, [cli, 'doctor', '--dir', s.projectDir], { env, timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof (error as { code?: unknown }).code !== 'number') reject(new Error(`orca doctor failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
