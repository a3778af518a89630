import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageInfo, packageRoot } from '../../src/cli/package-info.js';
import { gitIn, initRepo } from '../workspace/repo.js';
import { openWorktree, releaseSlot } from '../../src/workspace/worktrees.js';
import { workspaceSupport } from '../../src/workspace/support.js';
import { agePlan, approvalPlan, budgetPlan, failedStepPlan, mergePlan, runCli, runningPlan, tempProject, type Project } from './fixtures.js';

let project: Project;
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  project = tempProject();
  // A home of its own: the developer's real OpenCode config and cache are never read.
  home = mkdtempSync(join(tmpdir(), 'orca-cli-home-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), PATH: '/usr/bin:/bin' };
});
afterEach(async () => {
  await project.remove();
  rmSync(home, { recursive: true, force: true });
});

const doctor = () => runCli(['doctor', '--dir', project.dir], env);
const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
function fakeOpencode(dir: string, version: string) {
  write(join(dir, 'opencode'), `#!/bin/sh\necho "${version}"\n`);
  chmodSync(join(dir, 'opencode'), 0o755);
}
const { version } = packageInfo();

describe('orca doctor', () => {
  it('should report OpenCode, the plugin entry and its cache copy, quarantined files and waiting plans', async () => {
    fakeOpencode(join(project.dir, 'node_modules', '.bin'), '1.18.33');
    write(join(project.dir, 'opencode.jsonc'), '{\n  // mine\n  "model": "anthropic/claude-x",\n  "plugin": [["opencode-orca-statecharts", { "max_attempts": 3 }]],\n}\n');
    const cached = join(env.XDG_CACHE_HOME!, 'opencode', 'packages', 'opencode-orca-statecharts@latest', 'node_modules', 'opencode-orca-statecharts');
    write(join(cached, 'package.json'), '{ "name": "opencode-orca-statecharts", "version": "0.0.9" }');
    const host = project.host();
    const waiting = approvalPlan(host);
    await host.dispose();
    const bad = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    write(join(project.store.dir, `${bad}.json`), '{ "schema_version": 1 }');

    const { code, stdout, stderr } = await doctor();
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stderr).toBe('');
    expect(stdout).toContain("  ✓ OpenCode 1.18.33 (the project's node_modules/.bin/opencode): supported (1.18.3 … 1.18.33)\n");
    expect(stdout).toContain(`  ✓ this CLI is opencode-orca-statecharts ${version} (${packageRoot})\n`);
    expect(stdout).toContain('  ✓ opencode.jsonc: valid\n');
    expect(stdout).toContain(`  ✓ plugin entry "opencode-orca-statecharts" with valid options\n      loads from ${cached} (OpenCode's package cache)\n      version there: 0.0.9 (this CLI is ${version})\n`);
    expect(stdout).toContain('  ✓ model anthropic/claude-x (opencode.jsonc)\n');
    expect(stdout).toMatch(/ {2}✓ 1 plan\(s\) in \.opencode\/plans, (\d+(\.\d)? kB): 1 draft\(s\) never approved \(\1\), 0 finished, 0 other\n {6}orca prune would remove none: drafts never approved, unchanged for more than 30 days; finished plans are kept \(--finished-older-than <days> to include them\)\n/);
    expect(stdout).not.toContain('has no .gitignore'); // the host made the folder, with its .gitignore
    expect(stdout).toMatch(new RegExp(`  ! quarantined: \\.opencode/plans/\\.quarantine/${bad}\\.json\\.[-\\dTZ]+\\n      not an Orca plan file \\(no schema_version or snapshot\\)\\n`));
    expect(stdout).toContain(`  ! ${waiting} waits for approval: orca decide ${waiting} approve|reject|changes\n      Add a greeting to the home page\n`);
    expect(stdout).toMatch(/No problems found\.\n$/);
    expect(code).toBe(0);
  });

  it('should warn about a plans folder without a .gitignore (made by an earlier version): OpenCode snapshots it at every turn', async () => {
    const host = project.host();
    approvalPlan(host);
    await host.dispose();
    rmSync(join(project.store.dir, '.gitignore'));
    const { stdout } = await doctor();
    expect(stdout).toContain(`  ! .opencode/plans has no .gitignore: OpenCode's file snapshot hashes the plan files again at every turn (slower plans)\n      add one that holds "*" unless you commit your plans (docs/plan-files.md)\n`);
  });

  it('should fail on invalid JSONC, invalid plugin options, and a config that does not load the plugin', async () => {
    fakeOpencode(join(project.dir, 'bin'), '1.17.0');
    env.PATH = `${join(project.dir, 'bin')}:${env.PATH}`;
    write(join(project.dir, 'opencode.json'), '{ "model": "x/y", "plugin": [["opencode-orca-statecharts@0.1.0", { "max_attempts": 0, "colour": "red" }]] }');
    write(join(project.dir, '.opencode', 'opencode.jsonc'), '{ "model": ');
    const { code, stdout } = await doctor();
    expect(stdout).toContain(
      `  ! OpenCode 1.17.0 (opencode on PATH, ${join(project.dir, 'bin', 'opencode')}): older than the versions Orca supports (1.18.3 … 1.18.33)\n      Orca may not work on it (a warning, not a refusal): update OpenCode to 1.18.3 or later, up to 1.18.33\n`,
    );
    expect(stdout).toMatch(/ {2}✗ plugin entry "opencode-orca-statecharts@0\.1\.0": Invalid opencode-orca-statecharts plugin options: (\(root\): Unrecognized key: "colour"; max_attempts: .*|max_attempts: .*)\n/);
    expect(stdout).toContain(`opencode-orca-statecharts@0.1.0/node_modules/opencode-orca-statecharts (not in OpenCode's package cache yet: OpenCode installs opencode-orca-statecharts@0.1.0 from npm when it starts)`);
    expect(stdout).toContain('  ✗ .opencode/opencode.jsonc: not valid JSONC: ValueExpected at line 1, column 12');
    expect(stdout).toMatch(/2 problem\(s\) found\.\n$/);
    expect(code).toBe(1);

    write(join(project.dir, 'opencode.json'), '{ "model": "x/y" }');
    write(join(project.dir, '.opencode', 'opencode.jsonc'), '{}');
    const none = await doctor();
    expect(none.stdout).toContain('  ✓ opencode.json: valid, does not load opencode-orca-statecharts\n');
    expect(none.stdout).toContain('  ✗ no OpenCode config loads opencode-orca-statecharts: run orca init\n');
    expect(none.code).toBe(1);
  });

  it('should say whether the OpenCode version is one Orca supports: a warning outside the range, not a problem', async () => {
    write(join(project.dir, 'opencode.json'), '{ "model": "x/y", "plugin": ["opencode-orca-statecharts"] }');
    const bin = join(project.dir, 'node_modules', '.bin');
    const said = async (version: string) => {
      fakeOpencode(bin, version);
      const { code, stdout } = await doctor();
      expect(stdout).toMatch(/No problems found\.\n$/);
      expect(code).toBe(0);
      // The OpenCode line and its detail line, if any.
      const lines = stdout.split('\n');
      const at = lines.findIndex((line) => /^ {2}. OpenCode /.test(line));
      return lines.slice(at, lines[at + 1]?.startsWith('      ') ? at + 2 : at + 1).join('\n');
    };
    const where = "(the project's node_modules/.bin/opencode)";
    expect(await said('1.18.3')).toBe(`  ✓ OpenCode 1.18.3 ${where}: supported (1.18.3 … 1.18.33)`);
    expect(await said('1.19.0')).toBe(
      `  ! OpenCode 1.19.0 ${where}: newer than the versions Orca supports (1.18.3 … 1.18.33)\n      Orca is not tested on it and may not work there (a warning, not a refusal); 1.18.33 is the newest OpenCode it is tested with`,
    );
    expect(await said('local-build')).toBe(
      `  ! OpenCode local-build ${where}: not a version Orca can compare with the ones it supports (1.18.3 … 1.18.33)\n      Orca cannot tell whether it works there (a warning, not a refusal)`,
    );
  });

  it('should follow a file:// entry to the package it points into, and say when opencode is missing', async () => {
    const entry = pathToFileURL(join(packageRoot, 'dist', 'index.js')).href;
    write(join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), JSON.stringify({ model: 'a/b', plugin: [entry] }));
    env.PATH = '';
    const { code, stdout } = await doctor();
    expect(stdout).toContain('  ! opencode not found (neither node_modules/.bin/opencode in the project nor on PATH)\n');
    expect(stdout).toContain(`  ✓ ${join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json')}: valid\n`);
    expect(stdout).toContain(`  ✓ plugin entry "${entry}" (no options)\n      loads from ${entry} (package at ${packageRoot})\n      version there: ${version}\n`);
    expect(stdout).toContain('  ✓ 0 plan(s) in .opencode/plans\n');
    expect(code).toBe(0);
  });

  it('should check the options of .opencode/orca.jsonc and say how it is read', async () => {
    expect((await runCli(['init', '--dir', project.dir, '--model', 'a/b'], env)).code).toBe(0);
    const fine = await doctor();
    expect(fine.stdout).toContain('  ✓ .opencode/orca.jsonc: valid options\n      read at start, over ~/.config/opencode/orca.jsonc and the opencode.json plugin entry\n');
    expect(fine.code).toBe(0);
    write(join(project.dir, '.opencode', 'orca.jsonc'), '{ "$schema": "x", "max_attempts": "ten" }');
    const bad = await doctor();
    expect(bad.stdout).toMatch(/ {2}✗ \.opencode\/orca\.jsonc: Invalid opencode-orca-statecharts plugin options: max_attempts: .*\n/);
    expect(bad.code).toBe(1);
  });

  it('should count a config without "model" as a problem, saying what to add; OPENCODE_CONFIG_CONTENT counts too', async () => {
    write(join(project.dir, 'opencode.json'), '{ "plugin": ["opencode-orca-statecharts"] }');
    const without = await doctor();
    expect(without.stdout).toContain(
      '  ✗ no OpenCode config sets "model": Orca\'s question dialog and slash commands stay off without one\n' +
        "      (OpenCode could otherwise pick the dialog's in-process stand-in as everybody's default model).\n" +
        '      Add "model": "<provider>/<model>" to opencode.json (opencode models lists them), or run orca init --model <provider>/<model>.\n',
    );
    expect(without.stdout).toMatch(/1 problem\(s\) found\.\n$/);
    expect(without.code).toBe(1);
    env.OPENCODE_CONFIG_CONTENT = JSON.stringify({ model: 'fake/fake-model' });
    const inline = await doctor();
    expect(inline.stdout).toContain('  ✓ model fake/fake-model (OPENCODE_CONFIG_CONTENT)\n');
    expect(inline.code).toBe(0);
  });

  it('should name a plan that is paused (work in flight, nothing runs it) and one that runs', async () => {
    write(join(project.dir, 'opencode.json'), '{ "model": "a/b", "plugin": ["opencode-orca-statecharts"] }');
    const host = project.host();
    const planId = runningPlan(host);
    expect((await doctor()).stdout).toContain(`  ✓ ${planId} is running in an OpenCode server\n      Add a greeting to the home page\n`);
    await host.dispose();
    const paused = await doctor();
    expect(paused.stdout).toContain(`  ! ${planId} is paused (work in flight, but nothing runs it): ask Orca in OpenCode to continue plan ${planId}\n`);
    expect(paused.code).toBe(0);
  });

  it('should say how to answer each plan waiting on a human: a failed step, the dispatch cap, changes that did not apply', async () => {
    const host = project.host({ policy: { max_dispatches: 1 } });
    const capped = budgetPlan(host);
    await host.dispose();
    const other = project.host();
    const failed = failedStepPlan(other, 1);
    await other.dispose();
    const isolated = project.host({ policy: { workspace: 'worktree' } });
    const merge = mergePlan(isolated);
    await isolated.dispose();
    const { stdout } = await doctor();
    expect(stdout).toContain(`  ! ${capped} waits for a decision at the budget gate: orca decide ${capped} continue|stop\n`);
    expect(stdout).toContain(`  ! ${failed} waits for a decision on a failed step: orca decide ${failed} retry|replan|stop\n`);
    expect(stdout).toContain(`  ! ${merge} waits for a decision on a step's changes that did not apply: orca decide ${merge} ontop|resolved|stop\n`);
  });

  it('should count the plans by kind with their disk use, and say what orca prune would remove with its defaults', async () => {
    const host = project.host();
    const draft = approvalPlan(host, 'old draft');
    const rejected = approvalPlan(host, 'rejected');
    host.send(rejected, { type: 'approval.reject', channel: 'command', at: '2026-01-01T00:00:00.000Z' });
    host.flush(rejected);
    const waiting = failedStepPlan(host, 1);
    await host.dispose();
    for (const id of [draft, rejected, waiting]) agePlan(project.store, id, 100);
    write(join(project.dir, '.opencode', 'orca.jsonc'), '{ "prune": { "finished_after_days": 90 } }');
    const { stdout } = await doctor();
    if (process.env.ORCA_PRINT) console.log(stdout);
    const size = '\\d+(?:\\.\\d)? kB';
    expect(stdout).toMatch(new RegExp(`  ✓ 3 plan\\(s\\) in \\.opencode/plans, ${size}: 1 draft\\(s\\) never approved \\(${size}\\), 1 finished \\(${size}\\), 1 other \\(${size}\\)\\n`));
    expect(stdout).toMatch(
      new RegExp(`      orca prune would remove 2 plan\\(s\\), ${size}: drafts never approved, unchanged for more than 30 days; finished plans \\(completed, failed, rejected\\), unchanged for more than 90 days\\n`),
    );
  });

  it("should list Orca's worktree slots, each with who holds it (or that it is free), its size and its lock in git; and say why steps share the tree without git", async () => {
    const plain = await doctor();
    expect(plain.stdout).toMatch(/Worktrees\n {2}✓ steps share the project directory: .* is not in a git repository\.\n/);
    initRepo(project.dir, { 'README.md': 'hello\n', '.gitignore': '.opencode/\n' });
    const host = project.host();
    const live = runningPlan(host);
    const ended = approvalPlan(host, 'no thanks');
    host.send(ended, { type: 'approval.reject', channel: 'command', at: '2026-01-01T00:00:00.000Z' });
    host.flush(ended);
    await host.dispose();
    env.XDG_DATA_HOME = join(home, 'data');
    const support = await workspaceSupport(project.dir, { dataHome: env.XDG_DATA_HOME });
    if (!support.ok) throw new Error(support.reason);
    const held = await openWorktree(support, { planId: live, stepId: 's1', attempt: 1, include: [] });
    const gone = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    const left = await openWorktree(support, { planId: gone, stepId: 'docs', attempt: 2, include: [] });
    const old = await openWorktree(support, { planId: ended, stepId: 's1', attempt: 1, include: [] });
    gitIn(project.dir, 'worktree', 'unlock', old.root!); // as a version before locks made it
    const free = await openWorktree(support, { planId: gone, stepId: 'free', attempt: 1, include: [] });
    await releaseSlot(support, free.root!, gone, 'free');
    write(join(project.dir, '.opencode', 'agent', 'helper.md'), '# helper\n');
    const { stdout } = await doctor();
    if (process.env.ORCA_PRINT) console.log(stdout);
    expect(stdout).toContain(`  ✓ file-changing steps get their own worktree, under ${support.worktrees} (unless isolation.mode is "none")\n`);
    // .opencode is ignored whole: its entries reach each slot, Orca's plans never.
    const hidden = /✓ OpenCode config git hides, placed in each slot at every reset \(folders linked, files copied; from the repository's top\):\n((?: {6}.*\n)+)/.exec(stdout);
    expect(hidden?.[1]).toContain('      .opencode/agent\n');
    expect(hidden?.[1]).not.toContain('plans');
    const size = '\\d+ B';
    const slot = (root: string, who: string, lock = 'locked') => ` {6}${escape(root)}: ${escape(who)}; ${size}; ${escape(lock)}\\n`;
    expect(stdout).toMatch(new RegExp(` {2}✓ 1 worktree slot\\(s\\) held by steps of plans not finished: ${size}\\n${slot(held.root!, `held by ${live} step s1, attempt 1`)}`));
    expect(stdout).toMatch(
      new RegExp(` {2}✓ 1 free worktree slot\\(s\\), kept warm for the next steps \\(orca prune --slots removes them\\): ${size}\\n${slot(free.root!, `free; still holds the files of step free of ${gone} until it is reset`)}`),
    );
    expect(stdout).toMatch(
      new RegExp(
        ` {2}! 1 worktree slot\\(s\\) still held by plans that ended \\(given back when OpenCode next starts in this project; orca prune --slots removes them\\): ${size}\\n${slot(old.root!, `held by ${ended} step s1, attempt 1`, 'not locked (made by an older Orca: locked at its next reset)')}`,
      ),
    );
    expect(stdout).toMatch(
      new RegExp(` {2}! 1 worktree slot\\(s\\) still held by plans this project does not have \\(given back when OpenCode next starts with Orca in this repository\\): ${size}\\n${slot(left.root!, `held by ${gone} step docs, attempt 2`)}`),
    );
    expect(stdout).toContain(
      `  ✓ git worktree list shows these 4, locked with the reason "Orca's warm slot for plan steps (opencode-orca-statecharts); remove with: orca prune --slots" (1 made by an older Orca not yet: locked at their next reset)\n`,
    );
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
