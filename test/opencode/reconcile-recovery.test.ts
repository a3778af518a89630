// Only a side effect that was in flight in a plan restored from disk looks in OpenCode for what an
// earlier process left (issue 8, P2b): a dispatch of a plan created here goes straight to OpenCode.
import { stepPrompt } from '../../src/prompts/step-prompt.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencodePorts, type ReconcileRecord } from '../../src/opencode/session-ports.js';
import { PlanHost } from '../../src/host/plan-host.js';
import type { OpenSessionInput, PlanPorts, RunSpecialistInput } from '../../src/machines/ports.js';
import type { SessionsPort } from '../../src/opencode/sessions.js';
import { inFlightKeys } from '../../src/persistence/in-flight.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { ONE_TURN } from '../support/turns.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';

const never = () => new Promise<never>(() => {});
/** Ports that never settle unless given, whatever ports the machines grow. */
const portsWith = (given: Partial<PlanPorts>) => new Proxy(given, { get: (target, key) => target[key as keyof PlanPorts] ?? never }) as PlanPorts;

const plan = {
  type: 'plan',
  goal: 'g',
  steps: [{ id: 's1', agent: 'coder', description: 'do s1', depends_on: [] }],
  assumptions: [],
  risks: [],
  verification: [],
};
const approve = { type: 'approval.approve', channel: 'auto', at: '2026-01-01T00:00:00.000Z' } as const;
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('inFlightKeys', () => {
  it('should take the key of every active invoke at any depth, and nothing else', () => {
    const persisted = {
      status: 'active',
      children: {
        'step:s1': {
          snapshot: {
            status: 'active',
            children: {
              runSpecialist: { snapshot: { status: 'active', input: { idempotencyKey: 'p:s1:1', sessionId: 'ses_1' } } },
              watchSpecialist: { snapshot: { status: 'active', input: { sessionId: 'ses_1' } } },
            },
          },
        },
        'step:s2': { snapshot: { status: 'active', children: { review: { snapshot: { status: 'active', input: { idempotencyKey: 'p:s2:1:review:2' } } } } } },
        'step:s3': { snapshot: { status: 'done', children: { runSpecialist: { snapshot: { status: 'done', input: { idempotencyKey: 'p:s3:1' } } } } } },
        broken: null,
      },
    };
    expect(inFlightKeys(persisted).sort()).toEqual(['p:s1:1', 'p:s2:1:review:2']);
    expect(inFlightKeys(undefined)).toEqual([]);
  });
});

describe('PlanHost.isRecovering', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'orca-recovering-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A plan whose step s1 is in flight at `stage`, written by a host that then stops, as a crash would. */
  async function interruptedAt(stage: 'opening' | 'running') {
    const store = new PlanStore(join(dir, 'plans'));
    const seen: Array<[string, boolean]> = [];
    let host!: PlanHost;
    const record = (key: string) => seen.push([key, host.isRecovering(key)]);
    host = new PlanHost({
      store,
      ports: portsWith({
        openPlannerSession: async () => ({ sessionId: 'ses_planner' }),
        consultPlanner: async () => ({ value: plan, usage: ONE_TURN }) as never,
        openSpecialistSession: async ({ idempotencyKey }: OpenSessionInput) => {
          record(idempotencyKey);
          return stage === 'opening' ? never() : { sessionId: 'ses_s1' };
        },
        runSpecialist: ({ idempotencyKey }: RunSpecialistInput) => (record(idempotencyKey), never()),
      }),
    });
    const planId = host.create({ message: 'm', callerSessionId: 'ses_caller' }).getSnapshot().context.plan_id;
    await tick();
    host.send(planId, approve);
    await tick();
    await host.dispose();
    return { store, planId, seen };
  }

  it.each(['opening', 'running'] as const)('should be false for a plan created here and true for the step %s in a restored one', async (stage) => {
    const { store, planId, seen } = await interruptedAt(stage);
    const key = `${planId}:s1:1`;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(([k, recovering]) => k === key && !recovering)).toBe(true);

    const restoredSeen: Array<[string, boolean]> = [];
    const restorer: PlanHost = new PlanHost({
      store,
      ports: portsWith({
        openSpecialistSession: async ({ idempotencyKey }: OpenSessionInput) => (restoredSeen.push([idempotencyKey, restorer.isRecovering(idempotencyKey)]), never()),
        runSpecialist: async ({ idempotencyKey }: RunSpecialistInput) => (restoredSeen.push([idempotencyKey, restorer.isRecovering(idempotencyKey)]), never()),
      }),
    });
    restorer.open(planId);
    await tick();
    // Known before the restored invoke calls its port.
    expect(restoredSeen).toEqual([[key, true]]);
    expect(restorer.isRecovering(`${planId}:s1:2`)).toBe(false);
    await restorer.dispose();
  });
});

