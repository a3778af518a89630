import { describe, expect, it } from 'vitest';
import { gateKey, type Gate } from '../../src/machines/gates.js';
import { budgetGate, deviationGate, mergeGate } from '../hitl/gate-fixtures.js';

const resumeGate = (stepId: string, attempt = 1): Extract<Gate, { kind: 'resume' }> => ({
  kind: 'resume',
  planId: 'plan_X',
  stepId,
  agent: 'coder',
  attempt,
  turn: 'specialist',
  sessionId: `ses_${stepId}`,
  detail: 'its turn was in flight when the server stopped',
  files: [],
  options: ['Re-run', 'Mark done', 'Stop'],
  autoOptions: ['Re-run', 'Stop'],
});

describe('gateKey: one decision, one key', () => {
  it('should tell apart the gates of two steps of one plan at the same kind of gate', () => {
    expect(gateKey(resumeGate('s1'))).not.toBe(gateKey(resumeGate('s2')));
    expect(gateKey(mergeGate({ stepId: 's1' }))).not.toBe(gateKey(mergeGate({ stepId: 's2' })));
    expect(gateKey(deviationGate({ stepId: 's1' }))).not.toBe(gateKey(deviationGate({ stepId: 's2' })));
  });

  it('should name the plan, the kind and the step', () => {
    expect(gateKey(resumeGate('s2'))).toBe('plan_X:resume:s2:1');
    expect(gateKey(mergeGate({ stepId: 's2', attempt: 3 }))).toBe('plan_X:merge:s2:3');
    expect(gateKey(deviationGate({ stepId: 's2', failures: 4 }))).toBe('plan_X:deviation:s2:4');
  });

  it('should keep the key of the same gate built again (after a restart), whatever it shows', () => {
    expect(gateKey({ ...resumeGate('s1'), detail: 'another reading', options: ['Stop'] })).toBe(gateKey(resumeGate('s1')));
    expect(gateKey(mergeGate({ conflicts: [] }))).toBe(gateKey(mergeGate()));
  });

  it('should make a gate asked again for a new reason a new decision', () => {
    // Another failure of the step, another attempt at it, the budget's limits raised by Continue.
    expect(gateKey(deviationGate({ failures: 2 }))).not.toBe(gateKey(deviationGate({ failures: 3 })));
    expect(gateKey(mergeGate({ attempt: 1 }))).not.toBe(gateKey(mergeGate({ attempt: 2 })));
    expect(gateKey(resumeGate('s1', 1))).not.toBe(gateKey(resumeGate('s1', 2)));
    expect(gateKey(budgetGate({ cap: 100 }))).not.toBe(gateKey(budgetGate({ cap: 200 })));
  });

  it('should never give two kinds of gate of one step the same key', () => {
    const keys = [gateKey(resumeGate('s1')), gateKey(mergeGate({ stepId: 's1', attempt: 1 })), gateKey(deviationGate({ stepId: 's1', failures: 1 }))];
    expect(new Set(keys).size).toBe(3);
  });
});
