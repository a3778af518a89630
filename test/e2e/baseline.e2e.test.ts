// A verification that knows what failed before the plan (issue 50), on the real opencode binary with
// a scripted model. The project's configured check (`sh test.sh`) already fails on a known bug. While
// the planner drafts, Orca runs it once in a worktree slot and tells the planner's next requests that
// it fails; the first plan (a coder adds a file) passes its own review, the check fails after it the
// same way as before, which the verification reports as an old failure, and the plan completes without
// a gate. The second plan breaks the greeting the check also tests: that failure is new, and the plan
// waits at the verification gate with both outputs, its note saying which failure is old and which new.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, textOf, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview } from './team.js';
import { findNote } from '../support/said-notes.js';

/** Each check says what it found on a line of its own; a line that changes with every run says nothing failed. */
const TEST = [
  'status=0',
  'if grep -q fixed known.txt; then echo "ok known"; else echo "FAIL known: the old bug is still there"; status=1; fi',
  'if grep -q hello greeting.txt; then echo "ok greeting"; else echo "FAIL greeting: greeting.txt has no hello"; status=1; fi',
  'echo "checked at $(date +%s%N) in $(pwd)"',
  'exit $status',
].join('\n');
const NOTE = '# Checks that fail before this plan';

const firstUser = (req: RecordedRequest) => textOf(req.messages.find((m) => m.role === 'user')?.content);
const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)![1]!.trim();
const toldOfOldFailures = (req: RecordedRequest) => req.messages.some((m) => m.role === 'user' && textOf(m.content).includes(NOTE));