describe('opencodePorts lookups', () => {
  const ok = { type: 'success', summary: 'done', artifacts: [], key_findings: [] };

  function fakeSessions(children: Array<{ id: string; metadata?: Record<string, unknown> }> = []) {
    const calls: string[] = [];
    const sessions: SessionsPort = {
      create: async () => (calls.push('create'), { id: 'ses_new' }),
      prompt: async () => (calls.push('prompt'), { text: JSON.stringify(ok), usage: ONE_TURN }),
      abort: async () => void calls.push('abort'),
      messages: async () => (calls.push('messages'), []),
      busy: async () => (calls.push('busy'), false),
      children: async () => (calls.push('children'), children),
      get: async () => (calls.push('get'), null),
    };
    return { sessions, calls };
  }
  const open: OpenSessionInput = { idempotencyKey: 'plan_x:s1:1', planId: 'plan_x', stepId: 's1', agent: 'coder', attempt: 1, parentSessionId: 'ses_caller' };
  const thread = { plan_id: 'plan_x', goal: 'g', step: { id: 's1', agent: 'coder', description: 'do s1', depends_on: [] }, dependencies: [], relevant_files: [], previous_attempts: [] };
  const run = (sessionId: string, rerun = true): RunSpecialistInput => ({ idempotencyKey: 'plan_x:s1:1', sessionId, agent: 'coder', thread, rerun }) as RunSpecialistInput;
  const signal = new AbortController().signal;

  it('should open and run a fresh dispatch with no lookup', async () => {
    const { sessions, calls } = fakeSessions();
    const ports = opencodePorts(sessions, { isRecovering: () => false });
    const { sessionId } = await ports.openSpecialistSession(open, signal);
    expect(await ports.runSpecialist(run(sessionId), signal)).toMatchObject({ value: { type: 'success' }, usage: ONE_TURN });
    expect(calls).toEqual(['create', 'prompt']);
  });

  it('should reuse the session a crashed attempt created, and look at its messages, when recovering', async () => {
    const { sessions, calls } = fakeSessions([{ id: 'ses_earlier', metadata: { orca: { idempotency_key: 'plan_x:s1:1' } } }]);
    const records: ReconcileRecord[] = [];
    const ports = opencodePorts(sessions, { isRecovering: (key) => key === 'plan_x:s1:1', onReconcile: (r) => records.push(r) });
    const { sessionId } = await ports.openSpecialistSession(open, signal);
    expect(sessionId).toBe('ses_earlier');
    expect(records).toEqual([expect.objectContaining({ decision: 'reused_session', session_id: 'ses_earlier', idempotency_key: 'plan_x:s1:1' })]);
    await ports.runSpecialist(run(sessionId), signal);
    expect(calls).toEqual(['children', 'messages', 'prompt']);
  });

  it('should look up every dispatch when given no predicate (the safe default)', async () => {
    const { sessions, calls } = fakeSessions();
    const ports = opencodePorts(sessions);
    const { sessionId } = await ports.openSpecialistSession(open, signal);
    await ports.runSpecialist(run(sessionId), signal);
    expect(calls).toEqual(['children', 'create', 'messages', 'prompt']);
  });

  it('should report a restored turn that left no result as interrupted, unless it may run again', async () => {
    const { sessions, calls } = fakeSessions();
    // The session got this very prompt and never answered it: the turn was in flight.
    const sent = `Orca · plan_x · step s1 (coder) · attempt 1\n\n${stepPrompt(thread as never)}\n\n# Output protocol\nEnd your reply with …`;
    sessions.messages = async () => (calls.push('messages'), [{ role: 'user', text: sent }]);
    sessions.get = async (id) => (calls.push('get'), { id, updatedAt: '2026-11-23T10:00:00.000Z' });
    const records: ReconcileRecord[] = [];
    const ports = opencodePorts(sessions, { isRecovering: () => true, onReconcile: (r) => records.push(r) });
    // Nothing was prompted in this process: nothing spent.
    expect(await ports.runSpecialist(run('ses_earlier', false), signal)).toEqual({
      value: { type: 'interrupted', session_id: 'ses_earlier', detail: 'its turn never finished', last_activity_at: '2026-11-23T10:00:00.000Z' },
      usage: ZERO_USAGE,
    });
    expect(calls).toEqual(['messages', 'busy', 'get']); // nothing sent to the model
    expect(records).toEqual([expect.objectContaining({ decision: 'interrupted', detail: 'its turn never finished' })]);
    calls.length = 0;
    expect(await ports.runSpecialist(run('ses_earlier', true), signal)).toMatchObject({ value: { type: 'success' }, usage: ONE_TURN });
    expect(calls).toEqual(['messages', 'busy', 'prompt']);
    expect(records.at(-1)).toMatchObject({ decision: 'redispatch' });
  });
});
