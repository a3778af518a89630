import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSessionMonitor, toolFailureLimits, type SessionMonitorOptions } from '../../src/opencode/session-monitor.js';
import type { TranscriptMessage } from '../../src/opencode/tool-failures.js';

function monitorWith(overrides: Partial<SessionMonitorOptions> = {}) {
  const aborted: string[] = [];
  const logs: string[] = [];
  const monitor = createSessionMonitor({
    abort: async (id) => void aborted.push(id),
    log: (level, message) => logs.push(`${level}: ${message}`),
    ...overrides,
  });
  return { monitor, aborted, logs };
}

const partUpdated = (sessionID: string) => ({ type: 'message.part.updated', properties: { sessionID, part: { sessionID, type: 'text' }, time: 0 } });

describe('activity', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it('should stamp the last bus event about each session, wherever the event names it', () => {
    const { monitor } = monitorWith();
    monitor.observe({ type: 'message.updated', properties: { info: { id: 'msg_1', sessionID: 'ses_a' } } });
    vi.advanceTimersByTime(10);
    monitor.observe(partUpdated('ses_b'));
    vi.advanceTimersByTime(10);
    monitor.observe({ type: 'session.status', properties: { sessionID: 'ses_c', status: { type: 'busy' } } });
    monitor.observe({ type: 'session.updated', properties: { info: { id: 'ses_d' } } });
    monitor.observe({ type: 'server.connected', properties: {} });
    expect([monitor.lastActivity('ses_a'), monitor.lastActivity('ses_b'), monitor.lastActivity('ses_c'), monitor.lastActivity('ses_d')]).toEqual([
      1_000_000, 1_000_010, 1_000_020, 1_000_020,
    ]);
    monitor.observe({ type: 'session.deleted', properties: { info: { id: 'ses_a' } } });
    expect(monitor.lastActivity('ses_a')).toBeUndefined();
  });

  it('should resolve waitIdle after idleMs of silence counted from the call', async () => {
    const { monitor } = monitorWith();
    const idle = vi.fn();
    void monitor.waitIdle('ses_a', 1000, new AbortController().signal).then(idle);
    await vi.advanceTimersByTimeAsync(999);
    expect(idle).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(idle).toHaveBeenCalled();
  });

  it('should move the deadline with activity, re-arming one timer only when it fires', async () => {
    const { monitor } = monitorWith();
    // The monitor's own timers (its callback is `arm`), not whatever else of this worker sets one meanwhile:
    // under load a timer of another file's leftover work once landed in this test's fake clock.
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const armed = () => setTimer.mock.calls.filter(([callback]) => callback.name === 'arm').length;
    const idle = vi.fn();
    void monitor.waitIdle('ses_a', 1000, new AbortController().signal).then(idle);
    for (let i = 0; i < 50; i++) {
      await vi.advanceTimersByTimeAsync(15);
      monitor.observe(partUpdated('ses_a')); // a streaming model: many events, no new timers
    }
    expect(armed()).toBe(1);
    monitor.observe(partUpdated('ses_b')); // another session's activity does not count
    await vi.advanceTimersByTimeAsync(999);
    expect(idle).not.toHaveBeenCalled();
    // Fired at the first deadline, it re-armed once for the moved one; resolved there, it armed no more.
    expect(armed()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(idle).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(5000);
    expect(armed()).toBe(2);
    setTimer.mockRestore();
  });

  it('should count from the call when the last activity is older', async () => {
    const { monitor } = monitorWith();
    monitor.observe(partUpdated('ses_a'));
    await vi.advanceTimersByTimeAsync(5000);
    const idle = vi.fn();
    void monitor.waitIdle('ses_a', 1000, new AbortController().signal).then(idle);
    await vi.advanceTimersByTimeAsync(999);
    expect(idle).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(idle).toHaveBeenCalled();
  });

  it('should reject with the abort reason and leave no timer behind', async () => {
    const { monitor } = monitorWith();
    const controller = new AbortController();
    const waiting = monitor.waitIdle('ses_a', 1000, controller.signal);
    controller.abort(new Error('step finished'));
    await expect(waiting).rejects.toThrow('step finished');
    expect(vi.getTimerCount()).toBe(0);
    await expect(monitor.waitIdle('ses_a', 1000, controller.signal)).rejects.toThrow('step finished');
    await expect(monitor.waitIdle('ses_a', 0, new AbortController().signal)).rejects.toThrow('Expected `idleMs` to be a positive number, got 0.');
  });
});

