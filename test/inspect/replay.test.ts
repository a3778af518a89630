import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanHost } from '../../src/host/plan-host.js';
import { idlePlanPorts, type PlanPorts } from '../../src/machines/ports.js';
import { inspectPlan } from '../../src/inspect/inspect-command.js';
import { startInspector } from '../../src/inspect/inspector.js';
import { replayPlan } from '../../src/inspect/replay.js';
import { readJournal } from '../../src/persistence/journal.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { freshPort } from '../support/fresh-port.js';
import { connectPage, definitionOf } from './page-client.js';
import { turn } from '../support/turns.js';

const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };

/** Fake effects: a two-step plan whose first step fails once, is retried, and then everything succeeds. */
function fakePorts(): PlanPorts {
  const attempts = new Map<string, number>();
  return {
    ...idlePlanPorts,
    openPlannerSession: async () => ({ sessionId: 'ses_planner' }),
    consultPlanner: async () => turn({
      type: 'plan' as const,
      goal: 'greet',
      steps: [
        { id: 's1', agent: 'coder', description: 'write hello.ts' },
        { id: 's2', agent: 'tester', description: 'test hello.ts', depends_on: ['s1'] },
      ],
      assumptions: [],
      risks: [],
      verification: [],
    }),
    openSpecialistSession: async (input) => ({ sessionId: `ses_${input.stepId}_${input.attempt}` }),
    runSpecialist: async (input) => {
      const n = (attempts.get(input.agent) ?? 0) + 1;
      attempts.set(input.agent, n);
      if (input.agent === 'coder' && n === 1) return turn({ type: 'failure' as const, error: 'tsc failed' });
      return turn({ type: 'success' as const, summary: `${input.agent} done`, artifacts: [] });
    },
  };
}

let projectDir: string;
let store: PlanStore;
let planId: string;

/** A plan run to completion through PlanHost, leaving its file and journal on disk. */
beforeAll(async () => {
  projectDir = mkdtempSync(join(tmpdir(), 'orca-replay-'));
  store = PlanStore.forProject(projectDir);
  const host = new PlanHost({ store, ports: fakePorts(), policy: { review_agents: [] } });
  planId = host.create({ message: 'say hello', callerSessionId: 'ses_root' }).getSnapshot().context.plan_id;
  await host.waitFor(planId, (s) => s.matches('pending_approval'));
  host.send(planId, { type: 'approval.approve', ...by });
  await host.waitFor(planId, (s) => s.context.steps.some((step) => step.status === 'awaiting_decision'));
  host.send(planId, { type: 'deviation.retry', stepId: 's1', text: 'fix the types', ...by });
  await host.waitFor(planId, (s) => s.status === 'done');
  await Promise.resolve();
  await host.dispose();
});
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));

