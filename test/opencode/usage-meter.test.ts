import { describe, expect, it } from 'vitest';
import { createUsageMeter, usageOfMessage } from '../../src/opencode/usage-meter.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';

const info = (id: string, parentID: string, input: number, cost: number, sessionID = 'ses_c') => ({
  id,
  parentID,
  sessionID,
  role: 'assistant',
  cost,
  tokens: { input, output: 10, reasoning: 2, cache: { read: 100, write: 5 } },
});
const updated = (i: ReturnType<typeof info>) => ({ type: 'message.updated', properties: { info: i } });

describe('usage meter', () => {
  it("should read one assistant message's tokens and cost as OpenCode reports them", () => {
    expect(usageOfMessage(info('m1', 'u1', 500, 0.003))).toEqual({ turns: 1, model_calls: 1, input: 500, output: 10, reasoning: 2, cache_read: 100, cache_write: 5, cost: 0.003 });
    expect(usageOfMessage({})).toEqual({ turns: 1, model_calls: 1, input: 0, output: 0, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0 });
  });

  it('should add the earlier model requests of a prompt (tool calls) to its reply, counting one turn and each model call', () => {
    const meter = createUsageMeter();
    const untrack = meter.track('ses_c');
    meter.observe(updated(info('m1', 'u1', 600, 0.002))); // a tool call, then the final reply m2
    meter.observe(updated(info('m0', 'u0', 9_999, 9))); // an earlier prompt of the session: not this one
    meter.observe(updated(info('m2', 'u1', 500, 0.001)));
    meter.observe(updated(info('x1', 'u9', 100, 1, 'ses_other'))); // an untracked session
    expect(meter.promptUsage('ses_c', info('m2', 'u1', 500, 0.003))).toEqual({ turns: 1, model_calls: 2, input: 1100, output: 20, reasoning: 4, cache_read: 200, cache_write: 10, cost: 0.005 });
    // Counted once: the same messages are not added to a later prompt.
    expect(meter.promptUsage('ses_c', info('m3', 'u1', 1, 0)).input).toBe(1);
    untrack();
    meter.observe(updated(info('m4', 'u2', 7, 0)));
    expect(meter.promptUsage('ses_c', info('m5', 'u2', 1, 0)).input).toBe(1);
  });

  it("should count a stopped prompt's model requests since it was sent, the one in flight included, once", () => {
    const meter = createUsageMeter();
    meter.track('ses_c');
    const at = (i: ReturnType<typeof info>, created: number) => ({ ...i, time: { created } });
    meter.observe(updated(at(info('m0', 'u0', 9_999, 9), 900))); // a late update of an earlier prompt's message
    meter.observe(updated(at(info('m1', 'u1', 600, 0.002), 1_000))); // a tool call
    meter.observe(updated({ ...at(info('m2', 'u1', 0, 0), 1_500), tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } })); // in flight at the abort
    expect(meter.stoppedUsage('ses_c', 1_000)).toEqual({ turns: 1, model_calls: 2, input: 600, output: 10, reasoning: 2, cache_read: 100, cache_write: 5, cost: 0.002 });
    expect(meter.stoppedUsage('ses_c', 1_000)).toEqual({ ...ZERO_USAGE, turns: 1 }); // counted once
    // Stopped before any model request, or in a session nobody tracks: still one Orca turn.
    expect(meter.stoppedUsage('ses_other', 0)).toEqual({ ...ZERO_USAGE, turns: 1 });
  });

  it('should ignore events that are not assistant message updates', () => {
    const meter = createUsageMeter();
    meter.track('ses_c');
    meter.observe({ type: 'message.updated', properties: { info: { ...info('u1', '', 5, 0), role: 'user' } } });
    meter.observe({ type: 'session.idle', properties: { sessionID: 'ses_c' } });
    meter.observe({ type: 'message.updated' });
    expect(meter.promptUsage('ses_c', info('m1', 'u1', 1, 0)).input).toBe(1);
  });
});
