// The OpenCode versions Orca supports (src/config/supported-opencode.ts, package.json's peerDependencies), run:
// the core flow with its approval gate, on Orca's own defaults (the call returns at the gate, the plan lands in
// the conversation, the dialog asks, a step runs in its own worktree and lands), on the oldest supported
// binary (devDependency `opencode-ai-oldest`, installed by npm ci beside the pinned `opencode-ai`) and on the
// binary the suite runs (the pinned one, or ORCA_OPENCODE_BIN). On both, the plugin's start-up log names the
// server's version as supported, with no warning of Orca's.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_OPENCODE, SUPPORTED_OPENCODE_TEXT } from '../../src/config/supported-opencode.js';
import { forMarkdown } from '../../src/notices/session-notes.js';
import { reportOnFailure } from '../support/failure-report.js';
import { findNote } from '../support/said-notes.js';
import { startOpencode, waitFor, type OpencodeServer, type StartOpencodeOptions } from '../support/opencode-server.js';
import { opencodeBinary, projectRoot } from '../support/opencode-sandbox.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { labels, nextQuestion, openQuestions, reply } from './hitl-answers.js';
import { agentOf, builtPluginUrl, jsonReply, passingReview } from './team.js';

const OLDEST_PACKAGE = 'opencode-ai-oldest';
const PLATFORM_PACKAGE = `opencode-${process.platform}-${process.arch}`;

/**
 * The oldest supported binary, as npm installed it: opencode-ai-oldest's own platform package (nested under
 * it: the pinned opencode-ai holds the top-level one). `skip` only where npm could not have installed it (a
 * platform whose build the registry does not serve, a stub entry of package-lock.json): never in CI, and never
 * on a platform the lock carries the build for.
 */
function oldestBinary(): { path: string } | { skip: string } {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const spec = manifest.devDependencies?.[OLDEST_PACKAGE];
  if (spec !== `npm:opencode-ai@${SUPPORTED_OPENCODE.oldest}`) throw new Error(`Expected package.json's devDependencies to hold ${OLDEST_PACKAGE}: "npm:opencode-ai@${SUPPORTED_OPENCODE.oldest}", got ${JSON.stringify(spec)}.`);
  const oldestDir = join(projectRoot, 'node_modules', OLDEST_PACKAGE);
  if (!existsSync(join(oldestDir, 'package.json'))) throw new Error(`Expected ${oldestDir} (devDependency ${OLDEST_PACKAGE}); run \`npm ci\`.`);
  let platformDir: string | undefined;
  try {
    // Node's resolution from inside the package, as its own launcher finds it.
    platformDir = dirname(createRequire(join(oldestDir, 'package.json')).resolve(`${PLATFORM_PACKAGE}/package.json`));
  } catch {
    platformDir = undefined;
  }
  const version = platformDir && (JSON.parse(readFileSync(join(platformDir, 'package.json'), 'utf8')) as { version: string }).version;
  if (platformDir && version === SUPPORTED_OPENCODE.oldest && existsSync(join(platformDir, 'bin', 'opencode'))) return { path: join(platformDir, 'bin', 'opencode') };
  const missing = `${PLATFORM_PACKAGE}@${SUPPORTED_OPENCODE.oldest} under ${oldestDir}${version ? ` (found ${version} at ${platformDir})` : ''}`;
  const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { integrity?: string }> };
  const locked = lock.packages[`node_modules/${OLDEST_PACKAGE}/node_modules/${PLATFORM_PACKAGE}`];
  if (process.env.CI || locked?.integrity) throw new Error(`Expected the oldest supported OpenCode binary, ${missing}: npm ci installs it.`);
  return { skip: `no ${missing}: the registry npm used serves no such build for this platform (package-lock.json holds a stub for it)` };
}

const oldest = oldestBinary();
if ('skip' in oldest) console.warn(`opencode-versions.e2e: the oldest supported OpenCode is not run here: ${oldest.skip}`);

type Case = { name: string; binary: string | undefined; server: StartOpencodeOptions['server']; expected?: string };
const CASES: Case[] = [
  { name: `the oldest supported, ${SUPPORTED_OPENCODE.oldest}`, binary: 'path' in oldest ? oldest.path : undefined, server: 'own', expected: SUPPORTED_OPENCODE.oldest },
  // The suite's shared server runs opencodeBinary(): the pinned one, unless ORCA_OPENCODE_BIN names another.
  { name: 'the one the suite runs', binary: opencodeBinary(), server: 'shared' },
];

const PLAN = {
  type: 'plan',
  goal: 'Add a greeting file, then check it',
  steps: [
    { id: 'impl', agent: 'coder', description: 'Create greet.txt saying hello', files: ['greet.txt'] },
    { id: 'check', agent: 'researcher', description: 'Read greet.txt back', depends_on: ['impl'] },
  ],
  assumptions: ['a plain text file is enough'],
  risks: ['none'],
  verification: ['greet.txt says hello'],
};
const GREETING = 'hello from the oldest and the newest\n';

