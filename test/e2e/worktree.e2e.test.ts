// Every file-changing step in its own git worktree, on the real opencode binary with a scripted
// model: parallel coders editing one file in different hunks both land; the same line changed twice
// reaches the merge gate, and Run again on top (auto policy, and a human's /orca-ontop) runs the
// step again in a new worktree that holds the first step's change; a file written outside the step's
// declared files is flagged in the plan file and in the reviewer's prompt with the real patch; a
// project without git still runs its steps in the project directory; no worktree outlives its plan.
// The user's own uncommitted edits, index, branch and commits are never touched.
//
// Three projects open at once on the worker's shared server: `auto` (hitl.auto.merge=rerun) runs the
// hunks, clash and undeclared plans side by side; `human` (no merge policy) runs the clash answered by
// a slash command; `plain` is a project without git. Every plan starts in beforeAll; each test awaits its own.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { orcaWorktrees } from '../support/opencode-sandbox.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import {
  lastToolResult,
  startScriptedModel,
  textOf,
  toolResults,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedReply,
} from '../support/scripted-model.js';
import { dismiss, labels, nextQuestion, type QuestionRequest } from './hitl-answers.js';
import { agentOf, builtPluginUrl, isReviewRequest, jsonReply, passingReview, scenarioOf } from './team.js';
import { readLines } from '../support/read-tool.js';

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} line ${i + 1}`);
const asText = (ls: readonly string[]) => `${ls.join('\n')}\n`;
const A_LINES = lines('alpha', 12);
const B_LINES = lines('beta', 8);
const USER_README = '# e2e project\n\nThe user is editing this README (not committed).\n';
const USER_NOTES = 'untracked notes of the user: keep me\n';
const SNEAKY_C = 'SNEAKY-C-CONTENT written outside the declared files';
const HUMAN_GUIDANCE = 'keep both lines';

type StepPlan = { id: string; files: string[]; description: string };
const clashSteps: StepPlan[] = [
  { id: 'left', files: ['src/b.txt'], description: 'Change line 5 of src/b.txt the left way' },
  { id: 'right', files: ['src/b.txt'], description: 'Change line 5 of src/b.txt the right way' },
];
type Scenario = 'hunks' | 'clash' | 'sneaky' | 'human' | 'plain';
/** One plan per scenario; every step is a coder step, none depends on another: they run at once. */
const PLANS: Record<Scenario, StepPlan[]> = {
  hunks: [
    { id: 'top', files: ['src/a.txt'], description: 'Change line 1 of src/a.txt' },
    { id: 'bottom', files: ['src/a.txt'], description: 'Change line 10 of src/a.txt' },
  ],
  clash: clashSteps,
  sneaky: [{ id: 'sneaky', files: ['src/d.txt'], description: 'Create src/d.txt' }],
  human: clashSteps,
  plain: [{ id: 'plain', files: ['src/plain.txt'], description: 'Create src/plain.txt' }],
};
/**
 * The plans' concurrency, and so the pool of slots. Five steps start at once on the auto server (hunks 2,
 * clash 2, sneaky 1): with the default four one would wait, and could take the slot of a sibling that
 * ended first (then `top` and `bottom` share a folder one after the other: right, but not what the hunks
 * test is about).
 */
const POOL = 5;
const SERVER_OF: Record<Scenario, 'auto' | 'human' | 'plain'> = { hunks: 'auto', clash: 'auto', sneaky: 'auto', human: 'human', plain: 'plain' };

/** What each editing step does to its file's lines (1-based line numbers). */
const EDITS: Record<string, { file: string; line: number; edit: (old: string) => string }> = {
  top: { file: 'src/a.txt', line: 1, edit: (old) => `${old} EDITED BY top` },
  bottom: { file: 'src/a.txt', line: 10, edit: (old) => `${old} EDITED BY bottom` },
  left: { file: 'src/b.txt', line: 5, edit: (old) => `${old} changed by left` },
  right: { file: 'src/b.txt', line: 5, edit: (old) => `${old} changed by right` },
};
/** Files a step reads before it writes: `top` also reads the user's untracked notes, to see they are in its worktree. */
const READS: Record<string, string[]> = { top: ['notes.txt', 'src/a.txt'], bottom: ['src/a.txt'], left: ['src/b.txt'], right: ['src/b.txt'] };

let model: ScriptedModel;
const ofScenario = (agent: string, scenario: Scenario) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);

/** The first user message of the request's session: "Orca · plan_… · step top (coder) · attempt 1 …". */
const firstUser = (req: RecordedRequest) => textOf(req.messages.find((m) => m.role === 'user')?.content);
function stepOf(req: RecordedRequest): { step: string; attempt: number } {
  const found = /· step (\w+) \([\w-]+\) · attempt (\d+)/.exec(firstUser(req));
  if (!found) throw new Error(`no step header in ${JSON.stringify(firstUser(req).slice(0, 200))}`);
  return { step: found[1]!, attempt: Number(found[2]) };
}
/** The session's directory, from OpenCode's <env> block in the system prompt. */
function workdirOf(req: RecordedRequest): string {
  const found = /Working directory: (.+)/.exec(req.system);
  if (!found) throw new Error('no "Working directory:" in the system prompt');
  return found[1]!.trim();
}
const coderRequests = (scenario: Scenario, step: string, attempt?: number) =>
  ofScenario('coder', scenario).filter((r) => stepOf(r).step === step && (attempt === undefined || stepOf(r).attempt === attempt));


const success = (summary: string, artifacts: string[]) => jsonReply({ type: 'success', summary, artifacts, key_findings: [] });
// Generous: on a loaded 2-core machine a worktree's first turn can take half a minute.
const BARRIER_MS = 60_000;

async function coder(req: RecordedRequest): Promise<ScriptedReply> {
  const scenario = scenarioOf(req) as Scenario;
  const { step, attempt } = stepOf(req);
  const dir = workdirOf(req);
  const done = toolResults(req).length;

  if (step === 'sneaky') {
    // Declares src/d.txt, also writes src/c.txt, and claims only src/d.txt.
    if (done === 0)
      return {
        toolCalls: [
          { name: 'write', arguments: { filePath: join(dir, 'src', 'd.txt'), content: 'declared d\n' } },
          { name: 'write', arguments: { filePath: join(dir, 'src', 'c.txt'), content: `${SNEAKY_C}\n` } },
        ],
      };
    return success('created src/d.txt', ['src/d.txt']);
  }
  if (step === 'plain') {
    if (done === 0) return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'src', 'plain.txt'), content: 'written without git\n' } }] };
    return success('created src/plain.txt', ['src/plain.txt']);
  }

  const edit = EDITS[step]!;
  const reads = READS[step]!;
  if (done === 0) {
    if (step === 'bottom') {
      // Reads only once `top` has written its change in its own worktree: it must not see it.
      await waitFor(() => coderRequests(scenario, 'top').some((r) => toolResults(r).some((t) => t.name === 'write')), {
        timeoutMs: BARRIER_MS,
        description: "top's write before bottom reads",
      });
    }
    if ((step === 'left' || step === 'right') && attempt === 1) {
      // Both steps' worktrees exist (their sessions work there) before either writes: the second to land must clash.
      await waitFor(() => coderRequests(scenario, 'left', 1).length > 0 && coderRequests(scenario, 'right', 1).length > 0, {
        timeoutMs: BARRIER_MS,
        description: 'both clashing coders started',
      });
    }
  }
  if (done < reads.length) return { toolCalls: [{ name: 'read', arguments: { filePath: join(dir, reads[done]!) } }] };
  if (done === reads.length) {
    // The new content is made from what the read showed in this session's own directory.
    const current = readLines(toolResults(req).at(-1)!.content);
    if (current.length === 0) throw new Error(`read of ${edit.file} in ${dir} gave no lines`);
    current[edit.line - 1] = edit.edit(current[edit.line - 1]!);
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, edit.file), content: asText(current) } }] };
  }
  return success(`${step} edited ${edit.file} (attempt ${attempt})`, [edit.file]);
}

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req) as Scenario;
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    const steps = PLANS[scenario] as StepPlan[] | undefined;
    if (!steps) throw new Error(`no plan for scenario ${scenario}`);
    return jsonReply({
      type: 'plan',
      goal: `SCENARIO:${scenario} goal`,
      steps: steps.map((s) => ({ ...s, agent: 'coder' })),
      assumptions: [],
      risks: [],
      verification: [],
    });
  }
  if (agent === 'coder') return coder(req);
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent} in ${scenario}`);
}

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=orca-e2e', '-c', 'user.email=e2e@orca.invalid', ...args], { cwd: dir, encoding: 'utf8' });

