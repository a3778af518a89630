import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/persistence/journal.js';
import { timelineOf } from '../../src/ui/timeline-view.js';
import { turn, usage } from '../support/turns.js';

const at = '2026-01-02T03:04:05.000Z';
const event = (type: string, fields: Record<string, unknown> = {}, source: JournalEntry & { kind: 'event' } extends { source: infer S } ? S : never = 'tool'): JournalEntry => ({
  at,
  kind: 'event',
  source,
  event: { type, ...fields },
});
const textOf = (entry: JournalEntry) => timelineOf([entry]).items.map((i) => i.text)[0];

describe('the timeline of a plan page', () => {
  it('should say each kind of journal entry in the words of orca show', () => {
    expect(timelineOf([{ at, kind: 'state', actor: 'step:s1', state: 'running' }]).items).toEqual([{ at, kind: 'state', text: 'step s1 → running' }]);
    expect(textOf({ at, kind: 'state', actor: 'plan', state: 'pending_approval' })).toBe('plan → pending_approval');
    expect(textOf({ at, kind: 'turn', role: 'planner', agent: 'planner', session_id: 'ses_p', correction: false, usage: usage({ model_calls: 3 }) })).toBe(
      'planner turn: 1 Orca turn, 3 model calls, 110 tokens, $0.001',
    );
    expect(textOf({ at, kind: 'turn', role: 'specialist', agent: 'coder', step_id: 's1', session_id: 'ses_c', correction: true, usage: usage() })).toBe(
      'specialist (coder) turn, a correction, for step s1: 1 Orca turn, 1 model call, 110 tokens, $0.001',
    );
    expect(textOf({ at, kind: 'reconcile', role: 'coder', session_id: 'ses_x', idempotency_key: 'k:s1:1', decision: 'adopted the finished reply', detail: 'idle' })).toBe(
      'after restart: coder session ses_x (k:s1:1): adopted the finished reply — idle',
    );
    expect(textOf({ at, kind: 'protocol', agent: 'coder', model: 'deep/thinker', protocol: 'text', reason: 'tool_choice refused', session_id: 'ses_x' })).toBe(
      'coder (deep/thinker) switched to the text protocol: structured output refused in session ses_x — tool_choice refused',
    );
    expect(textOf({ at, kind: 'coercion', role: 'specialist', agent: 'coder', step_id: 's1', session_id: 'ses_c', coerced: ['JSONC: comments removed', 'artifacts: missing, taken as []'] })).toBe(
      "specialist (coder)'s answer for step s1 accepted with slips forgiven: JSONC: comments removed; artifacts: missing, taken as []",
    );
    expect(timelineOf([{ at, kind: 'later' } as never]).items).toEqual([{ at, kind: 'unknown', text: `unknown entry {"at":"${at}","kind":"later"}` }]);
  });

  it('should say events: decisions with their channel, step reports, the planner’s answers', () => {
    expect(textOf(event('approval.approve', { text: 'looks good' }, 'cli'))).toBe('Approve at the approval gate with orca decide: "looks good"');
    expect(textOf(event('deviation.retry', { stepId: 's2' }, 'question'))).toBe('Retry at the failed step gate (step s2) in the question dialog');
    expect(textOf(event('step.dispatched', { stepId: 's1', attempt: 2 }, 'child'))).toBe('step s1: attempt 2 sent to its specialist');
    expect(textOf(event('step.failed', { stepId: 's2', attempt: 1, error: 'test 1 is red' }, 'child'))).toBe('step s2 failed (attempt 1): "test 1 is red"');
    expect(textOf(event('plan.message', { message: 'add docs' }))).toBe('message for the planner through orca_ask_planner: "add docs"');
  });

  it('should word the internal events that say something and leave out the rest', () => {
    const entries = [
      event('xstate.init', { input: { message: 'say hello' } }, 'init'),
      event('xstate.done.actor.openPlannerSession', { output: { sessionId: 'ses_planner' } }, 'invoke'),
      event('xstate.done.actor.consultPlanner', { output: turn({ type: 'plan', steps: [{}, {}] }) }, 'invoke'),
      event('xstate.done.actor.revisePlan', { output: turn({ type: 'answer', text: 'done' }) }, 'invoke'),
      event('xstate.error.actor.consultPlanner', { error: 'the model is down' }, 'invoke'),
      event('xstate.error.actor.step:s1', { error: 'boom' }, 'invoke'),
      // Left out: a step chart's end, a usage event (the turn's line says it), any other xstate event.
      event('xstate.done.actor.step:s1', {}, 'invoke'),
      event('usage.recorded', { usage: usage() }),
      event('xstate.done.actor.someInternalActor', {}, 'invoke'),
      event('xstate.stop'),
    ];
    const timeline = timelineOf(entries);
    expect(timeline.items.map((i) => i.text)).toEqual([
      'plan created from "say hello"',
      "the planner's session opened: ses_planner",
      'the planner proposed a plan of 2 step(s)',
      'the planner (revision) answered without a plan',
      'the planner failed: the model is down',
      "step s1's chart failed: boom",
    ]);
    expect(timeline.total).toBe(6);
    expect(JSON.stringify(timeline)).not.toContain('xstate.');
  });

  it('should keep the latest entries and count all it shows', () => {
    const states: JournalEntry[] = Array.from({ length: 5 }, (_, i) => ({ at, kind: 'state', actor: 'plan', state: `s${i}` }));
    expect(timelineOf([...states, event('usage.recorded', { usage: usage() })], 2)).toEqual({
      total: 5,
      items: [
        { at, kind: 'state', text: 'plan → s3' },
        { at, kind: 'state', text: 'plan → s4' },
      ],
    });
  });
});
