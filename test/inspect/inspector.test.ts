import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, type InspectionEvent } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlanHost, type PlanHostOptions } from '../../src/host/plan-host.js';
import { startConfiguredInspector, startInspector, type OrcaInspector } from '../../src/inspect/inspector.js';
import { inspectorSettings } from '../../src/config/inspect-settings.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { idlePlanMachine } from '../machines/fixtures.js';
import { freshPort } from '../support/fresh-port.js';
import { connectPage, definitionOf } from './page-client.js';
import { idlePorts } from '../support/idle-ports.js';
import { turn } from '../support/turns.js';

const ports = idlePorts;

let dir: string;
let inspector: OrcaInspector | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'orca-inspect-'));
});
afterEach(async () => {
  await inspector?.stop();
  inspector = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('inspector', () => {
  it('should show a live plan actor created through PlanHost, with its machine definition', async () => {
    inspector = await startInspector({ port: await freshPort() });
    const page = await connectPage(inspector.url.replace('http://', 'ws://'));
    let forwarded = 0;
    const live = inspector;
    // PlanHostOptions.inspect: every inspection event of the plan's actors is forwarded.
    const options: PlanHostOptions & { inspect: (event: InspectionEvent) => void } = {
      store: new PlanStore(join(dir, 'plans')),
      ports,
      inspect: (event) => {
        forwarded++;
        live.inspect(event);
      },
    };
    const host = new PlanHost(options);
    try {
      const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
      if (forwarded === 0) throw new Error('PlanHost does not forward `inspect` yet: add PlanHostOptions.inspect (see the inspector report).');
      const registration = await page.next((m) => m.type === '@xstate.actor' && m.name === 'plan', 'the plan actor registration');
      expect(definitionOf(registration)).toMatchObject({ id: 'plan', initial: 'drafting' });
      expect(Object.keys(definitionOf(registration).states)).toEqual(expect.arrayContaining(['drafting', 'pending_approval', 'in_progress']));
      await page.next((m) => m.type === '@xstate.snapshot' && m.sessionId === registration.sessionId, 'a snapshot of the plan');
      host.send(planId, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
      await page.next((m) => m.type === '@xstate.event' && m.event?.type === 'xstate.done.actor.openPlannerSession', 'the event');
      await page.next(
        (m) => m.type === '@xstate.snapshot' && JSON.stringify(m.snapshot?.value) === '{"drafting":"consulting"}',
        'the plan consulting its planner',
      );
    } finally {
      await host.dispose();
    }
    await inspector.stop();
    await page.closed;
  });

  it('should draw child step machines too', async () => {
    inspector = await startInspector();
    const page = await connectPage(inspector.url.replace('http://', 'ws://'));
    const actor = createActor(idlePlanMachine, { input: { planId: 'plan_x', message: 'm' }, inspect: inspector.inspect });
    actor.start();
    actor.send({ type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 's' } } as never);
    actor.send({
      type: 'xstate.done.actor.consultPlanner',
      output: turn({ type: 'plan', goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] }),
    } as never);
    actor.send({ type: 'approval.approve', channel: 'tool', at: '2026-01-01T00:00:00.000Z' });
    const step = await page.next((m) => m.type === '@xstate.actor' && m.name === 'step:s1', 'the step actor registration');
    expect(definitionOf(step).id).toBe('step');
    expect(step.parentId).toBe(actor.sessionId);
    actor.stop();
  });

  it('should stay off unless opted in, and let the environment decide first', async () => {
    expect(inspectorSettings(undefined, {})).toBeNull();
    expect(inspectorSettings(false, {})).toBeNull();
    expect(inspectorSettings(true, {})).toEqual({ port: 4749 });
    expect(inspectorSettings({ port: 0 }, {})).toEqual({ port: 0 });
    expect(inspectorSettings(undefined, { ORCA_INSPECT: '1', ORCA_INSPECT_PORT: '5000' })).toEqual({ port: 5000 });
    expect(inspectorSettings({ port: 1 }, { ORCA_INSPECT: '0' })).toBeNull();
    expect(() => inspectorSettings(true, { ORCA_INSPECT_PORT: 'x' })).toThrow('Expected ORCA_INSPECT_PORT to be a port number from 0 to 65535, got "x".');
    const logs: string[] = [];
    expect(await startConfiguredInspector(undefined, (level, m) => logs.push(`${level}: ${m}`), {})).toBeNull();
    expect(logs).toEqual([]);
  });

  it('should log the page to open when configured, and only warn when it cannot start', async () => {
    const logs: string[] = [];
    const log = (level: string, m: string) => logs.push(`${level}: ${m}`);
    const port = await freshPort();
    inspector = (await startConfiguredInspector({ port }, log, {}))!;
    expect(logs).toEqual([expect.stringContaining(`info: Stately inspector: open http://127.0.0.1:${port}/`)]);
    expect(await startConfiguredInspector({ port }, log, {})).toBeNull();
    expect(logs[1]).toMatch(/^warn: Could not start the inspector relay on 127\.0\.0\.1:\d+ \(EADDRINUSE\).*Orca runs without the inspector\.$/);
    expect(await startConfiguredInspector(true, log, { ORCA_INSPECT_PORT: 'x' })).toBeNull();
    expect(logs[2]).toMatch(/^warn: Expected ORCA_INSPECT_PORT/);
  });
});
