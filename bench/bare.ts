// The thinnest client that does a plan's work on the same server: per step one session.create and
// one blocking session.prompt, the same prompt text Orca sends (header, threaded step prompt, text
// protocol section), the same dependency order and concurrency; no plan file, no review, no Orca.
// What Orca adds to a plan's wall time is its time against this driver's (issue 17's P1b).
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../src/schemas/specialist-output.js';
import { outputFormat } from '../src/protocol/protocol-turn.js';
import { withProtocol } from '../src/protocol/output-protocol.js';
import { stepPrompt } from '../src/prompts/step-prompt.js';
import { turnHeader, turnStart } from '../src/prompts/turn-header.js';
import { parseModelOutput } from '../src/protocol/parse-output.js';
import { threadContext } from '../src/machines/threading.js';
import type { StepRecord } from '../src/machines/types.js';
import { jsonReply, team } from '../test/e2e/team.js';
import type { RecordedRequest } from '../test/support/scripted-model.js';
import { stepResult, type BenchPlan } from './plans.js';
import { SPECIALIST_AGENTS, stepIdOf, type BenchServer } from './server.js';

export interface BareRun {
  /** First session.create → last step's reply read. */
  wallMs: number;
  steps: number;
  /** Median session.create and session.prompt round trips (ms). */
  createMs: number[];
  promptMs: number[];
  /** Per step: prompt sent → its model request arrived; its last model reply sent → the prompt's reply read (ms). */
  preModelMs: number[];
  postModelMs: number[];
  /** The chat requests the run's steps sent (each carries the run's plan id in its prompt). */
  requests: RecordedRequest[];
}

/** The scripted team for a bare run: every specialist answers its step's result as text + JSON. */
export function bareScript() {
  const scripts: Record<string, (req: Parameters<typeof stepIdOf>[0]) => ReturnType<typeof jsonReply>> = {};
  for (const a of SPECIALIST_AGENTS) scripts[a] = (req) => jsonReply(stepResult(stepIdOf(req) ?? 'unknown'));
  return team(scripts);
}

/** Step records as Orca's plan machine holds them, so threadContext builds the same prompt. */
function records(plan: BenchPlan): StepRecord[] {
  return plan.steps.map((s) => ({ ...s, status: 'pending', attempts: 0, failures: [] }) as unknown as StepRecord);
}

/**
 * Runs `plan` with at most `concurrency` steps at a time; a step starts once all its dependencies
 * answered. Sessions are children of one parent session, as Orca's are of the caller's.
 * The caller sets the model's script (bareScript) unless several runs share one server.
 */
export async function runBare(bench: BenchServer, plan: BenchPlan, concurrency: number, planId = `bare_${Math.random().toString(36).slice(2, 10)}`): Promise<BareRun> {
  const { client } = bench.server;
  const parent = (await client.session.create({ title: `bare ${plan.goal}` })).data!;
  const steps = records(plan);
  const byId = new Map(steps.map((s) => [s.id, s]));
  const shape = outputFormat(SpecialistOutputSchema, specialistOutputJsonSchema());
  const thread = { plan_id: planId, goal: plan.goal, relevant_files: [] as string[], steps };
  const createMs: number[] = [];
  const promptMs: number[] = [];
  const sent = new Map<string, { at: number; done: number }>();
  const firstRequest = bench.model.requests.length;

  const done = new Set<string>();
  const started = new Set<string>();
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    const pump = () => {
      if (done.size === steps.length) return resolve();
      for (const step of steps) {
        if (running >= concurrency) break;
        if (started.has(step.id) || !(step.depends_on ?? []).every((d) => done.has(d))) continue;
        started.add(step.id);
        running++;
        runStep(step).then(() => {
          running--;
          done.add(step.id);
          pump();
        }, reject);
      }
    };
    pump();
  });
  const wallMs = performance.now() - t0;

  async function runStep(step: StepRecord) {
    const text = withProtocol(
      turnStart(turnHeader({ planId, agent: step.agent, stepId: step.id, attempt: 1 }), stepPrompt(threadContext(thread, step.id))),
      'text',
      shape,
    );
    const c0 = performance.now();
    const session = (await client.session.create({ parentID: parent.id, title: `bare ${step.agent} · ${step.id}` })).data!;
    const c1 = performance.now();
    const at = Date.now();
    const res = await client.session.prompt({ sessionID: session.id, agent: step.agent, parts: [{ type: 'text', text }] });
    sent.set(step.id, { at, done: Date.now() });
    promptMs.push(performance.now() - c1);
    createMs.push(c1 - c0);
    const parts = (res.data as { parts?: Array<{ type: string; text?: string }> } | undefined)?.parts ?? [];
    const reply = parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n');
    const parsed = parseModelOutput(reply, SpecialistOutputSchema);
    if (!parsed.ok) throw new Error(`bare step ${step.id}: ${parsed.reason}; reply: ${reply.slice(0, 200)}`);
    const record = byId.get(step.id)!;
    (record as { output?: unknown }).output = parsed.value;
    (record as { status: string }).status = 'completed';
  }

  const preModelMs: number[] = [];
  const postModelMs: number[] = [];
  const mine = bench.model.requests.slice(firstRequest).filter((r) => r.kind === 'chat' && r.lastUser.includes(planId));
  for (const [id, { at, done }] of sent) {
    const reqs = mine.filter((r) => stepIdOf(r) === id);
    if (reqs.length === 0) continue;
    preModelMs.push(reqs[0]!.at - at);
    postModelMs.push(done - (reqs.at(-1)!.at + bench.latency));
  }
  return { wallMs, steps: steps.length, createMs, promptMs, preModelMs, postModelMs, requests: mine };
}

export { stepResult };
