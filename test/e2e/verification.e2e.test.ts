// A plan's verification in the user's project once every step landed, on the real opencode binary
// with a scripted model. Two parallel coder steps, each right in its own worktree: `rename` renames
// lib.js's greet() to hello(), `cli` adds cli.js calling greet() (its copy still has it). Each passes
// its review; together the landed tree fails `node cli.js`. The configured command and the verifier's
// turn (which runs it with bash) both report it, so the plan waits at the verification gate
// with what failed, the user's tree holding both changes. /orca-replan sends the planner what failed;
// its revision adds a fix step; once it lands the verification passes and the plan completes, and
// `orca show` says what was verified, where.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, textOf, toolResults, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview } from './team.js';
import { runCli } from '../cli/fixtures.js';

const LIB = "exports.greet = (name) => `hello ${name}`;\n";
const RENAMED = "exports.hello = (name) => `hello ${name}`;\n";
const CLI = "const { greet } = require('./lib');\nconsole.log(greet('world'));\n";
const FIXED_CLI = "const { hello } = require('./lib');\nconsole.log(hello('world'));\n";
const STEPS = [
  { id: 'rename', agent: 'coder', files: ['lib.js'], description: "Rename lib.js's greet() to hello()" },
  { id: 'cli', agent: 'coder', files: ['cli.js'], description: "Add cli.js, which prints lib.js's greeting for 'world'" },
];
const FIX = { id: 'fix', agent: 'coder', files: ['cli.js'], description: 'Make cli.js call hello()', depends_on: ['rename', 'cli'] };

const firstUser = (req: RecordedRequest) => textOf(req.messages.find((m) => m.role === 'user')?.content);
const stepOf = (req: RecordedRequest) => /· step (\w+) \(coder\)/.exec(firstUser(req))?.[1];
const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)![1]!.trim();
const isVerification = (req: RecordedRequest) => firstUser(req).includes('# Verification of plan');

let model: ScriptedModel;
let server: OpencodeServer;
let sessionID: string;
let planId: string;

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') {
    // The revision comes after the verification failed: the planner is told what failed, and adds a fix.
    const replanned = req.messages.some((m) => m.role === 'user' && textOf(m.content).includes("the plan's verification failed there"));
    return jsonReply({ type: 'plan', goal: 'Greet with hello()', steps: replanned ? [...STEPS, FIX] : STEPS, assumptions: [], risks: [], verification: ['node cli.js prints the greeting'] });
  }
  if (agent === 'verifier' && isVerification(req)) {
    // The verifying turn runs the check with bash in the user's project, and reports what it saw.
    const ran = toolResults(req);
    if (ran.length === 0) return { toolCalls: [{ name: 'bash', arguments: { command: 'node cli.js', description: 'Run the CLI' } }] };
    const out = ran[0]!.content;
    return out.includes('hello world') && !/Error/.test(out)
      ? jsonReply({ type: 'success', summary: 'node cli.js prints the greeting', artifacts: [], key_findings: ['node cli.js: hello world'] })
      : jsonReply({ type: 'failure', error: `node cli.js fails: ${out.split('\n').find((l) => /Error/.test(l)) ?? out.slice(0, 200)}` });
  }
  if (agent === 'coder') {
    const step = stepOf(req);
    const dir = workdirOf(req);
    if (toolResults(req).length === 0) {
      const [file, content] = step === 'rename' ? ['lib.js', RENAMED] : step === 'cli' ? ['cli.js', CLI] : ['cli.js', FIXED_CLI];
      return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, file), content } }] };
    }
    return jsonReply({ type: 'success', summary: `${step} done`, artifacts: [step === 'rename' ? 'lib.js' : 'cli.js'], key_findings: [] });
  }
  const review = passingReview(req);
  if (review) return review;
  throw new Error(`unscripted ${agent}: ${firstUser(req).slice(0, 120)}`);
}

const planFile = () => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
const gitIn = (...args: string[]) => execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@orca.invalid', ...args], { cwd: server.projectDir, encoding: 'utf8' });

