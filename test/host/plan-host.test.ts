import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidPlanRequestError, PlanHost, type PlanHostOptions } from '../../src/host/plan-host.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { instantPorts } from '../support/instant-ports.js';
import { twoStepPlan } from '../machines/fixtures.js';
import { eachTempStore } from '../support/temp-store.js';

let store: PlanStore;
eachTempStore('orca-host-', (s) => (store = s));
/** Hosts made by hostWith: disposed (their last journal lines and files settled) before their folder goes. */
const hosts: PlanHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.dispose()));
});

const approve = { type: 'approval.approve', channel: 'tool', at: '2026-01-01T00:00:00.000Z' } as const;
const onDisk = (planId: string) => JSON.parse(readFileSync(store.pathOf(planId), 'utf8'));

function hostWith(options: Partial<PlanHostOptions> = {}) {
  const logs: string[] = [];
  const host = new PlanHost({
    store,
    ports: instantPorts(twoStepPlan),
    policy: { review_agents: [] },
    log: (level, message) => logs.push(`${level}: ${message}`),
    ...options,
  });
  hosts.push(host);
  return { host, logs };
}

/** Create a plan, approve it and follow it to its end. */
async function runToEnd(host: PlanHost): Promise<string> {
  const planId = host.create({ message: 'Add a greeting', callerSessionId: 'ses_caller' }).getSnapshot().context.plan_id;
  await host.waitFor(planId, (s) => s.value === 'pending_approval');
  host.send(planId, approve);
  await host.waitFor(planId, (s) => s.status === 'done');
  return planId;
}

