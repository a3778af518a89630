import { describe, expect, it, vi } from 'vitest';
import type { PlanObserver } from '../../src/host/observers.js';
import { followProgressTitle, MAX_PROGRESS_STEPS, progressLines, progressTitle } from '../../src/notices/progress-title.js';
import type { ToolPart, ToolTitlePort } from '../../src/opencode/tool-title.js';
import { usage } from '../support/turns.js';

const step = (id: string, agent: string, status: string) => ({ id, agent, status, description: 'd', depends_on: [], attempts: 0, failures: [] });
const file = (patch: Record<string, unknown> = {}) =>
  ({
    plan_id: 'plan_X',
    status: 'in_progress',
    waiting_for: null,
    steps: [step('impl', 'coder', 'completed'), step('docs', 'document-writer', 'completed'), step('api', 'coder', 'running'), step('test', 'tester', 'pending'), step('ship', 'coder', 'pending')],
    usage: usage({ cost: 0.1234 }),
    ...patch,
  }) as never;

describe('progress title', () => {
  it('should say what is done, what runs and what it cost so far', () => {
    expect(progressTitle(file())).toBe('plan_X · 2/5 done · api (coder) running · $0.12');
    expect(progressTitle(file({ waiting_for: 'budget' }))).toBe('plan_X · 2/5 done · waits for budget · $0.12');
    expect(progressTitle(file({ status: 'drafting', steps: [], usage: undefined }))).toBe('plan_X · drafting · $0.00');
  });

  it('should list each step with its mark, what it cost so far and the viewer page of the plan', () => {
    const f = file({
      steps: [
        { ...step('impl', 'coder', 'completed'), usage: usage({ cost: 0.04, input: 12_000, output: 345 }) },
        { ...step('api', 'coder', 'running'), attempts: 2, usage: usage({ cost: 0.002, input: 900, output: 100 }) },
        step('test', 'tester', 'awaiting_decision'),
        step('ship', 'coder', 'pending'),
      ],
    });
    expect(progressLines(f, 'http://127.0.0.1:4300/?token=abc')).toEqual([
      'plan_X · 1/4 done · api (coder) running · $0.12',
      '✓ impl (coder) done · $0.04 · 12,345 tokens',
      '▶ api (coder) running (attempt 2) · $0.002 · 1,000 tokens',
      '! test (tester) failed, waits for you',
      '· ship (coder) waiting',
      'viewer: http://127.0.0.1:4300/?token=abc#/plan/plan_X',
    ]);
    expect(progressLines(file({ status: 'drafting', steps: [], usage: undefined }))).toEqual(['plan_X · drafting · $0.00']);
  });

  it('should show at most MAX_PROGRESS_STEPS steps of a long plan: those running first, then the last done and the next waiting', () => {
    const steps = Array.from({ length: 40 }, (_, i) => step(`s${i + 1}`, 'coder', i < 20 ? 'completed' : i < 22 ? 'running' : 'pending'));
    const lines = progressLines(file({ steps }));
    const stepLines = lines.slice(1, -1);
    expect(stepLines).toHaveLength(MAX_PROGRESS_STEPS);
    expect(stepLines.filter((l) => l.startsWith('▶'))).toEqual(['▶ s21 (coder) running', '▶ s22 (coder) running']);
    expect(stepLines[0]).toBe('✓ s17 (coder) done'); // the last four done, in plan order
    expect(stepLines.at(-1)).toBe('· s26 (coder) waiting');
    expect(lines.at(-1)).toBe('… 16 more done, 14 more waiting (orca show plan_X)');
  });

  it('should retitle the running tool call at each change, one PATCH at a time, the newest winning, and none after stop', async () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => (observer = undefined)) };
    const part = { id: 'prt_1', sessionID: 'ses_o', messageID: 'msg_1', type: 'tool', tool: 'orca_ask_planner', state: { status: 'running', input: { message: 'm' } } } as ToolPart;
    const titles: string[] = [];
    const finds: unknown[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const restored: [ToolPart, AbortSignal][] = [];
    const turn = new AbortController().signal;
    const port: ToolTitlePort = {
      find: async (at, call) => (finds.push({ ...at, ...call }), part),
      show: async (_p, lines) => {
        titles.push(lines[0]!);
        await gate;
      },
      restore: async (p, signal) => void restored.push([p, signal]),
    };
    const progress = followProgressTitle({
      host,
      titles: port,
      planId: 'plan_X',
      call: { sessionID: 'ses_o', messageID: 'msg_1', tool: 'orca_ask_planner', input: { message: 'm' } },
      turn,
      log: () => {},
      everyMs: 0,
    });
    const change = (patch: Record<string, unknown>) => observer!({ snapshot: {} as never, planId: 'plan_X', before: undefined, after: {} as never, file: file(patch) });
    change({});
    await vi.waitFor(() => expect(titles).toHaveLength(1));
    // While that PATCH is in flight: another plan's change, then two of this one's (only the newest is sent).
    observer!({ snapshot: {} as never, planId: 'plan_other', before: undefined, after: {} as never, file: file({ plan_id: 'plan_other' }) });
    change({ usage: usage({ cost: 0.2 }) });
    change({ usage: usage({ cost: 0.3 }) });
    release();
    await vi.waitFor(() => expect(titles).toHaveLength(2));
    await progress.stop();
    observer?.({ snapshot: {} as never, planId: 'plan_X', before: undefined, after: {} as never, file: file({ usage: usage({ cost: 0.4 }) }) });
    expect(titles).toEqual(['plan_X · 2/5 done · api (coder) running · $0.12', 'plan_X · 2/5 done · api (coder) running · $0.30']);
    expect(finds).toEqual([{ sessionID: 'ses_o', messageID: 'msg_1', tool: 'orca_ask_planner', input: { message: 'm' } }]);
    expect(observer).toBeUndefined();
    // Once stopped, the part is put back as found (the port waits for OpenCode's end after Esc): the model reads its call's input later.
    expect(restored).toEqual([[part, turn]]);
  });

  it('should retitle at most once per everyMs, and stop at once during the pause without sending the title that waited', async () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => (observer = undefined)) };
    const part = { id: 'prt_1', sessionID: 'ses_o', messageID: 'msg_1', type: 'tool', tool: 'orca_ask_planner', state: { status: 'running', input: {} } } as ToolPart;
    const titles: string[] = [];
    const port: ToolTitlePort = { find: async () => part, show: async (_p, lines) => void titles.push(lines[0]!), restore: async () => {} };
    const progress = followProgressTitle({ host, titles: port, planId: 'plan_X', call: { sessionID: 'ses_o', messageID: 'msg_1', tool: 'orca_ask_planner', input: {} }, turn: new AbortController().signal, log: () => {}, everyMs: 60_000 });
    const change = (patch: Record<string, unknown>) => observer!({ snapshot: {} as never, planId: 'plan_X', before: undefined, after: {} as never, file: file(patch) });
    change({});
    await vi.waitFor(() => expect(titles).toHaveLength(1));
    change({ usage: usage({ cost: 0.2 }) });
    change({ usage: usage({ cost: 0.3 }) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(titles).toHaveLength(1); // the next one waits out the minute
    const stopped = Date.now();
    await progress.stop();
    expect(Date.now() - stopped).toBeLessThan(30_000);
    expect(titles).toEqual(['plan_X · 2/5 done · api (coder) running · $0.12']);
  });

  it('should log a failed update once and leave the plan alone', async () => {
    let observer: PlanObserver | undefined;
    const host = { observe: (_name: string, o: PlanObserver) => ((observer = o), () => {}) };
    const logs: string[] = [];
    const port: ToolTitlePort = { find: async () => { throw new Error('HTTP 500'); }, show: async () => {}, restore: async () => { throw new Error('never called: nothing was shown'); } };
    const progress = followProgressTitle({ host, titles: port, planId: 'plan_X', call: { sessionID: 's', messageID: 'm', tool: 't', input: {} }, turn: new AbortController().signal, log: (_l, m) => logs.push(m) });
    observer!({ snapshot: {} as never, planId: 'plan_X', before: undefined, after: {} as never, file: file() });
    await vi.waitFor(() => expect(logs).toHaveLength(1));
    observer!({ snapshot: {} as never, planId: 'plan_X', before: undefined, after: {} as never, file: file({ waiting_for: 'budget' }) });
    await progress.stop();
    expect(logs).toEqual(['plan plan_X: the progress title of orca_ask_planner could not be updated: HTTP 500']);
  });
});
