import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '@opencode-ai/plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Orca } from '../../src/composition-root.js';
import { PlanHost } from '../../src/host/plan-host.js';
import type { TurnRecord } from '../../src/opencode/turn-port.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { PromptAbortedError } from '../../src/opencode/prompt-aborted-error.js';
import { askSpecialistTool } from '../../src/tools/ask-specialist.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { idlePorts } from '../support/idle-ports.js';
import { ONE_TURN } from '../support/turns.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'orca-ask-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (sessionID: string): ToolContext => ({
  sessionID,
  messageID: 'msg_1',
  agent: 'planner',
  directory: dir,
  worktree: dir,
  abort: new AbortController().signal,
  metadata: () => {},
  ask: async () => {},
});

describe('orca_ask_specialist usage', () => {
  it("should count a read-only ask in the asking plan's (and step's) usage, and record the turn", async () => {
    const host = new PlanHost({ store: new PlanStore(join(dir, 'plans')), ports: idlePorts });
    const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
    const fake = fakeSessions(() => 'Use the v2 API.');
    // The caller: a session of this plan (the planner's, as openPlannerSession creates it).
    const caller = await fake.port.create({ title: 'planner', metadata: { orca: { plan_id: planId, role: 'planner' } } });
    const turns: TurnRecord[] = [];
    const orca = { sessions: fake.port, host, recordTurn: (r: TurnRecord) => turns.push(r), log: () => {} } as unknown as Orca;
    const out = JSON.parse((await askSpecialistTool(orca).execute({ agent_id: 'architect', question: 'Which API?' } as never, ctx(caller.id))) as string);
    expect(out.answer).toBe('Use the v2 API.');
    expect(turns).toEqual([{ plan_id: planId, role: 'ask', correction: false, agent: 'architect.readonly', session_id: out.session_id, usage: ONE_TURN }]);
    expect(host.open(planId).getSnapshot().context.usage).toEqual(ONE_TURN);

    // A caller that belongs to no plan: the turn is recorded (history), no plan changes.
    const stranger = await fake.port.create({ title: 'user' });
    await askSpecialistTool(orca).execute({ agent_id: 'architect', question: 'And now?' } as never, ctx(stranger.id));
    expect(turns.at(-1)).not.toHaveProperty('plan_id');
    expect(host.open(planId).getSnapshot().context.usage).toEqual(ONE_TURN);
    await host.dispose();
  });

  it('should count what an ask stopped by Esc had spent, and still answer the call as a failure', async () => {
    const host = new PlanHost({ store: new PlanStore(join(dir, 'plans')), ports: idlePorts });
    const planId = host.create({ message: 'hello' }).getSnapshot().context.plan_id;
    const fake = fakeSessions(() => 'never answered');
    const caller = await fake.port.create({ title: 'planner', metadata: { orca: { plan_id: planId, role: 'planner' } } });
    const stopped = { sessions: { ...fake.port, prompt: async (input: { sessionID: string }) => Promise.reject(new PromptAbortedError(input.sessionID, ONE_TURN)) } };
    const turns: TurnRecord[] = [];
    const orca = { sessions: stopped.sessions, host, recordTurn: (r: TurnRecord) => turns.push(r), log: () => {} } as unknown as Orca;
    const out = JSON.parse((await askSpecialistTool(orca).execute({ agent_id: 'architect', question: 'Which API?' } as never, ctx(caller.id))) as string);
    expect(out).toMatchObject({ status: 'failure', error_type: 'PromptAbortedError' });
    expect(turns).toEqual([expect.objectContaining({ plan_id: planId, role: 'ask', agent: 'architect.readonly', usage: ONE_TURN })]);
    expect(host.open(planId).getSnapshot().context.usage).toEqual(ONE_TURN);
    await host.dispose();
  });
});