describe('PlanHost and what observes it', () => {
  it('should keep writing a plan when every observer, index listener and the inspector throw on every update', async () => {
    const { host, logs } = hostWith({
      inspect: () => {
        throw new Error('inspector down');
      },
    });
    let calls = 0;
    host.observe('a broken observer', () => {
      calls++;
      throw new Error('observer broke');
    });
    host.index.subscribe(() => {
      throw new Error('listener broke');
    });
    const seen: string[] = [];
    host.observe('a good observer', ({ after }) => seen.push(after.status));

    const first = await runToEnd(host);
    const second = await runToEnd(host);

    for (const planId of [first, second]) {
      expect(onDisk(planId)).toMatchObject({ status: 'completed', steps: [{ status: 'completed' }, { status: 'completed' }] });
      expect(store.load(planId).status).toBe('completed');
      expect(host.isLive(planId)).toBe(false); // finished: released, lease gone
    }
    expect(calls).toBeGreaterThan(6);
    expect(seen.filter((s) => s === 'completed')).toHaveLength(2);
    expect(host.index.getSnapshot().context.plans[second]?.status).toBe('completed');
    // Each broken observer is reported once, not at every update.
    for (const name of ['a broken observer', 'a plan index listener', 'the inspector']) {
      expect(logs.filter((l) => l.includes(`${name} failed`))).toHaveLength(1);
    }
  });

  it.each([[undefined], [''], ['   '], [12345], [null]])('should refuse to create a plan whose message is %j, writing nothing', (message) => {
    const { host } = hostWith();
    expect(() => host.create({ message: message as never })).toThrow(InvalidPlanRequestError);
    expect(() => host.create({ message: message as never })).toThrow(/A plan needs the user's message as a non-empty string/);
    expect(existsSync(store.dir) ? readdirSync(store.dir).filter((f) => f.endsWith('.json')) : []).toEqual([]);
  });

  it('should stop a plan whose file the store refuses, say why, and keep its last valid file', async () => {
    const { host, logs } = hostWith({ ports: instantPorts({ ...twoStepPlan, goal: 12345 } as never) });
    const planId = host.create({ message: 'Add a greeting' }).getSnapshot().context.plan_id;
    await expect(host.waitFor(planId, (s) => s.value === 'pending_approval')).rejects.toThrow(
      /was stopped in this process because its file could not be written: Plan plan_\w+ was not written: invalid plan file: goal:/,
    );
    expect(host.isLive(planId)).toBe(false);
    expect(logs.some((l) => l.startsWith('error: ') && l.includes('could not be written'))).toBe(true);
    // Nothing the plugin wrote is quarantined at the next load.
    expect(new PlanStore(store.dir).load(planId)).toMatchObject({ status: 'drafting', goal: 'Add a greeting' });
  });

  it('should settle every write of a plan before release resolves, and write nothing after', async () => {
    let saves = 0;
    const counting = Object.assign(Object.create(store), {
      saveCheckedAsync: (...args: Parameters<PlanStore['saveCheckedAsync']>) => (saves++, store.saveCheckedAsync(...args)),
      save: (...args: Parameters<PlanStore['save']>) => (saves++, store.save(...args)),
    }) as PlanStore;
    const { host } = hostWith({ store: counting });
    const planId = host.create({ message: 'Add a greeting' }).getSnapshot().context.plan_id;
    await host.waitFor(planId, (s) => s.value === 'pending_approval');
    host.send(planId, approve); // a write behind is in flight now
    await host.release(planId);
    const after = saves;
    expect(readdirSync(store.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(store.dir, { recursive: true }); // ENOTEMPTY here was a write landing after its owner stopped
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(saves).toBe(after);
    expect(existsSync(store.dir)).toBe(false);
  });

  it('should write the state of a cascade not yet persisted when the plan is released in the same tick', async () => {
    const { host } = hostWith();
    const planId = host.create({ message: 'Add a greeting' }).getSnapshot().context.plan_id;
    await host.waitFor(planId, (s) => s.value === 'pending_approval');
    host.send(planId, { type: 'approval.reject', channel: 'tool', at: '2026-01-01T00:00:00.000Z' });
    await host.release(planId); // before the cascade's persist ran
    expect(onDisk(planId)).toMatchObject({ status: 'rejected', decisions: [{ gate: 'approval', option: 'Reject' }] });
  });
  it.each([
    ['no caller session: the file holds it before its prompt is sent', null, true],
    ["a caller session: found by its idempotency key after a restart, so it follows behind, no synchronous write", 'ses_caller', false],
  ])('should write a new specialist session synchronously only when a restart could not find it (%s)', async (_name, callerSessionId, onDiskFirst) => {
    const atPrompt: Array<string | null> = [];
    let syncWrites = 0;
    const counting = Object.assign(Object.create(store), {
      save: (...args: Parameters<PlanStore['save']>) => (syncWrites++, store.save(...args)),
    }) as PlanStore;
    const ports = instantPorts(twoStepPlan);
    const { host } = hostWith({
      store: counting,
      ports: {
        ...ports,
        // A port sends its prompt after at least one await (the turn runner's): the cascade's write runs before.
        runSpecialist: async (input, signal) => {
          await Promise.resolve();
          const [planId, stepId] = input.idempotencyKey.split(':');
          atPrompt.push(onDisk(planId!).snapshot.children?.[`step:${stepId}`]?.snapshot?.context?.sessionId ?? null);
          return ports.runSpecialist(input, signal);
        },
      },
    });
    const planId = host.create({ message: 'Add a greeting', ...(callerSessionId ? { callerSessionId } : {}) }).getSnapshot().context.plan_id;
    await host.waitFor(planId, (s) => s.value === 'pending_approval');
    const before = syncWrites;
    host.send(planId, approve);
    await host.waitFor(planId, (s) => s.status === 'done');
    expect(atPrompt).toHaveLength(2);
    if (onDiskFirst) {
      expect(atPrompt.every((id) => typeof id === 'string' && id.startsWith('ses_'))).toBe(true);
      expect(syncWrites - before).toBe(3); // one per step's session, and the finished plan's last file
    } else expect(syncWrites - before).toBe(1); // the finished plan's last file only
  });
});
