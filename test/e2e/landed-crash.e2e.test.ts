// Crash safety of a step that lands in the shared tree before its diff is made (the step chart's
// measuring_landed), on the real opencode binary with a scripted model: s1 writes a.txt and lands;
// git keeps its tree, its dependent s2 starts and writes b.txt, while s1's diff is still being made
// (a `git` shim first on the server's PATH holds s1's `diff-tree -p`). The server is killed there
// (SIGKILL), restarted on the same project and home without the shim, and the plan resumed with
// `RESUME plan_…`: s1's diff must be made from the tree git kept when it landed, so it lists a.txt
// only, never b.txt, which s2 wrote since. (Before the tree was kept first, a restart measured the
// tree again and counted s2's file as s1's change.)
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDist } from '../support/dist-snapshot.js';
import { reportOnFailure } from '../support/failure-report.js';
import { restartOpencode, startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { fetchWithTimeout } from '../support/wait-for.js';
import { SHARED_TREE, agentOf, jsonReply, orcaResumeRelay } from './team.js';

const STEPS = [
  { id: 's1', agent: 'coder', files: ['a.txt'], description: 'Write a.txt' },
  { id: 's2', agent: 'coder', depends_on: ['s1'], files: ['b.txt'], description: 'Write b.txt' },
] as const;
const GOAL = 'SCENARIO:landed_crash goal';
/** The Orca turns block while their plans run: minutes on a loaded machine. */
const TURN_TIMEOUT_MS = 600_000;
/** Each bounded wait (the kill point; the plan's completion after the resume): generous, the machine is shared. */
const WAIT_MS = 180_000;

const stepOf = (req: RecordedRequest) => /# Your step: (s\d)\b/.exec(req.lastUser)?.[1];
/** The session's directory, from OpenCode's <env> block in the system prompt. */
const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)?.[1]?.trim() ?? '';

/** A coder step writes its file (s1 a.txt, s2 b.txt) in the project directory, then reports. */
function respond(req: RecordedRequest): ScriptedReply {
  const agent = agentOf(req);
  if (agent === 'orca') return orcaResumeRelay(req);
  if (agent === 'planner') return jsonReply({ type: 'plan', goal: GOAL, steps: STEPS, assumptions: [], risks: [], verification: [] });
  const step = stepOf(req);
  if (agent !== 'coder' || !step) throw new Error(`unscripted ${agent}`);
  const file = step === 's1' ? 'a.txt' : 'b.txt';
  if (!lastToolResult(req)) return { toolCalls: [{ name: 'write', arguments: { filePath: join(workdirOf(req), file), content: `${step} wrote this\n` } }] };
  return jsonReply({ type: 'success', summary: `${step} wrote ${file}`, artifacts: [file], key_findings: [] });
}

/**
 * A `git` first on PATH: the real git, but the first `diff-tree -p` (the patch of the first step whose
 * diff is made: s1's) touches the marker and sleeps until the kill ends it.
 */
function gitShim(): { dir: string; marker: string } {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'orca-landed-shim-'));
  const marker = join(dir, 'diff-in-flight');
  const script = [
    '#!/bin/sh',
    'diff=0; patch=0',
    'for a in "$@"; do case "$a" in diff-tree) diff=1 ;; -p) patch=1 ;; esac; done',
    `if [ "$diff" = 1 ] && [ "$patch" = 1 ] && [ ! -e "${marker}" ]; then`,
    `  touch "${marker}"`,
    '  exec sleep 60',
    'fi',
    `exec "${realGit}" "$@"`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'git'), script);
  chmodSync(join(dir, 'git'), 0o755);
  return { dir, marker };
}

