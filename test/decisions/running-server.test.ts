import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postDecision } from '../../src/persistence/inbox.js';
import { RECORD_GRACE_MS, waitForRunningServer } from '../../src/decisions/running-server.js';
import { approvalPlan, tempProject, type Project } from '../cli/fixtures.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

describe('waiting for the server that holds a plan', () => {
  it('should call a decision dropped only when it is still unrecorded a grace period after it was taken', async () => {
    const host = project.host();
    const planId = approvalPlan(host);
    const plan = project.store.load(planId);
    // A decision the plan does not wait for: the holder takes it and drops it.
    const at = new Date().toISOString();
    const event = { type: 'deviation.retry', stepId: 's1', channel: 'cli', at };
    const posted = postDecision(project.store.dir, planId, event);
    const stopPolling = host.pollInboxes(50);
    try {
      const started = Date.now();
      expect(await waitForRunningServer(project.store, plan, event, posted, 200)).toBe('dropped');
      expect(Date.now() - started).toBeGreaterThanOrEqual(RECORD_GRACE_MS);
    } finally {
      stopPolling();
      host.dispose();
    }
  });
});