/** Commit src/a.txt and src/b.txt, then leave the user's own uncommitted edits: README.md changed, notes.txt untracked. */
function seedProject(dir: string, git: boolean) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.txt'), asText(A_LINES));
  writeFileSync(join(dir, 'src', 'b.txt'), asText(B_LINES));
  if (git) {
    gitIn(dir, 'add', 'src');
    gitIn(dir, 'commit', '-q', '-m', 'seed');
  }
  writeFileSync(join(dir, 'README.md'), USER_README);
  writeFileSync(join(dir, 'notes.txt'), USER_NOTES);
}

/**
 * What is left under Orca's worktrees folder for the repository of `projectDir` (the server's home is
 * the worker's shared one, which other files' repositories use too): its slots, plan folders, their
 * step worktrees (`<step>.<attempt>`) and the records beside them.
 */
function worktreeLeftovers(home: string, projectDir: string): string[] {
  const folder = orcaWorktrees(home, projectDir);
  return existsSync(folder) ? readdirSync(folder, { recursive: true, encoding: 'utf8' }) : [];
}

describe('every file-changing step in its own git worktree', () => {
  const servers: Partial<Record<'auto' | 'human' | 'plain', OpencodeServer>> = {};
  reportOnFailure(() => ({ server: servers.auto, model }));
  reportOnFailure(() => ({ server: servers.human }));
  reportOnFailure(() => ({ server: servers.plain }));
  const runs = new Map<Scenario, { sessionID: string; done: Promise<unknown> }>();
  const before: Record<string, { count: string; branch: string; head: string }> = {};
  let humanGate: Promise<{ question: QuestionRequest; pages: string[] }>;

  const server = (scenario: Scenario) => servers[SERVER_OF[scenario]]!;
  const planFile = (scenario: Scenario, planId: string) => JSON.parse(readFileSync(join(server(scenario).projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  /** What orca_ask_planner returned to Orca once the scenario's prompt is over. */
  async function result(scenario: Scenario) {
    const prompt = (await runs.get(scenario)!.done) as { error?: unknown } | undefined;
    if (prompt?.error) throw new Error(`the Orca prompt of ${scenario} failed: ${JSON.stringify(prompt.error).slice(0, 500)}`);
    const last = ofScenario('orca', scenario).at(-1);
    const tool = last && lastToolResult(last);
    if (!tool) throw new Error(`Orca's last turn in ${scenario} does not follow an orca_ask_planner result`);
    return JSON.parse(tool.content);
  }
  const projectFile = (scenario: Scenario, path: string) => readFileSync(join(server(scenario).projectDir, path), 'utf8');
  const worktreesOf = (s: OpencodeServer) => orcaWorktrees(s.homeDir) + sep;

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    // setCacheKey: OpenCode sets a prompt cache key per session on this provider, as it does for OpenAI's; Orca makes it per plan and role.
    const policy = (auto: Record<string, string>) => ({
      plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve', deviation: 'stop', ...auto } }, concurrency: POOL }]],
      provider: { fake: { options: { setCacheKey: true } } },
    });
    const start = (name: 'auto' | 'human' | 'plain', auto: Record<string, string>, git: boolean) =>
      startOpencode({ server: 'shared', modelUrl: model.url, git, config: policy(auto), requestTimeoutMs: 180_000 }).then((s) => (servers[name] = s));
    // All three start at once; settle all before failing, so afterAll stops whichever did start.
    const started = await Promise.allSettled([start('auto', { merge: 'rerun' }, true), start('human', {}, true), start('plain', {}, false)]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;

    for (const name of ['auto', 'human', 'plain'] as const) {
      const dir = servers[name]!.projectDir;
      seedProject(dir, name !== 'plain');
      if (name !== 'plain')
        before[name] = { count: gitIn(dir, 'rev-list', '--count', 'HEAD').trim(), branch: gitIn(dir, 'symbolic-ref', 'HEAD').trim(), head: gitIn(dir, 'rev-parse', 'HEAD').trim() };
    }
    for (const scenario of Object.keys(PLANS) as Scenario[]) {
      const s = server(scenario);
      const session = (await s.client.session.create({ title: scenario })).data!;
      const done = s.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
      done.catch(() => {}); // awaited (and reported) by the scenario's test
      runs.set(scenario, { sessionID: session.id, done });
    }
    // The human dismisses the merge dialog as soon as it shows (Esc): the plan then waits at its gate, the prompt ends.
    // The conflicts do not fit in the question beside the worktree's and patch's paths: they are on pages read before it.
    humanGate = (async () => {
      const pages: string[] = [];
      // A prompt that ends first (a failed step stopped by hitl.auto.deviation) fails the test at once, with its result.
      const ended = runs.get('human')!.done.then(async () => {
        throw new Error(`the human plan's prompt ended before the merge dialog: ${JSON.stringify(await result('human'))}`);
      });
      ended.catch(() => {}); // after the dismissal the prompt ends too: then nobody listens
      const question = await Promise.race([nextQuestion(servers.human!, /(left|right) \(coder\), attempt 1\b/, 120_000, pages), ended]);
      await dismiss(servers.human!, question);
      return { question, pages };
    })();
    humanGate.catch(() => {}); // awaited (and reported) by its test
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
    await model?.close();
  });

  it("two parallel coders edit different hunks of one committed file in their own worktrees: both land, the user's edits, index, branch and commits untouched", async () => {
    const res = await result('hunks');
    expect(res).toMatchObject({ status: 'completed' });
    const auto = servers.auto!;

    // Each coder worked in a worktree slot of its own under the data home, not in the project.
    const top = coderRequests('hunks', 'top');
    const bottom = coderRequests('hunks', 'bottom');
    const slot = new RegExp(`^${escapeRe(worktreesOf(auto))}[0-9a-f]{12}${escapeRe(sep)}slots${escapeRe(sep)}\\d+$`);
    expect(workdirOf(top[0]!)).toMatch(slot);
    expect(workdirOf(bottom[0]!)).toMatch(slot);
    expect(workdirOf(top[0]!)).not.toBe(workdirOf(bottom[0]!));
    // top's worktree holds the user's untracked file as it was when the step started.
    expect(toolResults(top.at(-1)!)[0]!.content).toContain(USER_NOTES.trim());
    // bottom read its file after top had written line 1 in its worktree, and saw the committed line 1.
    const bottomRead = readLines(toolResults(bottom.at(-1)!)[0]!.content);
    expect(bottomRead).toEqual(A_LINES);

    const expected = [...A_LINES];
    expected[0] = `${A_LINES[0]} EDITED BY top`;
    expected[9] = `${A_LINES[9]} EDITED BY bottom`;
    expect(projectFile('hunks', 'src/a.txt')).toBe(asText(expected));

    const file = planFile('hunks', res.plan_id);
    expect(file.steps.map((s: any) => [s.id, s.status, s.attempts])).toEqual([
      ['top', 'completed', 1],
      ['bottom', 'completed', 1],
    ]);
    for (const step of file.steps) {
      expect(step.diff).toMatchObject({ files: [{ path: 'src/a.txt', status: 'modified', added: 1, removed: 1 }], undeclared: [], where: 'worktree' });
      expect(readFileSync(step.diff.patch_path, 'utf8')).toContain(`+${EDITS[step.id]!.edit(A_LINES[EDITS[step.id]!.line - 1]!)}`);
    }
    expect(file.decisions.filter((d: any) => d.gate === 'merge')).toEqual([]);

    // Every plan on this project has ended (the others change files too): then the user's side is checked whole.
    await Promise.all([result('clash'), result('sneaky')]);
    const dir = auto.projectDir;
    expect(projectFile('hunks', 'README.md')).toBe(USER_README);
    expect(projectFile('hunks', 'notes.txt')).toBe(USER_NOTES);
    expect(gitIn(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(gitIn(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(before.auto!.count);
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(before.auto!.head);
    expect(gitIn(dir, 'symbolic-ref', 'HEAD').trim()).toBe(before.auto!.branch);
    // Uncommitted changes in the working tree only (" M", "??"), the user's own among them.
    const status = gitIn(dir, 'status', '--porcelain', '--untracked-files=all', '--', 'src', 'README.md', 'notes.txt').split('\n').filter(Boolean).sort();
    expect(status).toEqual([' M README.md', ' M src/a.txt', ' M src/b.txt', '?? notes.txt', '?? src/c.txt', '?? src/d.txt']);
  }, 180_000);

  /** The clash of left and right: which landed first, which ran again on top, and what each attempt saw. */
  function clashOutcome(scenario: 'clash' | 'human', file: any) {
    const byId = Object.fromEntries(file.steps.map((s: any) => [s.id, s]));
    const loser = (['left', 'right'] as const).find((id) => byId[id].attempts === 2)!;
    expect(loser).toBeDefined();
    const winner = loser === 'left' ? 'right' : 'left';
    expect(byId[winner]).toMatchObject({ status: 'completed', attempts: 1 });
    expect(byId[loser]).toMatchObject({ status: 'completed', attempts: 2, failures: [{ attempt: 1, kind: 'merge' }] });
    const winnerLine = EDITS[winner]!.edit(B_LINES[4]!);
    const final = [...B_LINES];
    final[4] = EDITS[loser]!.edit(winnerLine);
    // Attempt 2 works in the same slot, reset to the user's tree as it is now, the winner's change already in it.
    const second = coderRequests(scenario, loser, 2);
    expect(workdirOf(second[0]!)).toBe(workdirOf(coderRequests(scenario, loser, 1)[0]!));
    expect(readLines(toolResults(second.at(-1)!)[0]!.content)[4]).toBe(winnerLine);
    // …and is told why its first changes did not land.
    expect(firstUser(second[0]!)).toContain(`MERGE: its changes clashed with the user's tree in src/b.txt, where step ${winner} landed a change first; run again on top of the tree as it is now`);
    return { loser, winner, winnerLine, final: asText(final) };
  }

  it("sibling coder steps in their worktrees share a cacheable prefix: the same tools and coder's prompt first, the directory after it, one cache key for the plan and role", async () => {
    const res = await result('hunks');
    const firsts = (['top', 'bottom'] as const).map((step) => coderRequests('hunks', step, 1)[0]!);
    const systems = firsts.map((req) => req.messages.filter((m) => m.role === 'system').map((m) => textOf(m.content)));
    // Two system messages: the coder's prompt, byte for byte the same in both steps, then OpenCode's <env> with each worktree.
    expect(systems.map((parts) => parts.length)).toEqual([2, 2]);
    expect(systems[0]![0]).toMatch(/^<!-- orca-agent:coder -->\n/);
    expect(systems[1]![0]).toBe(systems[0]![0]);
    expect(systems[0]![0]).not.toContain(worktreesOf(servers.auto!));
    expect(systems.map((parts) => parts[1])).toEqual([expect.stringContaining(workdirOf(firsts[0]!)), expect.stringContaining(workdirOf(firsts[1]!))]);
    expect(JSON.stringify(firsts[1]!.body.tools)).toBe(JSON.stringify(firsts[0]!.body.tools));
    // OpenCode's key was the session id (two sessions): both steps now carry the plan's coder key.
    const keyOf = (req: RecordedRequest) => req.body.promptCacheKey ?? req.body.prompt_cache_key;
    expect(firsts.map(keyOf)).toEqual([`orca-${res.plan_id}-coder`, `orca-${res.plan_id}-coder`]);
  });

  it('the same line changed by two parallel steps: one lands, the other reaches the merge gate; hitl.auto.merge=rerun runs it again on top and it lands', async () => {
    const res = await result('clash');
    expect(res).toMatchObject({ status: 'completed' });
    const file = planFile('clash', res.plan_id);
    const { loser, final } = clashOutcome('clash', file);
    expect(file.decisions.filter((d: any) => d.gate === 'merge')).toMatchObject([{ gate: 'merge', option: 'Run again on top', channel: 'auto', step_id: loser }]);
    expect(projectFile('clash', 'src/b.txt')).toBe(final);
    expect(file.waiting_for).toBeNull();
  }, 180_000);

  it('a file written outside the declared files is flagged in the plan file and in the reviewer’s prompt, with the real patch', async () => {
    const res = await result('sneaky');
    expect(res).toMatchObject({ status: 'completed' });
    const [step] = planFile('sneaky', res.plan_id).steps;
    expect(step.output.artifacts).toEqual(['src/d.txt']);
    expect(step.diff).toMatchObject({ undeclared: ['src/c.txt'], where: 'worktree' });
    expect([...step.diff.files].sort((a: any, b: any) => a.path.localeCompare(b.path))).toEqual([
      { path: 'src/c.txt', status: 'added', added: 1, removed: 0 },
      { path: 'src/d.txt', status: 'added', added: 1, removed: 0 },
    ]);
    expect(readFileSync(step.diff.patch_path, 'utf8')).toContain(`+${SNEAKY_C}`);

    const reviews = ofScenario('reviewer', 'sneaky').filter(isReviewRequest);
    expect(reviews).toHaveLength(1);
    const prompt = reviews[0]!.lastUser;
    expect(prompt).toContain('# What really changed');
    expect(prompt).toContain("- src/c.txt (added, +1 −0) — NOT DECLARED in the step's files");
    expect(prompt).toMatch(/- src\/d\.txt \(added, \+1 −0\)\n/);
    expect(prompt).toMatch(new RegExp("```diff\\n[^`]*\\+" + escapeRe(SNEAKY_C) + "\\n[^`]*```"));
    // The reviewer works in the step's worktree too.
    expect(workdirOf(reviews[0]!)).toBe(workdirOf(coderRequests('sneaky', 'sneaky')[0]!));
    // Flagged, not blocked: once the review passed, both files landed.
    expect(projectFile('sneaky', 'src/c.txt')).toBe(`${SNEAKY_C}\n`);
  }, 180_000);

  it('without a merge policy the clash waits at the merge gate with the user’s tree untouched; /orca-ontop runs it again on top and it lands', async () => {
    const h = servers.human!;
    const { question, pages } = await humanGate;
    const loser = /(left|right) \(coder\)/.exec(question.questions[0]!.question)![1]!;
    const winner = loser === 'left' ? 'right' : 'left';
    expect(question.questions[0]!.header).toBe(`Not applied: ${loser}`);
    expect(question.questions[0]!.question).toContain('Run it again on top of your tree, take its changes by hand, or stop?');
    expect(labels(question)).toEqual(['Run again on top', 'Resolved by hand', 'Stop']);
    // What the human reads: the clashing region, both sides named.
    const read = [...pages, question.questions[0]!.question].join('\n');
    expect(read).toContain(`<<<<<<< your working tree\n${EDITS[winner]!.edit(B_LINES[4]!)}\n=======\n${EDITS[loser]!.edit(B_LINES[4]!)}\n>>>>>>> step ${loser}`);
    const res = await result('human');
    expect(res).toMatchObject({ status: 'waiting', waiting_for: 'merge' });
    const waiting = planFile('human', res.plan_id);
    expect(waiting).toMatchObject({ status: 'in_progress', waiting_for: 'merge' });
    expect(waiting.steps.find((s: any) => s.id === loser)).toMatchObject({ status: 'awaiting_merge', attempts: 1 });
    // The user's tree has the winner's change only; the loser's slot is kept (claimed) while the gate is open.
    const winnerOnly = [...B_LINES];
    winnerOnly[4] = EDITS[winner]!.edit(B_LINES[4]!);
    expect(projectFile('human', 'src/b.txt')).toBe(asText(winnerOnly));
    expect(existsSync(workdirOf(coderRequests('human', loser, 1)[0]!))).toBe(true);

    const reply = await h.fetch(`/session/${runs.get('human')!.sessionID}/command`, {
      method: 'POST',
      body: JSON.stringify({ command: 'orca-ontop', arguments: HUMAN_GUIDANCE }),
      timeoutMs: 20_000,
    });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { parts: Array<{ type: string; text?: string }> };
    expect(body.parts.map((p) => p.text ?? '').join('')).toContain(`Run again on top for step ${loser} recorded for plan`);

    await waitFor(() => planFile('human', res.plan_id).status === 'completed', { timeoutMs: 30_000, description: 'the plan completes after /orca-ontop' });
    const file = planFile('human', res.plan_id);
    const outcome = clashOutcome('human', file);
    expect(outcome.loser).toBe(loser);
    expect(file.decisions.filter((d: any) => d.gate === 'merge')).toMatchObject([{ gate: 'merge', option: 'Run again on top', channel: 'command', step_id: loser }]);
    expect(firstUser(coderRequests('human', loser, 2)[0]!)).toContain(HUMAN_GUIDANCE);
    expect(projectFile('human', 'src/b.txt')).toBe(outcome.final);

    const dir = h.projectDir;
    expect(gitIn(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(before.human!.head);
    expect(projectFile('human', 'README.md')).toBe(USER_README);
  }, 180_000);

  it('without git a coder step runs in the project directory and completes, with no diff', async () => {
    const res = await result('plain');
    expect(res).toMatchObject({ status: 'completed' });
    const p = servers.plain!;
    expect(existsSync(join(p.projectDir, '.git'))).toBe(false);
    expect(p.logs()).toContain(`steps share the project directory (no git: what each changed is not measured): ${p.projectDir} is not in a git repository.`);
    expect(workdirOf(coderRequests('plain', 'plain')[0]!)).toBe(p.projectDir);
    expect(projectFile('plain', 'src/plain.txt')).toBe('written without git\n');
    const [step] = planFile('plain', res.plan_id).steps;
    expect(step).toMatchObject({ status: 'completed', attempts: 1 });
    expect(step.diff).toBeUndefined();
    // No repository, so no folder of its own under the worktrees folder: nothing there names its plan.
    const root = orcaWorktrees(p.homeDir);
    const named = existsSync(root) ? readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((path) => path.includes(res.plan_id)) : [];
    expect(named).toEqual([]);
  }, 180_000);

  it('no slot is held once its plan ended: the free ones stay, warm, within the pool, each locked in git as Orca\'s and reset to the user\'s HEAD (nothing of a step left), and no step folder or record is left', async () => {
    await Promise.all([result('hunks'), result('clash'), result('sneaky')]);
    const h = servers.human!;
    const human = await result('human');
    await waitFor(() => planFile('human', human.plan_id).status === 'completed', {
      timeoutMs: 40_000,
      description: 'the human plan completed',
    });
    for (const s of [servers.auto!, h]) {
      // A step's slot is given back when it lands, its plan's records go when the plan ends: bounded polling, not a sleep.
      const held = () => worktreeLeftovers(s.homeDir, s.projectDir).filter((path) => path.endsWith('.claim.json') || /plan_/.test(path));
      await waitFor(() => held().length === 0, { timeoutMs: 10_000, description: `no claim or plan record under ${worktreesOf(s)}` }).catch(() => {});
      expect(held()).toEqual([]);
      const slots = gitIn(s.projectDir, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .slice(1);
      // The pool keeps at most the plans' concurrency (POOL) of free slots, each a worktree git knows.
      expect(slots.length).toBeGreaterThan(0);
      expect(slots.length).toBeLessThanOrEqual(POOL);
      for (const line of slots) expect(line).toMatch(new RegExp(`^worktree ${escapeRe(worktreesOf(s))}[0-9a-f]{12}${escapeRe(sep)}slots${escapeRe(sep)}\\d+$`));
      // What `git worktree list -v` says of each: Orca's, and what removes it.
      const entries = gitIn(s.projectDir, 'worktree', 'list', '--porcelain').split('\n\n').slice(1).filter(Boolean);
      for (const entry of entries) expect(entry).toContain("\nlocked Orca's warm slot for plan steps (opencode-orca-statecharts); remove with: orca prune --slots");
      // Given back, each is reset once free: at the user's HEAD, nothing of its last step in its files or index.
      const head = gitIn(s.projectDir, 'rev-parse', 'HEAD').trim();
      const roots = slots.map((line) => line.slice('worktree '.length));
      const reset = () => roots.every((root) => gitIn(root, 'rev-parse', 'HEAD').trim() === head && gitIn(root, 'status', '--porcelain', '--untracked-files=all') === '');
      await waitFor(reset, { timeoutMs: 15_000, description: `every slot of ${s.projectDir} reset to its HEAD` }).catch(() => {});
      for (const root of roots) expect({ root, head: gitIn(root, 'rev-parse', 'HEAD').trim(), status: gitIn(root, 'status', '--porcelain', '--untracked-files=all') }).toEqual({ root, head, status: '' });
    }
  }, 180_000);
});

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
