import { describe, expect, it } from 'vitest';
import { createToolActivity } from '../../src/opencode/tool-activity.js';

/** A clock the test moves by hand. */
function clock(start = 100) {
  let t = start;
  return { now: () => t, at: (ms: number) => void (t = ms) };
}

const partEvent = (sessionID: string, callID: string, status: string, tool = 'bash') => ({
  type: 'message.part.updated',
  properties: { part: { type: 'tool', sessionID, callID, tool, state: { status } } },
});

describe('createToolActivity', () => {
  it('should date a session quiet from when the process began to listen until it calls a tool, then from the end of its last call, and not while one runs', () => {
    const c = clock(100);
    const activity = createToolActivity({ now: c.now });
    c.at(200);
    expect(activity.quietSince('ses_a')).toBe(100);
    activity.before({ tool: 'write', sessionID: 'ses_a', callID: 'call_1' });
    expect(activity.quietSince('ses_a')).toBeUndefined();
    activity.before({ tool: 'bash', sessionID: 'ses_a', callID: 'call_2' });
    c.at(300);
    activity.after({ sessionID: 'ses_a', callID: 'call_1' });
    expect(activity.quietSince('ses_a')).toBeUndefined(); // call_2 still runs
    c.at(400);
    activity.after({ sessionID: 'ses_a', callID: 'call_2' });
    expect(activity.quietSince('ses_a')).toBe(400);
    // Another session's calls are its own.
    activity.before({ tool: 'edit', sessionID: 'ses_b', callID: 'call_3' });
    expect(activity.quietSince('ses_a')).toBe(400);
    expect(activity.quietSince('ses_b')).toBeUndefined();
  });

  it("should not count OpenCode's StructuredOutput call, which only hands the answer back", () => {
    const c = clock(100);
    const activity = createToolActivity({ now: c.now });
    c.at(500);
    activity.before({ tool: 'StructuredOutput', sessionID: 'ses_a', callID: 'call_1' });
    expect(activity.quietSince('ses_a')).toBe(100);
    activity.after({ sessionID: 'ses_a', callID: 'call_1' });
    expect(activity.quietSince('ses_a')).toBe(100);
  });

  it('should end a call that threw (no after hook) when its part ends in error on the bus, and ignore parts it never saw start', () => {
    const c = clock(100);
    const activity = createToolActivity({ now: c.now });
    activity.before({ tool: 'edit', sessionID: 'ses_a', callID: 'call_1' });
    c.at(250);
    activity.observe(partEvent('ses_a', 'call_1', 'running'));
    expect(activity.quietSince('ses_a')).toBeUndefined();
    c.at(300);
    activity.observe(partEvent('ses_a', 'call_1', 'error'));
    expect(activity.quietSince('ses_a')).toBe(300);
    // A late event for a call already ended moves nothing; nor does one of a session that never ran a tool here.
    c.at(900);
    activity.observe(partEvent('ses_a', 'call_1', 'completed'));
    activity.observe(partEvent('ses_c', 'call_9', 'completed'));
    expect(activity.quietSince('ses_a')).toBe(300);
    expect(activity.quietSince('ses_c')).toBe(100);
    // Events that are not tool parts, or carry no ids, are passed over.
    activity.observe({ type: 'message.part.updated', properties: { part: { type: 'text', sessionID: 'ses_a' } } });
    activity.observe({ type: 'message.part.updated' });
    expect(activity.quietSince('ses_a')).toBe(300);
  });

  it('should forget a deleted session', () => {
    const c = clock(100);
    const activity = createToolActivity({ now: c.now });
    activity.before({ tool: 'bash', sessionID: 'ses_a', callID: 'call_1' });
    activity.observe({ type: 'session.deleted', properties: { info: { id: 'ses_a' } } });
    expect(activity.quietSince('ses_a')).toBe(100);
  });
});
