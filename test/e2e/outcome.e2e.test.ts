// What a plan did, on the real opencode binary with a scripted model (issue 49): two parallel coder
// steps, each in its own worktree slot, in a git repository where the user has an uncommitted edit of
// their own in another file. Once the plan completes its session gets the outcome note (per step its
// files with +/-, its review, the verification and where the changes are); `orca diff` prints what
// landed, /orca-diff posts it; `orca undo` lists what it would do, refuses (touching nothing) once the
// user changed a landed line, takes it all back leaving the user's own edit, HEAD and the index; /orca-redo
// puts it back; and `kill -9` in the middle of an undo leaves every file as before it or as after it,
// never between, which the next `orca undo` settles and says.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { reportOnFailure } from '../support/failure-report.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, textOf, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview } from './team.js';
import { findNote } from '../support/said-notes.js';

/** The `many` step adds this many files: an undo takes long enough to be killed in the middle. */
const GENERATED = 150;
const lines = (edit: Record<number, string> = {}) => Array.from({ length: 12 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const STEPS = [
  { id: 'edit', agent: 'coder', files: ['a.txt'], description: 'Change line 3 of a.txt' },
  { id: 'many', agent: 'coder', files: ['gen/', 'b.txt'], description: `Add ${GENERATED} files under gen/ and a line to b.txt` },
];

const firstUser = (req: RecordedRequest) => textOf(req.messages.find((m) => m.role === 'user')?.content);
const stepOf = (req: RecordedRequest) => /· step (\w+) \(coder\)/.exec(firstUser(req))?.[1];
const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)![1]!.trim();

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') return jsonReply({ type: 'plan', goal: 'Two changes side by side', steps: STEPS, assumptions: [], risks: [], verification: [] });
  if (agent === 'coder') {
    const step = stepOf(req);
    const dir = workdirOf(req);
    if (toolResults(req).length > 0) return jsonReply({ type: 'success', summary: `${step} done`, artifacts: [] });
    if (step === 'edit') return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'a.txt'), content: lines({ 3: 'edited by the plan' }) } }] };
    const command = `mkdir -p gen && for i in $(seq 1 ${GENERATED}); do echo "generated $i" > gen/f$i.txt; done && echo "added by the plan" >> b.txt`;
    return { toolCalls: [{ name: 'bash', arguments: { command, description: 'Generate the files' } }] };
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent}: ${firstUser(req).slice(0, 120)}`);
}

type Message = { info: { role: string }; parts: Array<{ type: string; text?: string; synthetic?: boolean }> };

let model: ScriptedModel;
let server: OpencodeServer;
let sessionID: string;
let planId: string;

const read = (path: string) => readFileSync(join(server.projectDir, path), 'utf8');
const git = (...args: string[]) => spawnSync('git', args, { cwd: server.projectDir, encoding: 'utf8' }).stdout;
const cli = (...args: string[]) => spawnSync(process.execPath, [join(projectRoot, 'dist', 'cli', 'main.js'), ...args, '--dir', server.projectDir], { encoding: 'utf8', timeout: 30_000 });
const generated = () => (existsSync(join(server.projectDir, 'gen')) ? readdirSync(join(server.projectDir, 'gen')).length : 0);
/** What the user's index, HEAD and branches are: an undo must leave them as they were. */
const gitState = () => ({
  index: createHash('sha1').update(readFileSync(join(server.projectDir, '.git', 'index'))).digest('hex'),
  head: git('rev-parse', 'HEAD'),
  refs: git('for-each-ref'),
  staged: git('diff', '--cached', '--name-only'),
});
/** The plan's changes, all in the tree (`after`), or all out (`before`). */
/** The plan's landed steps as an undo names them: the last landed first (the two coders run in parallel, so either may land last). */
const undoOrder = () => {
  const file = JSON.parse(read(`.opencode/plans/${planId}.json`)) as { steps: Array<{ id: string; diff?: { landed?: { at: string } } }> };
  const at = (s: (typeof file.steps)[number]) => s.diff!.landed!.at;
  return file.steps.filter((s) => s.diff?.landed).sort((a, b) => (at(b) < at(a) ? -1 : 1)).map((s) => s.id);
};
const landedState = () => {
  const count = generated();
  const a = read('a.txt');
  const b = read('b.txt');
  if (count === GENERATED && a === lines({ 3: 'edited by the plan' }) && b === 'b\nadded by the plan\n') return 'landed';
  if (count === 0 && a === lines() && b === 'b\n') return 'taken back';
  return `between: ${count} generated files, a.txt ${a === lines() ? 'before' : 'after'}, b.txt ${b === 'b\n' ? 'before' : 'after'}`;
};

async function command(name: string, args: string): Promise<string> {
  const before = (await server.client.session.messages({ sessionID })).data!.length;
  const res = await server.fetch(`/session/${sessionID}/command`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ command: name, arguments: args }), timeoutMs: 30_000 });
  expect(res.status).toBe(200);
  return waitFor(
    async () => {
      const list = ((await server.client.session.messages({ sessionID })).data as unknown as Message[]).slice(before);
      const reply = list.find((m) => m.info.role === 'assistant' && m.parts.some((p) => p.type === 'text' && !p.synthetic && p.text));
      return reply?.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text).join('');
    },
    { timeoutMs: 30_000, description: `the reply of /${name}` },
  );
}

describe('what a plan did: shown, checked, undone', () => {
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    const options = { hitl: { auto: { approval: 'approve' } }, verification: { commands: ['test -f a.txt'], turn: false }, ask_planner_returns: 'early' };
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, options]] }, requestTimeoutMs: 300_000 });
    writeFileSync(join(server.projectDir, 'a.txt'), lines());
    writeFileSync(join(server.projectDir, 'b.txt'), 'b\n');
    writeFileSync(join(server.projectDir, 'mine.txt'), 'mine\n');
    spawnSync('git', ['add', 'a.txt', 'b.txt', 'mine.txt'], { cwd: server.projectDir });
    spawnSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@orca.invalid', 'commit', '-q', '-m', 'start'], { cwd: server.projectDir });
    // The user's own uncommitted edit, in a file no step touches: it stays through all of it.
    writeFileSync(join(server.projectDir, 'mine.txt'), 'my own edit, not committed\n');
    sessionID = (await server.client.session.create({ title: 'outcome' })).data!.id;
    const done = await server.client.session.prompt({ sessionID, agent: 'orca', parts: [{ type: 'text', text: 'Make two changes side by side.' }] });
    if (done.error) throw new Error(`the Orca turn failed: ${JSON.stringify(done.error).slice(0, 500)}`);
    planId = JSON.parse(lastToolResult(model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!)!.content).plan_id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('should post the outcome in the session: each step with the files it landed and its review, the verification, and where the changes are', async () => {
    const note = await waitFor(
      async () => {
        const list = (await server.client.session.messages({ sessionID })).data as unknown as Message[];
        const texts = list.filter((m) => m.info.role === 'assistant').flatMap((m) => m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text ?? ''));
        return findNote(texts, forMarkdown(`Orca: plan ${planId} completed`));
      },
      { timeoutMs: 240_000, description: 'the outcome note in the session' },
    );
    expect(landedState()).toBe('landed');
    expect(note).toContain('✓ edit (coder) done · review passed in round 1');
    expect(note).toContain('    a.txt +1 −1');
    expect(note).toContain('✓ many (coder) done · review passed in round 1');
    // Its files on two lines at most, the rest counted.
    expect(note).toMatch(/ {4}b\.txt \+1 −0, gen\/f1\.txt \+1 −0 \(new\),[^\n]*\n {4}[^\n]* … \d+ more\n/);
    expect(note).toContain(`Verification in your project (${server.projectDir}): passed\n    ✓ test -f a.txt`);
    expect(note).toMatch(new RegExp(`Total: ${GENERATED + 2} files changed, \\+${GENERATED + 2} −1 · `));
    expect(note).toContain(forMarkdown(`The changes are in your working tree, not committed:\n    /orca-diff ${planId} shows them\n    /orca-undo ${planId} takes them back`));
  }, 300_000);

  it('should print what landed with orca diff, a patch git takes back, and post it with /orca-diff', async () => {
    const diff = cli('diff', planId);
    expect([diff.status, diff.stderr]).toEqual([0, '']);
    expect(diff.stdout).toContain(`# ${planId} · edit (coder) · landed`);
    expect(diff.stdout).toContain('+edited by the plan');
    expect(diff.stdout).toContain('+added by the plan');
    expect(spawnSync('git', ['apply', '-R', '--check', '-'], { cwd: server.projectDir, input: diff.stdout }).status).toBe(0);
    const posted = await command('orca-diff', `${planId} --step edit`);
    expect(posted).toContain(forMarkdown(`Orca: what plan ${planId} landed in your working tree (step edit):`));
    expect(posted).toContain('```diff');
    expect(posted).toContain('+edited by the plan');
    expect(posted).not.toContain('gen/f1.txt');
  }, 60_000);

  it("should list what an undo would do, refuse once a landed line changed, then take it all back leaving the user's edit, HEAD and the index", async () => {
    const before = gitState();
    const order = undoOrder();
    expect([...order].sort()).toEqual(['edit', 'many']);
    const steps = order.join(', ');
    const dry = cli('undo', planId);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain(`Undo would take the changes of ${steps} (plan ${planId}) back out of your working tree:`);
    expect(dry.stdout).toMatch(/modified {2}a\.txt +\+1 −1/);
    expect(dry.stdout).toMatch(/deleted {3}gen\/f1\.txt +\+0 −1/);
    expect(landedState()).toBe('landed');

    // The user rewrote the plan's line: the undo names it and touches nothing.
    writeFileSync(join(server.projectDir, 'a.txt'), lines({ 3: 'the user rewrote it' }));
    const refused = cli('undo', planId, '--yes');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('Nothing changed: these lines changed since the plan landed them');
    expect(refused.stdout).toMatch(/ {2}a\.txt:\d+ \(step edit\): patch failed: a\.txt:\d+/);
    expect(generated()).toBe(GENERATED);
    writeFileSync(join(server.projectDir, 'a.txt'), lines({ 3: 'edited by the plan' }));

    const undone = cli('undo', planId, '--yes');
    expect([undone.status, undone.stderr]).toEqual([0, '']);
    expect(undone.stdout).toContain(`Took the changes of ${steps} (plan ${planId}) back out of your working tree: ${GENERATED + 2} files.`);
    expect(landedState()).toBe('taken back');
    expect(read('mine.txt')).toBe('my own edit, not committed\n');
    expect(gitState()).toEqual(before);
    const file = JSON.parse(read(`.opencode/plans/${planId}.json`));
    expect(file.undos).toMatchObject([{ kind: 'undo', steps: order, channel: 'cli' }]);
    expect(read(`.opencode/plans/${planId}.journal.jsonl`)).toContain('"kind":"rewind","direction":"undo"');

    const redone = await command('orca-redo', `${planId} --yes`);
    expect(redone).toContain(forMarkdown(`Orca: Put the changes of ${steps} (plan ${planId}) back in your working tree`));
    expect(landedState()).toBe('landed');
    expect(gitState()).toEqual(before);
  }, 120_000);

  it('should leave every file as before an undo or as after it when kill -9 cuts it short, and say which at the next start', async () => {
    const intent = join(server.projectDir, '.opencode', 'plans', `${planId}.patches`, 'rewind.intent.json');
    const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli', 'main.js'), 'undo', planId, '--yes', '--dir', server.projectDir], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Killed once it has begun writing: its intent is on disk and some generated files are gone.
    let killedMidway = false;
    for (let i = 0; i < 20_000 && child.exitCode === null; i++) {
      if (existsSync(intent) && generated() < GENERATED) {
        child.kill('SIGKILL');
        killedMidway = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await exited;
    expect(killedMidway, 'the undo was killed while it wrote the tree').toBe(true);
    expect(landedState()).toMatch(/^between/);

    // The next start settles it, and says which way.
    // Its lease is a dead process's: the next start waits until it is stale, then settles the undo.
    const next = cli('undo', planId);
    expect(next.stderr).toBe('');
    expect(next.stdout).toMatch(new RegExp(`^An undo of plan ${planId} \\(${undoOrder().join(', ')}\\) was interrupted(: your working tree was put back as it was before it\\.| after it had changed every file: it is done, and recorded\\.)`));
    expect(existsSync(intent)).toBe(false);
    const settled = landedState();
    expect(settled === 'landed' || settled === 'taken back').toBe(true);
    expect(read('mine.txt')).toBe('my own edit, not committed\n');
  }, 120_000);
});