describe("a plan's verification in the user's project once every step landed", () => {
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    // The session stays free (the default): the gate is asked in it, and a slash command answers it.
    const options = { hitl: { auto: { approval: 'approve' } }, verification: { commands: ['node cli.js'], turn: true }, ask_planner_returns: 'early' };
    server = await startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, options]] }, requestTimeoutMs: 300_000 });
    writeFileSync(join(server.projectDir, 'lib.js'), LIB);
    gitIn('add', 'lib.js');
    gitIn('commit', '-q', '-m', 'lib');
    sessionID = (await server.client.session.create({ title: 'verification' })).data!.id;
    const done = await server.client.session.prompt({ sessionID, agent: 'orca', parts: [{ type: 'text', text: 'Rename greet to hello, and add a CLI that greets the world.' }] });
    if (done.error) throw new Error(`the Orca turn failed: ${JSON.stringify(done.error).slice(0, 500)}`);
    const result = JSON.parse(lastToolResult(model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!)!.content);
    expect(result.status).toBe('running');
    planId = result.plan_id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('should wait at the verification gate with what failed, once both steps landed and each passed its own review', async () => {
    await waitFor(() => planFile().waiting_for === 'verification', { timeoutMs: 240_000, description: 'the plan at its verification gate' });
    const file = planFile();
    expect(file.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['rename', 'completed'],
      ['cli', 'completed'],
    ]);
    // Both changes are in the user's tree: the verification ran on what landed.
    expect(readFileSync(join(server.projectDir, 'lib.js'), 'utf8')).toBe(RENAMED);
    expect(readFileSync(join(server.projectDir, 'cli.js'), 'utf8')).toBe(CLI);
    const v = file.verification_result;
    expect(v).toMatchObject({ passed: false, where: server.projectDir, changed: [] });
    expect(v.checks).toEqual([
      // Run again on the plan's base (no cli.js there): it failed there too, but not this way, so it is the plan's.
      {
        kind: 'command',
        name: 'node cli.js',
        passed: false,
        output: expect.stringMatching(/failed \(exit 1\)[\s\S]*greet is not a function/),
        before: { passed: false, output: expect.stringContaining('Cannot find module') },
      },
      { kind: 'turn', name: "the plan's verification list", passed: false, output: expect.stringContaining('greet is not a function') },
    ]);
    // The verifying turn ran in the user's project, not in a worktree.
    const verifying = model.chatRequests().filter((r) => agentOf(r) === 'verifier' && isVerification(r));
    expect(verifying.length).toBeGreaterThan(0);
    // Its own hidden agent: offered what reads and runs checks, nothing that edits or asks (issue 50).
    expect([...verifying[0]!.tools].sort()).toEqual(['bash', 'glob', 'grep', 'read']);
    expect(workdirOf(verifying[0]!)).toBe(server.projectDir);
    expect(firstUser(verifying[0]!)).toContain('- node cli.js prints the greeting');
  }, 300_000);

  it('should replan with what failed on /orca-replan, run the fix, verify again, complete, and say in orca show what was verified where', async () => {
    const reply = await server.fetch(`/session/${sessionID}/command`, { method: 'POST', body: JSON.stringify({ command: 'orca-replan', arguments: 'call hello() in cli.js' }), timeoutMs: 30_000 });
    expect(reply.status).toBe(200);
    await waitFor(() => planFile().status === 'completed', { timeoutMs: 240_000, description: 'the plan completed after the replan' });
    const file = planFile();
    expect(file.decisions.filter((d: { gate: string }) => d.gate === 'verification')).toMatchObject([{ option: 'Replan', channel: 'command', text: 'call hello() in cli.js' }]);
    const revision = model.chatRequests().find((r) => agentOf(r) === 'planner' && r.messages.some((m) => textOf(m.content).includes("the plan's verification failed there")))!;
    expect(JSON.stringify(revision.messages)).toContain('greet is not a function');
    expect(file.steps.map((s: { id: string; attempts: number }) => [s.id, s.attempts])).toEqual([
      ['rename', 1],
      ['cli', 1],
      ['fix', 1],
    ]);
    expect(readFileSync(join(server.projectDir, 'cli.js'), 'utf8')).toBe(FIXED_CLI);
    expect(file.verification_result).toMatchObject({ passed: true, checks: [{ name: 'node cli.js', passed: true }, { kind: 'turn', passed: true }] });

    const show = await runCli(['show', planId, '--dir', server.projectDir]);
    expect(show.stdout).toMatch(new RegExp(`Verified in ${server.projectDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at .*: passed`));
    expect(show.stdout).toContain('  ✓ node cli.js');
  }, 300_000);
});