let model: ScriptedModel;
let server: OpencodeServer;
/** Planner requests that carried the note of what fails before the plan. */
const told: RecordedRequest[] = [];

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  // The second plan's requests: the user's (orca, planner) say BREAK, its step's say "say bye".
  const breaks = /BREAK|say bye/.test(JSON.stringify(req.messages));
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    // The planner looks at the project until Orca has told it what already fails (a minute at most), then plans.
    if (!toldOfOldFailures(req) && toolResults(req).length < 60) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { toolCalls: [{ name: 'read', arguments: { filePath: join(workdirOf(req), 'test.sh') } }] };
    }
    if (toldOfOldFailures(req)) told.push(req);
    const step = breaks
      ? { id: 'bye', agent: 'coder', files: ['greeting.txt'], description: 'Make greeting.txt say bye' }
      : { id: 'feature', agent: 'coder', files: ['feature.txt'], description: 'Add feature.txt' };
    return jsonReply({ type: 'plan', goal: breaks ? 'Say bye' : 'Add a feature', steps: [step], assumptions: [], risks: [], verification: [] });
  }
  if (agent === 'coder') {
    if (toolResults(req).length > 0) return jsonReply({ type: 'success', summary: 'done', artifacts: [] });
    const [file, content] = breaks ? ['greeting.txt', 'bye\n'] : ['feature.txt', 'a feature\n'];
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(workdirOf(req), file), content } }] };
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent}: ${firstUser(req).slice(0, 120)}`);
}

type Message = { info: { role: string }; parts: Array<{ type: string; text?: string; synthetic?: boolean }> };

async function plan(message: string): Promise<{ planId: string; sessionID: string }> {
  const sessionID = (await server.client.session.create({ title: message })).data!.id;
  const done = await server.client.session.prompt({ sessionID, agent: 'orca', parts: [{ type: 'text', text: message }] });
  if (done.error) throw new Error(`the Orca turn failed: ${JSON.stringify(done.error).slice(0, 500)}`);
  const planId = JSON.parse(lastToolResult(model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!)!.content).plan_id as string;
  return { planId, sessionID };
}

const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
const notes = async (sessionID: string) =>
  ((await server.client.session.messages({ sessionID })).data as unknown as Message[])
    .filter((m) => m.info.role === 'assistant')
    .flatMap((m) => m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text ?? ''));

describe('a verification that knows what failed before the plan', () => {
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    const options = { hitl: { auto: { approval: 'approve' } }, verification: { commands: ['sh test.sh'], turn: false }, ask_planner_returns: 'early' };
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, options]] }, requestTimeoutMs: 300_000 });
    for (const [file, content] of [['test.sh', TEST], ['known.txt', 'the bug\n'], ['greeting.txt', 'hello\n']] as const) writeFileSync(join(server.projectDir, file), content);
    spawnSync('git', ['add', '.'], { cwd: server.projectDir });
    spawnSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@orca.invalid', 'commit', '-q', '-m', 'a project with a known bug'], { cwd: server.projectDir });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('should tell the planner what fails before the plan, report that failure as old, and complete without a gate', async () => {
    const { planId, sessionID } = await plan('Add a feature.');
    await waitFor(() => planFile(planId).status === 'completed', { timeoutMs: 240_000, description: 'the plan completed' });
    // The planner was told while it drafted, in a request of its turn, with the check's own words.
    expect(told.length).toBeGreaterThan(0);
    const note = told[0]!.messages.map((m) => textOf(m.content)).find((t) => t.includes(NOTE))!;
    expect(note).toContain('- `sh test.sh`:');
    expect(note).toContain('FAIL known: the old bug is still there');
    expect(note).not.toContain('FAIL greeting');

    const v = planFile(planId).verification_result;
    expect(v.passed).toBe(false);
    expect(v.checks).toEqual([
      {
        kind: 'command',
        name: 'sh test.sh',
        passed: false,
        output: expect.stringContaining('FAIL known: the old bug is still there'),
        before: { passed: false, output: expect.stringContaining('FAIL known: the old bug is still there') },
      },
    ]);
    // It ran on the plan's base in a slot: the run directory is said as the project's.
    expect(v.checks[0].before.output).toContain(`in ${server.projectDir}`);
    expect(planFile(planId).decisions.filter((d: { gate: string }) => d.gate === 'verification')).toEqual([]);
    const outcome = await waitFor(async () => findNote(await notes(sessionID), forMarkdown(`Orca: plan ${planId} completed`)), {
      timeoutMs: 30_000,
      description: 'the outcome note',
    });
    expect(outcome).toContain('no new failure (1 check fails as before the plan)');
    expect(outcome).toContain("~ sh test.sh (failing before the plan too, not the plan's)");
  }, 300_000);

  it('should open the verification gate on a new failure, with how the check did before the plan and now', async () => {
    const { planId, sessionID } = await plan('BREAK the greeting.');
    await waitFor(() => planFile(planId).waiting_for === 'verification', { timeoutMs: 240_000, description: 'the plan at its verification gate' });
    const check = planFile(planId).verification_result.checks[0];
    expect(check.output).toContain('FAIL greeting: greeting.txt has no hello');
    expect(check.before).toEqual({ passed: false, output: expect.stringContaining('FAIL known') });
    expect(check.before.output).not.toContain('FAIL greeting');
    // The gate's note says it failed; orca show tells the new failure from how it did before.
    const gate = await waitFor(async () => (await notes(sessionID)).find((t) => t.includes('but its verification failed')), { timeoutMs: 30_000, description: 'the gate note' });
    expect(gate).toContain('(1 new failure of 1 check)');
    expect(gate).toContain('Failed, with a failure more than before the plan (a new failure): sh test.sh');
    expect(gate).toContain('Before the plan (on its base): failed');
    const show = spawnSync(process.execPath, [join(process.cwd(), 'dist', 'cli', 'main.js'), 'show', planId, '--dir', server.projectDir], { encoding: 'utf8' });
    expect(show.stdout).toContain('✗ sh test.sh: fails now, and differently from before the plan (a new failure)');
    expect(show.stdout).toContain("    on the plan's base");
  }, 300_000);
});