function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  const result = lastToolResult(req);
  if (agent === 'orca') return result ? { text: `Relayed: ${JSON.parse(result.content).status}` } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') return jsonReply(PLAN);
  const review = passingReview(req);
  if (review) return review;
  if (agent === 'coder') {
    // Its step's worktree: OpenCode's <env> block names the session's directory.
    const dir = /Working directory: (.+)/.exec(req.system)![1]!.trim();
    if (!result) return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'greet.txt'), content: GREETING } }] };
    return jsonReply({ type: 'success', summary: 'greet.txt created', artifacts: ['greet.txt'], key_findings: [] });
  }
  if (agent === 'researcher') return jsonReply({ type: 'success', summary: 'greet.txt says hello', artifacts: [], key_findings: ['it says hello'] });
  throw new Error(`no script for agent ${agent}`);
}

type Part = { type: string; text?: string; synthetic?: boolean };

describe.each(CASES)('OpenCode $name', ({ binary, server: serverKind, expected }) => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));
  const version = binary && execFileSync(binary, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH, OPENCODE_DISABLE_AUTOUPDATE: '1' } }).trim().split('\n').at(-1)!.trim();

  beforeAll(async () => {
    if (!binary) return;
    model = await startScriptedModel({ respond });
    // opencodeBinary() reads ORCA_OPENCODE_BIN as the server is spawned: set for this file's own server only.
    const before = process.env.ORCA_OPENCODE_BIN;
    if (serverKind === 'own') process.env.ORCA_OPENCODE_BIN = binary;
    try {
      // Orca's own defaults (a worktree per file-changing step, the call returning at the gate), with no verifying turn.
      server = await startOpencode({ server: serverKind, modelUrl: model.url, orcaDefaults: true, config: { plugin: [[builtPluginUrl, { verification: { turn: false } }]] }, requestTimeoutMs: 120_000 });
    } finally {
      if (before === undefined) delete process.env.ORCA_OPENCODE_BIN;
      else process.env.ORCA_OPENCODE_BIN = before;
    }
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it.skipIf(!binary)("says the server's version as supported at start-up, then runs a plan through its approval gate to completed", async () => {
    if (expected) expect(version).toBe(expected);
    // 1. The start-up log: the version the server itself reports (GET /global/health), supported, and no warning of Orca's.
    const line = `OpenCode ${version}: supported (${SUPPORTED_OPENCODE_TEXT})`;
    await waitFor(() => server.logs().includes(line) || undefined, { timeoutMs: 30_000, description: `"${line}" in the server log` });
    // OpenCode 1.18 writes a plugin's log lines with no service name: Orca's are told by their words (src/config/supported-opencode.ts).
    const lines = server.logs().split('\n');
    expect(lines.filter((l) => l.includes(`message="${line}"`) && l.includes('level=INFO'))).toHaveLength(1);
    expect(lines.filter((l) => /message="(OpenCode \S+: (older|newer|not a version)|could not tell which OpenCode)/.test(l))).toEqual([]);

    // 2. The call returns at the approval gate; the plan is in the conversation before the dialog asks.
    const session = (await server.client.session.create({ title: 'versions' })).data!;
    const turn = await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'Add a greeting file and check it' }] });
    expect(turn.error).toBeUndefined();
    const result = JSON.parse(lastToolResult(model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!)!.content);
    expect(result).toMatchObject({ status: 'asking', plan_id: expect.stringMatching(/^plan_/), waiting_for: 'approval', steps: 2 });
    const planId = result.plan_id as string;
    const approval = await nextQuestion(server, /^Approve plan_\w+ \(2 steps, above\)\?$/, 60_000);
    expect(labels(approval)).toEqual(['Approve', 'Request Changes', 'Reject']);
    const texts = async () =>
      ((await server.client.session.messages({ sessionID: session.id })).data as unknown as Array<{ parts: Part[] }>).flatMap((m) => m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text ?? ''));
    const note = (await texts()).find((t) => t.includes('waits for your approval: 2 steps'));
    expect(note).toContain('Create greet.txt saying hello');

    // 3. Approved: the coder's step runs in its worktree and lands in the project; the outcome is said in the session.
    await reply(server, approval, [['Approve']]);
    const outcome = forMarkdown(`Orca: plan ${planId} completed`);
    await waitFor(async () => findNote(await texts(), outcome), { timeoutMs: 90_000, description: 'the outcome note' });
    const plan = JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
    expect(plan.status).toBe('completed');
    expect(readFileSync(join(server.projectDir, 'greet.txt'), 'utf8')).toBe(GREETING);
    const coderDirs = model.chatRequests().filter((r) => agentOf(r) === 'coder').map((r) => /Working directory: (.+)/.exec(r.system)![1]!.trim());
    expect(coderDirs.length).toBeGreaterThan(0);
    for (const dir of coderDirs) expect(dir).not.toBe(server.projectDir); // its own worktree, not the project
    expect(await openQuestions(server)).toEqual([]);
  }, 180_000);
});