describe('tool-failure breaker', () => {
  const user = (sessionID: string): TranscriptMessage => ({
    info: { id: 'msg_u', sessionID, role: 'user', agent: 'tester', model: { providerID: 'p', modelID: 'm' }, time: { created: 1 } },
    parts: [{ type: 'text', text: 'do the step' }],
  });
  const readFails = (sessionID: string, filePath = '/missing.txt'): TranscriptMessage => ({
    info: { role: 'assistant', sessionID },
    parts: [{ type: 'tool', tool: 'read', state: { status: 'error', input: { filePath }, error: `File not found: ${filePath}` } }],
  });
  const transcript = (sessionID: string, failures: number) => [user(sessionID), ...Array.from({ length: failures }, () => readFails(sessionID))];
  const textOf = (m: TranscriptMessage) => (m.parts[0] as { text?: string }).text;

  it('should add a redirect user message at the third identical failure, for that request only', async () => {
    const { monitor, logs } = monitorWith();
    monitor.guard('ses_s');
    const two = transcript('ses_s', 2);
    await monitor.beforeModelRequest(two);
    expect(two).toHaveLength(3);
    const three = transcript('ses_s', 3);
    await monitor.beforeModelRequest(three);
    expect(three).toHaveLength(5);
    expect(three.at(-1)!.info).toMatchObject({ role: 'user', sessionID: 'ses_s', agent: 'tester' });
    expect(textOf(three.at(-1)!)).toContain('You have called read with the same input 3 times and it failed the same way each time: File not found: /missing.txt.');
    expect(logs).toEqual(['info: session ses_s: 3 identical failures of read; redirect message added to the next model request']);
  });

  it('should abort the session at the fourth identical failure and remember why', async () => {
    const { monitor, aborted, logs } = monitorWith();
    const unguard = monitor.guard('ses_s');
    const four = transcript('ses_s', 4);
    await monitor.beforeModelRequest(four);
    expect(four).toHaveLength(5); // no redirect: the request is not meant to go out
    expect(aborted).toEqual(['ses_s']);
    expect(monitor.abortReason('ses_s')).toBe('aborted after 4 identical failures of read: File not found: /missing.txt');
    expect(logs.at(-1)).toMatch(/^warn: session ses_s: aborted after 4 identical failures of read/);
    unguard();
    expect(monitor.abortReason('ses_s')).toBeUndefined();
  });

  it('should leave sessions alone that are not guarded (the user, the planner, read-only consultations)', async () => {
    const { monitor, aborted } = monitorWith();
    const four = transcript('ses_user', 4);
    await monitor.beforeModelRequest(four);
    expect(four).toHaveLength(5);
    expect(aborted).toEqual([]);
  });

  it("should keep a session guarded while a later guard of it holds", async () => {
    const { monitor, aborted } = monitorWith();
    const first = monitor.guard('ses_s');
    const second = monitor.guard('ses_s');
    first();
    await monitor.beforeModelRequest(transcript('ses_s', 4));
    expect(aborted).toEqual(['ses_s']);
    second();
    expect(monitor.abortReason('ses_s')).toBeUndefined();
  });

  it('should follow the configured limits', async () => {
    const { monitor, aborted } = monitorWith(toolFailureLimits({ breakers: { tool_failures: { redirect_at: 1, abort_at: 2 } } }));
    monitor.guard('ses_s');
    const one = transcript('ses_s', 1);
    await monitor.beforeModelRequest(one);
    expect(one).toHaveLength(3);
    await monitor.beforeModelRequest(transcript('ses_s', 2));
    expect(aborted).toEqual(['ses_s']);
    expect(toolFailureLimits({})).toEqual({ redirectAt: 3, abortAt: 4 });
  });

  it('should not redirect once the model moved on to something else', async () => {
    const { monitor } = monitorWith();
    monitor.guard('ses_s');
    const moved = [...transcript('ses_s', 3), readFails('ses_s', '/other.txt')];
    await monitor.beforeModelRequest(moved);
    expect(moved).toHaveLength(5);
  });

  it('should say so and rethrow when the abort fails', async () => {
    const { monitor, logs } = monitorWith({ abort: async () => Promise.reject(new Error('server gone')) });
    monitor.guard('ses_s');
    await expect(monitor.beforeModelRequest(transcript('ses_s', 4))).rejects.toThrow('server gone');
    expect(logs.at(-1)).toBe('error: session ses_s: could not abort after 4 identical failures of read: server gone');
  });

  it('should refuse limits that make no sense', () => {
    expect(() => monitorWith({ abortAt: 1 })).toThrow('Expected `abortAt` to be an integer of at least 2, got 1.');
    expect(() => monitorWith({ redirectAt: 0 })).toThrow('Expected `redirectAt` to be a positive integer, got 0.');
  });
});

describe('session status', () => {
  const status = (sessionID: string, s: Record<string, unknown>) => ({ type: 'session.status', properties: { sessionID, status: s } });

  it("should hand a watcher each status of its session, retries with the provider's message, until it stops watching", () => {
    const { monitor } = monitorWith();
    const seen: unknown[] = [];
    const stop = monitor.watchStatus('ses_a', (s) => seen.push(s));
    monitor.observe(status('ses_a', { type: 'busy' }));
    monitor.observe(status('ses_b', { type: 'busy' }));
    monitor.observe(status('ses_a', { type: 'retry', attempt: 2, message: 'Thinking mode does not support this tool_choice', next: 123 }));
    monitor.observe(status('ses_a', { type: 'compacting' })); // a status 1.18 does not send: ignored
    stop();
    monitor.observe(status('ses_a', { type: 'idle' }));
    expect(seen).toEqual([{ type: 'busy' }, { type: 'retry', attempt: 2, message: 'Thinking mode does not support this tool_choice', next: 123 }]);
  });

  it('should log a watcher that throws and still tell the others', () => {
    const { monitor, logs } = monitorWith();
    const seen: string[] = [];
    monitor.watchStatus('ses_a', () => {
      throw new Error('boom');
    });
    monitor.watchStatus('ses_a', (s) => seen.push(s.type));
    monitor.observe(status('ses_a', { type: 'busy' }));
    expect(seen).toEqual(['busy']);
    expect(logs).toEqual(['error: session ses_a: a status listener failed: boom']);
  });
});
