import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { readJournal } from '../../src/persistence/journal.js';
import { PlanLeaseError } from '../../src/persistence/plan-lease.js';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { waitFor } from '../support/wait-for.js';
import { idlePorts } from '../support/idle-ports.js';
import { turn } from '../support/turns.js';
import { eachTempStore } from '../support/temp-store.js';

const ports = idlePorts;
const at = { channel: 'tool' as const, at: '2026-01-01T00:00:00.000Z' };

let store: PlanStore;
eachTempStore('orca-lease-', (s) => (store = s));

describe('plan lease', () => {
  it('should give the second writer a clear error and keep the first one running', async () => {
    const first = new PlanHost({ store, ports });
    const planId = first.create({ message: 'hello' }).getSnapshot().context.plan_id;
    await Promise.resolve();
    const second = new PlanHost({ store, ports });
    expect(() => second.open(planId)).toThrow(PlanLeaseError);
    expect(() => second.open(planId)).toThrow(/is being run by another OpenCode process/);
    // The first writer is unaffected and still saves.
    first.send(planId, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
    first.flush(planId);
    expect(store.load(planId).snapshot.context).toMatchObject({ planner_session_id: 'ses_p' });
    await first.dispose();
    expect(second.open(planId).getSnapshot().context.planner_session_id).toBe('ses_p');
    await second.dispose();
  });

  it('should refuse a plan held by another process, and take it over once that process is killed', async () => {
    const host = new PlanHost({ store, ports, leaseStaleMs: 2_000 });
    const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
    await Promise.resolve();
    await host.dispose();
    // Another process takes the lease the way the plugin does, then is killed without releasing it.
    const holder = spawn(
      process.execPath,
      ['--input-type=module', '-e', `import lockfile from 'proper-lockfile'; lockfile.lockSync(${JSON.stringify(store.pathOf(planId))}, { realpath: false, stale: 2000, update: 1000 }); console.log('locked'); setInterval(() => {}, 1000);`],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    const contender = new PlanHost({ store, ports, leaseStaleMs: 2_000 });
    expect(() => contender.open(planId)).toThrow(PlanLeaseError);
    holder.kill('SIGKILL');
    const killedAt = Date.now();
    const taken = await waitFor(
      () => {
        try {
          return contender.open(planId);
        } catch (error) {
          if (error instanceof PlanLeaseError) return undefined;
          throw error;
        }
      },
      { timeoutMs: 8_000, intervalMs: 200, description: 'the stale lease to be taken over' },
    );
    expect(taken.getSnapshot().context.plan_id).toBe(planId);
    expect(Date.now() - killedAt).toBeGreaterThan(1_500); // not before the lease went stale
    await contender.dispose();
  }, 15_000);
});

describe('plan journal', () => {
  it('should record every event with its source and every state entered, in order', async () => {
    const host = new PlanHost({ store, ports });
    const planId = host.create({ message: 'hello', callerSessionId: 'ses_root' }).getSnapshot().context.plan_id;
    host.send(planId, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
    host.send(planId, {
      type: 'xstate.done.actor.consultPlanner',
      output: turn({ type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] }),
    } as never);
    await Promise.resolve();
    host.send(planId, { type: 'approval.approve', ...at, channel: 'command' });
    await Promise.resolve();
    await host.dispose();
    const journal = readJournal(store.journalPathOf(planId));
    expect(journal.filter((e) => e.kind === 'event').map((e) => e.kind === 'event' && [e.event.type, e.source])).toEqual([
      ['xstate.init', 'init'],
      ['xstate.done.actor.openPlannerSession', 'invoke'],
      ['xstate.done.actor.consultPlanner', 'invoke'],
      ['approval.approve', 'command'],
    ]);
    expect(journal.filter((e) => e.kind === 'state').map((e) => e.kind === 'state' && `${e.actor}=${e.state}`)).toEqual([
      'plan=drafting.opening_session',
      'plan=drafting.consulting',
      'plan=pending_approval',
      // A child spawned in a macrostep reports its first state before the macrostep ends.
      'step:s1=opening_session',
      'plan=in_progress.running',
    ]);
  });
});