describe('kill -9 while a step that landed in the shared tree has its diff made', () => {
  let model: ScriptedModel;
  let plugin: Awaited<ReturnType<typeof snapshotDist>>;
  let server: OpencodeServer | undefined;
  let shim: { dir: string; marker: string };
  reportOnFailure(() => ({ server, model }));

  const plansDir = () => join(server!.projectDir, '.opencode', 'plans');
  const planFile = (planId: string) => JSON.parse(readFileSync(join(plansDir(), `${planId}.json`), 'utf8'));
  const planId = () =>
    existsSync(plansDir())
      ? readdirSync(plansDir())
          .filter((f) => /^plan_\w+\.json$/.test(f))
          .map((f) => f.slice(0, -'.json'.length))
          .find((id) => {
            try {
              return planFile(id).goal === GOAL;
            } catch {
              return false;
            }
          })
      : undefined;

  /** Start an Orca turn without waiting for it (it blocks while the plan runs). */
  async function startTurn(text: string) {
    const session = (await server!.client.session.create({ title: text })).data!;
    const done = server!.client.session.prompt(
      { sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text }] },
      { fetch: (input, init) => fetchWithTimeout(input, { ...init, timeoutMs: TURN_TIMEOUT_MS }) },
    ) as Promise<{ error?: unknown }>;
    void done.catch(() => {}); // a killed server fails this request
    return done;
  }

  let atKill: { s1: unknown; s2: unknown; files: string[] };
  let id: string;

  beforeAll(async () => {
    plugin = await snapshotDist('orca-landed-crash-');
    model = await startScriptedModel({ respond });
    shim = gitShim();
    server = await startOpencode({
      modelUrl: model.url,
      config: { plugin: [[plugin.url, { ...SHARED_TREE, review: { enabled: false }, hitl: { auto: { approval: 'approve', resume: 'rerun', deviation: 'stop' } } }]] },
      env: { PATH: `${shim.dir}:${process.env.PATH}` },
      requestTimeoutMs: 60_000,
    });

    // 1. Up to the kill point: s1's patch held by the shim, s2 done (its file written, its diff in the plan file).
    void startTurn('SCENARIO:landed_crash');
    id = await waitFor(() => planId(), { timeoutMs: WAIT_MS, description: 'the plan file' });
    await waitFor(
      () => {
        const s2 = planFile(id).steps.find((s: { id: string }) => s.id === 's2');
        return existsSync(shim.marker) && s2?.status === 'completed' && s2.diff !== undefined;
      },
      { timeoutMs: WAIT_MS, intervalMs: 50, description: "s1's diff held, s2 completed with its diff" },
    );
    const file = planFile(id);
    atKill = { s1: file.steps[0], s2: file.steps[1], files: ['a.txt', 'b.txt'].filter((f) => existsSync(join(server!.projectDir, f))) };

    // 2. kill -9, restart on the same project and home without the shim, resume.
    await server.kill9();
    server = await restartOpencode(server, { env: {} });
    void startTurn(`SCENARIO:landed_crash RESUME ${id}`);
    await waitFor(() => planFile(id).status === 'completed', { timeoutMs: WAIT_MS, intervalMs: 100, description: `plan ${id} completed after the resume` });
  }, 2 * WAIT_MS + 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    plugin?.remove();
    if (shim) rmSync(shim.dir, { recursive: true, force: true });
  });

  it("was killed with s1 landed but its diff not made, and s2's file written since", () => {
    expect(atKill.files).toEqual(['a.txt', 'b.txt']);
    expect(atKill.s1).toMatchObject({ status: 'completed' });
    expect((atKill.s1 as { diff?: unknown }).diff).toBeUndefined();
    expect(atKill.s2).toMatchObject({ status: 'completed', diff: { files: [expect.objectContaining({ path: 'b.txt', status: 'added' })] } });
  });

  it("made s1's diff after the restart from the tree kept as it landed: a.txt only, not s2's b.txt", () => {
    const file = planFile(id);
    expect(file.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['s1', 'completed'],
      ['s2', 'completed'],
    ]);
    expect(file.steps[0].diff.files).toEqual([expect.objectContaining({ path: 'a.txt', status: 'added' })]);
    expect(file.steps[1].diff.files).toEqual([expect.objectContaining({ path: 'b.txt', status: 'added' })]);
    // Each coder turn ran once: nothing was dispatched again.
    const coderTurns = model.chatRequests().filter((r) => agentOf(r) === 'coder' && !lastToolResult(r));
    expect(coderTurns.map(stepOf).sort()).toEqual(['s1', 's2']);
    expect(model.errors()).toEqual([]);
  });
});