describe('replayPlan', () => {
  it('should replay the journal into the inspector without running anything and end in the saved state', async () => {
    expect(store.load(planId).state).toBe('completed');
    const inspector = await startInspector({ port: await freshPort() });
    const page = await connectPage(inspector.url.replace('http://', 'ws://'));
    const result = await replayPlan(projectDir, planId, inspector);
    expect(result).toMatchObject({ source: 'journal', replayedState: 'completed', savedState: 'completed', matches: true });
    expect(result.path).toEqual(result.journaledPath);
    expect(result.path).toEqual(['drafting.opening_session', 'drafting.consulting', 'pending_approval', 'in_progress.running', 'completed']);

    const registration = await page.next((m) => m.type === '@xstate.actor' && m.name === 'plan', 'the plan registration');
    expect(definitionOf(registration)).toMatchObject({ id: 'plan' });
    // Registered with the state it had before the first journaled event.
    expect(registration.snapshot?.value).toEqual({ drafting: 'opening_session' });
    await page.next(
      (m) => m.type === '@xstate.snapshot' && m.sessionId === registration.sessionId && m.snapshot?.value === 'completed',
      'the completed plan',
    );
    const journaled = readJournal(store.journalPathOf(planId)).flatMap((e) =>
      e.kind === 'event' && e.event.type !== 'xstate.init' ? [e.event.type] : [],
    );
    const shown = page.messages.filter((m) => m.type === '@xstate.event' && m.sessionId === registration.sessionId && m.event?.type !== 'xstate.init');
    expect(shown.map((m) => m.event?.type)).toEqual(journaled.slice(0, result.events));
    // What reaches the finished plan afterwards (its last child reporting done) changes nothing.
    expect(journaled.slice(result.events)).toEqual(['xstate.done.actor.step:s2']);
    expect(journaled).toEqual(expect.arrayContaining(['deviation.retry', 'step.failed', 'step.completed', 'xstate.done.actor.step:s1']));
    // Nothing was executed: the replay's own step actors never got past opening their session.
    const steps = page.messages.filter((m) => m.type === '@xstate.actor' && m.name?.startsWith('step:'));
    expect(steps.map((m) => m.name)).toEqual(['step:s1', 'step:s2']);
    const stepStates = page.messages.filter((m) => m.type === '@xstate.snapshot' && steps.some((s) => s.sessionId === m.sessionId));
    expect(new Set(stepStates.map((m) => m.snapshot?.value))).toEqual(new Set(['opening_session']));
    await inspector.stop();
    await page.closed;
  });

  it('should say so when the replay does not end where the plan file is', async () => {
    const journalPath = store.journalPathOf(planId);
    const original = readFileSync(journalPath, 'utf8');
    const lines = original.trimEnd().split('\n');
    const lastStepCompleted = lines.findLastIndex((l) => l.includes('"type":"step.completed"'));
    writeFileSync(journalPath, `${lines.slice(0, lastStepCompleted).join('\n')}\n`);
    try {
      const result = await replayPlan(projectDir, planId, { inspect: () => {} });
      expect(result).toMatchObject({ matches: false, replayedState: 'in_progress.running', savedState: 'completed' });
    } finally {
      writeFileSync(journalPath, original);
    }
  });

  it('should show the saved snapshot when there is no journal to start from', async () => {
    const journalPath = store.journalPathOf(planId);
    const original = readFileSync(journalPath, 'utf8');
    rmSync(journalPath);
    try {
      const result = await replayPlan(projectDir, planId, { inspect: () => {} });
      expect(result).toMatchObject({ source: 'snapshot', events: 0, replayedState: 'completed', matches: true });
    } finally {
      writeFileSync(journalPath, original);
    }
  });
});

describe('inspectPlan', () => {
  it('should replay, report and return 0 with --once', async () => {
    const lines: string[] = [];
    const code = await inspectPlan(planId, { dir: projectDir, port: await freshPort(), once: true, print: (l) => lines.push(l) });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(new RegExp(`^Replayed \\d+ journaled events of ${planId}: drafting\\.opening_session → .* → completed$`));
    expect(lines[1]).toBe('The replay ends in the saved state completed.');
  });

  it('should serve the replay to a page that opens later, until stopped', async () => {
    const port = await freshPort();
    const lines: string[] = [];
    const stop = new AbortController();
    const running = inspectPlan(planId, { dir: projectDir, port, signal: stop.signal, print: (l) => lines.push(l) });
    const { waitFor } = await import('../support/wait-for.js');
    await waitFor(() => lines.some((l) => l.startsWith('Open ')), { description: 'the URL to open' });
    expect(lines.at(-1)).toContain(`Open http://127.0.0.1:${port}/ in a browser`);
    const page = await connectPage(`ws://127.0.0.1:${port}`);
    const registration = await page.next((m) => m.type === '@xstate.actor' && m.name === 'plan', 'the plan registration from the backlog');
    expect(definitionOf(registration).id).toBe('plan');
    stop.abort();
    expect(await running).toBe(0);
    await page.closed;
  });

  it('should return 2 for a malformed plan_id and 1 when there is nothing to show, saying why on stderr', async () => {
    const errors: string[] = [];
    const quiet = { once: true, print: () => {}, printError: (l: string) => errors.push(l) };
    expect(await inspectPlan('nope', { dir: projectDir, ...quiet })).toBe(2);
    expect(errors.at(-1)).toMatch(/^orca: Invalid plan_id "nope": .*as listed by orca plans\.$/);
    expect(await inspectPlan('plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', { dir: projectDir, ...quiet })).toBe(1);
    expect(errors.at(-1)).toBe(`orca: Plan plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9 does not exist in ${projectDir} (orca plans lists the plans).`);
    const busy = await startInspector();
    const port = Number(new URL(busy.url).port);
    expect(await inspectPlan(planId, { dir: projectDir, port, ...quiet })).toBe(1);
    expect(errors.at(-1)).toMatch(/^orca: Could not start the inspector relay .*EADDRINUSE/);
    await busy.stop();
  });
});
