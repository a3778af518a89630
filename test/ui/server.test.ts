import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inboxDir } from '../../src/persistence/inbox.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { STATIC_FILES } from '../../src/ui/static-files.js';
import { waitFor } from '../support/wait-for.js';
import { approvalPlan, failedStepPlan, mergePlan, tempProject, type Project } from '../cli/fixtures.js';
import { eventStream, request } from './http-client.js';

let project: Project;
let ui: UiServer;
let base: string;
let token: string;
beforeEach(async () => {
  project = tempProject();
  ui = await startUiServer({ project: project.dir, pollMs: 50, decisionWaitMs: 5_000, rewind: { store: project.store, repo: null, include: [] } });
  base = `http://127.0.0.1:${ui.port}`;
  token = new URL(ui.url).searchParams.get('token')!;
});
afterEach(async () => {
  await ui.stop();
  project.remove();
});

const released = (make: (host: ReturnType<Project['host']>) => string, options: Parameters<Project['host']>[0] = {}) => {
  const host = project.host(options);
  const planId = make(host);
  host.dispose();
  return planId;
};
const cookie = () => `orca_ui_${ui.port}=${token}`;
const api = (path: string, headers: Record<string, string> = {}) => request(`${base}${path}`, { headers: { cookie: cookie(), ...headers } });
const decide = (planId: string, body: unknown, headers: Record<string, string> = {}) =>
  request(`${base}/api/plans/${planId}/decision`, {
    method: 'POST',
    headers: { cookie: cookie(), origin: base, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const inbox = (planId: string) => {
  const dir = inboxDir(project.store.dir, planId);
  return existsSync(dir) ? readdirSync(dir).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8'))) : [];
};

describe('the plan viewer server', () => {
  it('should print a URL on 127.0.0.1 whose token opens the page and sets the cookie the API takes', async () => {
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    const page = await request(ui.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['set-cookie']).toEqual([`orca_ui_${ui.port}=${token}; Path=/; HttpOnly; SameSite=Strict`]);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'");
    expect(page.body).toContain('<script type="module" src="/static/app.js"></script>');
    for (const name of STATIC_FILES.filter((n) => n !== 'index.html')) expect((await api(`/static/${name}`)).status, name).toBe(200);
    expect((await api('/api/plans')).json()).toEqual({ project: project.dir, plans: [], unreadable: [] });
  });

  it('should refuse every request without the token: page, assets, API and events', async () => {
    for (const path of ['/', '/static/app.js', '/api/plans', '/api/events']) {
      const res = await request(`${base}${path}`);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.json().error).toMatch(/^Expected the token of the URL the plan viewer printed/);
    }
    expect((await request(`${base}/api/plans?token=wrong`)).status).toBe(401);
  });

  it('should refuse a foreign Host or Origin even with the token (DNS rebinding)', async () => {
    expect((await api('/api/plans', { host: `attacker.example:${ui.port}` })).status).toBe(403);
    expect((await api('/api/plans', { origin: 'http://attacker.example' })).status).toBe(403);
    expect((await api('/api/plans', { host: `localhost:${ui.port}` })).status).toBe(200);
    const planId = released(approvalPlan);
    const foreign = await decide(planId, { choice: 'approve' }, { origin: 'http://attacker.example' });
    expect(foreign.status).toBe(403);
    const formPost = await decide(planId, 'choice=approve', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(formPost.status).toBe(415);
    expect(inbox(planId)).toEqual([]);
  });

  it('should serve nothing but its own files and API, read-only', async () => {
    for (const path of ['/static/../../package.json', '/static/%2e%2e%2fpackage.json', '/static/server.js', '/package.json']) {
      expect([path, (await api(path)).status]).toEqual([path, 404]);
    }
    const put = await request(`${base}/api/plans`, { method: 'PUT', headers: { cookie: cookie(), origin: base, 'content-type': 'application/json' } });
    expect(put.status).toBe(405);
    const postElsewhere = await request(`${base}/api/plans`, { method: 'POST', headers: { cookie: cookie(), origin: base, 'content-type': 'application/json' }, body: '{}' });
    expect(postElsewhere.status).toBe(405);
  });

  it("should take a merge gate's button as the page posts it, with the step, and show the gate and the step's diff", async () => {
    const planId = released(mergePlan, { policy: { workspace: 'worktree' } });
    const view = (await api(`/api/plans/${planId}`)).json();
    expect(view.gates[0]).toMatchObject({ kind: 'merge', step_id: 's1', options: [{ choice: 'ontop' }, { choice: 'resolved' }, { choice: 'stop' }] });
    expect(view.steps[0].changes.files.map((f: { path: string; undeclared: boolean }) => [f.path, f.undeclared])).toEqual([['hello.ts', false], ['notes.md', true], ['logo.png', true]]);
    const ok = await decide(planId, { choice: view.gates[0].options[1].choice, step: view.gates[0].step_id });
    expect([ok.status, ok.json().summary]).toEqual([200, `Resolved by hand for step s1 of plan ${planId}`]);
    expect(inbox(planId)).toMatchObject([{ event: { type: 'merge.resolved', stepId: 's1', channel: 'cli' } }]);
  });

  it('should post a decision exactly as orca decide does, with its validation', async () => {
    const planId = released(approvalPlan);
    const changes = await decide(planId, { choice: 'changes' });
    expect([changes.status, changes.json().error]).toEqual([
      409,
      `Request Changes needs your guidance for the planner: say what to change. Use orca decide ${planId} changes --message "<text>".`,
    ]);
    const retry = await decide(planId, { choice: 'retry', step: 's1' });
    expect([retry.status, retry.json().error]).toEqual([409, `Plan ${planId} is not waiting for a decision on a failed step: it waits for approval.`]);
    expect(inbox(planId)).toEqual([]);

    const ok = await decide(planId, { choice: 'changes', text: 'smaller steps' });
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({
      summary: `Request Changes of plan ${planId} with "smaller steps"`,
      outcome: 'not-running',
      message: 'queued: applies when the plan is resumed (orca_ask_planner with its plan_id)',
    });
    expect(inbox(planId)).toMatchObject([{ event: { type: 'approval.request_changes', text: 'smaller steps', channel: 'cli' } }]);
    const again = await decide(planId, { choice: 'reject' });
    expect([again.status, again.json().error]).toEqual([409, expect.stringMatching(/already has a decision waiting to be applied/)]);
    expect((await api(`/api/plans/${planId}`)).json().queued).toEqual([expect.stringMatching(/^approval\.request_changes posted /)]);
  });

  it('should be applied by a host holding the plan, and retry the failed step it names', async () => {
    const host = project.host();
    const planId = failedStepPlan(host, 1);
    const stopPolling = host.pollInboxes(100);
    try {
      const res = await decide(planId, { choice: 'retry', step: 's2', text: 'mock the clock' });
      expect(res.json()).toMatchObject({ summary: `Retry for step s2 of plan ${planId} with "mock the clock"`, outcome: 'applied' });
      expect(project.store.load(planId).decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Retry', channel: 'cli', step_id: 's2', text: 'mock the clock' });
    } finally {
      stopPolling();
      host.dispose();
    }
  });

  it('should answer bad input with what was expected and at most 100 characters of it', async () => {
    const planId = released(approvalPlan);
    const long = 'y'.repeat(3000);
    const answers = [
      await decide(planId, '{ not json'),
      await decide(planId, { choice: long }),
      await decide(planId, { choice: 'retry', step: long }),
      await decide(planId, { choice: 'approve', text: 7 }),
      await decide(planId, { choice: 'maybe' }),
      await decide(`plan_${long}`, { choice: 'approve' }),
      await api(`/api/plans/${long}`),
      await api(`/${long}`),
      await api(`/api/events?plan=${long}`),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.json().error).toMatch(/^(Expected|No |orca decide needs)/);
      expect(res.json().error).not.toMatch(/y{101}/);
    }
    expect(answers[4]!.json().error).toBe('orca decide needs a decision after the plan_id: one of approve, changes, reject, retry, replan, accept, continue, rerun, done, ontop, resolved, stop (got "maybe").');
    expect((await decide(planId, { choice: 'approve', text: 'z'.repeat(20_000) })).status).toBe(413);
    expect(inbox(planId)).toEqual([]);
  });

  it('should list plans, show one, and say which file does not load without moving it', async () => {
    const planId = released((h) => failedStepPlan(h, 1));
    const bad = 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9';
    writeFileSync(join(project.store.dir, `${bad}.json`), '{ not json');
    const list = (await api('/api/plans')).json();
    expect(list.plans.map((p: { plan_id: string }) => p.plan_id)).toEqual([planId]);
    expect(list.unreadable).toEqual([{ plan_id: bad, reason: expect.stringMatching(/^not valid JSON/) }]);
    expect(existsSync(join(project.store.dir, `${bad}.json`))).toBe(true);
    const plan = (await api(`/api/plans/${planId}`)).json();
    expect(plan).toMatchObject({ plan_id: planId, waiting_for: 'deviation', gates: [{ kind: 'deviation', step_id: 's2' }] });
    expect((await api(`/api/plans/${bad}`)).status).toBe(422);
    expect((await api('/api/plans/plan_01JDX4Z6Q5H2M3N4P5R6S7T8V8')).status).toBe(404);
  });

  it('should tell event streams when a plan file or its journal changes', async () => {
    const planId = released(approvalPlan);
    const stream = eventStream(`${base}/api/events?plan=${planId}`, { cookie: cookie() });
    try {
      const ready = await waitFor(() => stream.events.find((e) => e.event === 'ready'), { description: 'the stream to open' });
      expect(JSON.parse(ready.data)).toEqual({ project: project.dir });
      expect(stream.status()).toBe(200);
      const path = project.store.pathOf(planId);
      const text = readFileSync(path, 'utf8');
      writeFileSync(`${path}.tmp`, text.replace('"goal": "Add a greeting', '"goal": "Add a warm greeting'));
      renameSync(`${path}.tmp`, path); // as the plugin writes: atomically
      await waitFor(() => stream.events.find((e) => e.event === 'change'), { description: 'a change event after the plan file was replaced' });
      expect(JSON.parse(stream.events.find((e) => e.event === 'change')!.data)).toEqual({ list: true, plans: [planId] });
      writeFileSync(project.store.journalPathOf(planId), '{"at":"2026-01-01T00:00:00.000Z","kind":"state","actor":"plan","state":"x"}\n', { flag: 'a' });
      await waitFor(() => stream.events.filter((e) => e.event === 'change').length === 2, { description: 'a change event after the journal grew' });
      expect(JSON.parse(stream.events.filter((e) => e.event === 'change')[1]!.data)).toEqual({ list: false, plans: [planId] });
    } finally {
      stream.stop();
    }
  });
});
