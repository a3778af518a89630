// How a step in the shared tree is captured when it ends, on the real opencode binary with a scripted
// model. Steps that end at once share one snapshot of the tree: a snapshot begun after a step's
// session last ran a tool holds all it wrote (src/opencode/tool-activity.ts, from OpenCode's
// tool.execute.before/after hooks). Here `quiet` answers at once and is captured and diffed; only then
// does `writer` call the write tool and answer. The latest snapshot of the tree is quiet's, begun
// before writer wrote: it must not serve as writer's. If OpenCode did not call the hooks around the
// write (or Orca did not listen), writer would look quiet since the plugin began and its diff would
// miss w.txt.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, textOf, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { SHARED_TREE, agentOf, builtPluginUrl, jsonReply } from './team.js';

const GOAL = 'SCENARIO:shared_capture goal';
const STEPS = [
  { id: 'quiet', agent: 'coder', files: ['q.txt'], description: 'Look, change nothing' },
  { id: 'writer', agent: 'coder', files: ['w.txt'], description: 'Write w.txt' },
];
/** Each bounded wait: generous, the machine is shared. */
const WAIT_MS = 120_000;

let model: ScriptedModel;
let server: OpencodeServer;

const firstUser = (req: RecordedRequest) => textOf(req.messages.find((m) => m.role === 'user')?.content);
const stepOf = (req: RecordedRequest) => /· step (\w+) \(coder\)/.exec(firstUser(req))?.[1];
const workdirOf = (req: RecordedRequest) => /Working directory: (.+)/.exec(req.system)![1]!.trim();
const plansDir = () => join(server.projectDir, '.opencode', 'plans');
const planFile = (planId: string) => JSON.parse(readFileSync(join(plansDir(), `${planId}.json`), 'utf8'));
const stepIn = (planId: string, stepId: string) => planFile(planId).steps.find((s: { id: string }) => s.id === stepId);

let planId: string | undefined;

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') return jsonReply({ type: 'plan', goal: GOAL, steps: STEPS, assumptions: [], risks: [], verification: [] });
  const step = stepOf(req);
  if (agent !== 'coder' || !step) throw new Error(`unscripted ${agent}`);
  if (step === 'quiet') return jsonReply({ type: 'success', summary: 'looked, changed nothing', artifacts: [], key_findings: [] });
  if (!lastToolResult(req)) {
    // Only once quiet was captured and diffed: its snapshot is then the latest of the tree.
    await waitFor(() => planId !== undefined && stepIn(planId, 'quiet')?.diff !== undefined, { timeoutMs: WAIT_MS, intervalMs: 50, description: "quiet's diff in the plan file" });
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(workdirOf(req), 'w.txt'), content: 'writer wrote this\n' } }] };
  }
  return jsonReply({ type: 'success', summary: 'wrote w.txt', artifacts: ['w.txt'], key_findings: [] });
}

describe('a shared-tree step that wrote after the latest snapshot of the tree began', () => {
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { ...SHARED_TREE, review: { enabled: false }, hitl: { auto: { approval: 'approve', deviation: 'stop' } } }]] },
      requestTimeoutMs: 60_000,
    });
    const session = (await server.client.session.create({ title: 'shared capture' })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: 'SCENARIO:shared_capture' }] });
    void done.catch(() => {});
    planId = await waitFor(() => (existsSync(plansDir()) ? readdirSync(plansDir()).map((f) => /^(plan_\w+)\.json$/.exec(f)?.[1]).find((id) => id && planFile(id).goal === GOAL) : undefined), {
      timeoutMs: WAIT_MS,
      description: 'the plan file',
    });
    await waitFor(() => planFile(planId!).status === 'completed' && stepIn(planId!, 'writer')?.diff !== undefined, { timeoutMs: WAIT_MS, intervalMs: 100, description: 'the plan completed with both diffs' });
  }, 2 * WAIT_MS + 30_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it("measures writer's file as its change, and quiet's as none", () => {
    expect(stepIn(planId!, 'quiet').diff.files).toEqual([]);
    expect(stepIn(planId!, 'writer').diff.files).toEqual([expect.objectContaining({ path: 'w.txt', status: 'added' })]);
    expect(stepIn(planId!, 'writer').diff.result).not.toBe(stepIn(planId!, 'quiet').diff.result);
    expect(model.errors()).toEqual([]);
  });
});
