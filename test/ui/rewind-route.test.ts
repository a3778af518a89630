import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanStore } from '../../src/persistence/plan-store.js';
import { diffView } from '../../src/ui/diff-view.js';
import { readPlan } from '../../src/ui/plan-source.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { aText, endedPlan } from '../rewind/fixtures.js';
import { read, tempDirs } from '../workspace/repo.js';
import { request } from './http-client.js';

const dirs = tempDirs();
let ui: UiServer | undefined;
const servers: UiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  ui = undefined;
  dirs.cleanup();
});

/** The viewer over an ended two-step plan in a real git project (test/rewind/fixtures.ts), and how to call it. */
async function viewer(options: { end?: boolean } = {}) {
  const ended = await endedPlan(dirs, options);
  ui = await startUiServer({ project: ended.dir, pollMs: 50, rewind: { store: ended.store, repo: ended.repo, include: [] } });
  servers.push(ui);
  const base = `http://127.0.0.1:${ui.port}`;
  const cookie = `orca_ui_${ui.port}=${new URL(ui.url).searchParams.get('token')}`;
  const get = (path: string, headers: Record<string, string> = {}) => request(`${base}${path}`, { headers: { cookie, ...headers } });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(`${base}${path}`, { method: 'POST', headers: { cookie, origin: base, 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const { planId } = ended;
  return {
    ...ended,
    get,
    undo: (body: unknown, headers?: Record<string, string>) => post(`/api/plans/${planId}/undo`, body, headers),
    redo: (body: unknown, headers?: Record<string, string>) => post(`/api/plans/${planId}/redo`, body, headers),
    view: async () => (await get(`/api/plans/${planId}`)).json(),
  };
}

const landedTree = aText(20, { 5: 's1 was here', 15: 's2 was here' });
const untouched = (dir: string, store: PlanStore, planId: string) => {
  expect(read(dir, 'a.txt')).toBe(landedTree);
  expect(read(dir, 'new.txt')).toBe('added by s1\n');
  expect(store.load(planId).undos).toBeUndefined();
};

describe('GET /api/plans/:id/diff', () => {
  it("should answer each step's landed patch as lines with their kinds, one step with ?step=, and refuse a step the plan lacks", async () => {
    const { get, planId } = await viewer();
    const whole = await get(`/api/plans/${planId}/diff`);
    expect(whole.status).toBe(200);
    const body = whole.json();
    expect(body).toMatchObject({ plan_id: planId, step: null, cut: null });
    expect(body.sections.map((s: { step: string; agent: string; undone_at: unknown }) => [s.step, s.agent, s.undone_at])).toEqual([
      ['s1', 'coder', null],
      ['s2', 'tester', null],
    ]);
    const [s1] = body.sections;
    expect(s1.title).toMatch(new RegExp(`^${planId} · s1 \\(coder\\) · landed .* · a\\.txt \\+1 −1, new\\.txt \\+1 −0$`));
    expect(s1.files).toEqual([
      { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'new.txt', status: 'added', added: 1, removed: 0 },
    ]);
    expect(s1.lines).toContainEqual(['diff --git a/a.txt b/a.txt']);
    expect(s1.lines).toContainEqual(['-line 5', 'removed']);
    expect(s1.lines).toContainEqual(['+s1 was here', 'added']);
    expect(s1.lines).toContainEqual(['+added by s1', 'added']);
    expect(s1.lines.find(([, kind]: [string, string?]) => kind === 'hunk')[0]).toMatch(/^@@ -2,7 \+2,7 @@/);

    const one = (await get(`/api/plans/${planId}/diff?step=s2`)).json();
    expect(one.sections.map((s: { step: string }) => s.step)).toEqual(['s2']);
    expect(one.sections[0].lines).toContainEqual(['+s2 was here', 'added']);

    const none = await get(`/api/plans/${planId}/diff?step=s9`);
    expect([none.status, none.json().error]).toEqual([404, `Plan ${planId} has no step s9; its steps: s1, s2.`]);
    expect((await get(`/api/plans/${planId}/diff?step=${'x'.repeat(101)}`)).status).toBe(400);
    expect((await get('/api/plans/plan_01JDX4Z6Q5H2M3N4P5R6S7T8V8/diff')).status).toBe(404);
  });

  it('should cut a patch too long for a page, and say what prints it all', async () => {
    const { dir, planId } = await endedPlan(dirs);
    const result = readPlan(join(dir, '.opencode', 'plans'), planId);
    if (!result.ok) throw new Error('expected the plan to load');
    const whole = diffView(result.plan, null);
    const size = whole.sections[0]!.lines.reduce((n, [text]) => n + Buffer.byteLength(text) + 1, 0);
    const cut = diffView(result.plan, null, size + 10);
    expect(cut.sections[0]!.lines).toEqual(whole.sections[0]!.lines);
    expect(cut.sections[1]!.lines.length).toBeLessThan(whole.sections[1]!.lines.length);
    expect(cut.cut).toBe(`Cut at 0 KB: orca diff ${planId} prints it all.`);
    expect(diffView(result.plan, 's2', 10).cut).toBe(`Cut at 0 KB: orca diff ${planId} --step s2 prints it all.`);
    expect(whole.cut).toBeNull();
  });
});

describe('POST /api/plans/:id/undo and /redo', () => {
  it('should say what an undo would change and change nothing, then take it back for real, recorded as the viewer’s; redo puts it back', async () => {
    const { dir, store, planId, undo, redo, view, get } = await viewer();
    expect((await view()).rewind).toMatchObject({ ended: true, undo: true, redo: false, records: [] });

    const dry = await undo({ apply: false });
    expect(dry.status).toBe(200);
    expect(dry.json()).toEqual({
      plan_id: planId,
      direction: 'undo',
      state: 'previewed',
      steps: ['s2', 's1'],
      files: [
        { path: 'a.txt', status: 'modified', added: 2, removed: 2 },
        { path: 'new.txt', status: 'deleted', added: 0, removed: 1 },
      ],
      text: [
        `Undo would take the changes of s2, s1 (plan ${planId}) back out of your working tree:`,
        '  modified  a.txt    +2 −2',
        '  deleted   new.txt  +0 −1',
        'Your other changes (other files, other lines) stay; HEAD, the index and branches are not touched.',
        'Nothing has changed yet: press Take these changes back.',
      ].join('\n'),
    });
    untouched(dir, store, planId);

    const done = await undo({ apply: true });
    expect(done.status).toBe(200);
    expect(done.json()).toMatchObject({ state: 'applied', steps: ['s2', 's1'], text: expect.stringContaining('To put them back: Redo… on this page.') });
    expect(read(dir, 'a.txt')).toBe(aText(20));
    expect(existsSync(join(dir, 'new.txt'))).toBe(false);
    expect(read(dir, 'mine.txt')).toBe('my own uncommitted edit\n');
    expect(store.load(planId).undos).toMatchObject([{ kind: 'undo', steps: ['s2', 's1'], channel: 'viewer' }]);

    const after = await view();
    expect(after.rewind).toMatchObject({ undo: false, redo: true, records: [{ kind: 'undo', steps: ['s2', 's1'], channel: 'viewer', files: [{ path: 'a.txt' }, { path: 'new.txt' }] }] });
    expect(after.rewind.landed.map((l: { step: string; undone_at: string }) => [l.step, l.undone_at])).toEqual([
      ['s1', after.rewind.records[0].at],
      ['s2', after.rewind.records[0].at],
    ]);
    expect(after.steps.map((s: { taken_back_at?: string }) => s.taken_back_at)).toEqual([after.rewind.records[0].at, after.rewind.records[0].at]);
    expect(after.graph.nodes.map((n: { taken_back?: boolean }) => n.taken_back)).toEqual([true, true]);
    expect(after.timeline.items.at(-1)).toMatchObject({ kind: 'rewind', text: 'undo: took the changes of s2, s1 back out of your working tree (2 files, in the plan viewer)' });
    const diff = (await get(`/api/plans/${planId}/diff`)).json();
    expect(diff.sections.map((s: { undone_at: string; lines: unknown[]; title: string }) => [s.undone_at, s.lines, s.title])).toEqual([
      [after.rewind.records[0].at, [], expect.stringContaining('taken back by an undo at')],
      [after.rewind.records[0].at, [], expect.stringContaining('taken back by an undo at')],
    ]);

    const again = await undo({ apply: false });
    expect([again.status, again.json()]).toEqual([409, { error: `Nothing of plan ${planId} is in your working tree to take back: its changes were taken back already, or are not there any more.`, refusal: 'nothing_to_undo' }]);

    const redoDry = await redo({ apply: false });
    expect(redoDry.json()).toMatchObject({ direction: 'redo', state: 'previewed', text: expect.stringContaining('Nothing has changed yet: press Put these changes back.') });
    expect(read(dir, 'a.txt')).toBe(aText(20));
    const redone = await redo({ apply: true });
    expect([redone.status, redone.json().state]).toEqual([200, 'applied']);
    expect(read(dir, 'a.txt')).toBe(landedTree);
    expect(store.load(planId).undos!.map((u) => [u.kind, u.channel])).toEqual([
      ['undo', 'viewer'],
      ['redo', 'viewer'],
    ]);
    expect((await view()).rewind).toMatchObject({ undo: true, redo: false });
  });

  it("should refuse with 409 and the rewind chart's words: a step without its dependent, lines changed since, a plan not ended", async () => {
    const { dir, store, planId, undo } = await viewer();
    const alone = await undo({ apply: true, steps: ['s1'] });
    expect(alone.status).toBe(409);
    expect(alone.json()).toEqual({
      error: [
        's1 cannot be taken back without s2: s2 depends on it and landed after it.',
        `Nothing changed. To take them back together: the plan's Undo… (every step), or orca undo ${planId} --step s1 --step s2.`,
      ].join('\n'),
      refusal: 'dependents',
    });
    expect((await undo({ apply: false, steps: ['s9'] })).json()).toEqual({ error: `Plan ${planId} has no step s9; its steps: s1, s2.`, refusal: 'unknown_steps' });
    untouched(dir, store, planId);

    writeFileSync(join(dir, 'a.txt'), aText(20, { 5: 'the user was here', 15: 's2 was here' }));
    const changed = await undo({ apply: true });
    expect(changed.status).toBe(409);
    expect(changed.json().refusal).toBe('changed_since');
    expect(changed.json().error).toMatch(/^Nothing changed: these lines changed since the plan landed them, so the undo does not apply cleanly:\n {2}a\.txt:2 \(step s1\): /);
    expect(read(dir, 'new.txt')).toBe('added by s1\n');
    expect(store.load(planId).undos).toBeUndefined();

    const running = await viewer({ end: false });
    const notEnded = await running.undo({ apply: true });
    expect([notEnded.status, notEnded.json().refusal]).toEqual([409, 'plan_not_ended']);
    expect(notEnded.json().error).toMatch(/^Plan plan_\w+ is in progress: an undo takes back a plan that has ended/);
    expect((await running.view()).rewind).toMatchObject({ ended: false, undo: false, redo: false });
  });

  it('should answer a malformed request with 400 and what was expected, changing nothing', async () => {
    const { dir, store, planId, undo, redo } = await viewer();
    const answers = [
      [await undo('{ not json'), /^Expected a JSON object \{"apply": false, "steps"\?: \["s1"\]\}/],
      [await undo({}), /^Expected "apply" to be true \(do it\) or false/],
      [await undo({ apply: 'yes' }), /^Expected "apply" to be true/],
      [await undo({ apply: true, steps: 's1' }), /^Expected "steps" to be a list of at most 100 step ids/],
      [await undo({ apply: true, steps: ['x'.repeat(101)] }), /^Expected "steps" to be a list/],
      [await undo({ apply: true, step: 's1' }), /Got a field it does not take: "step"\.$/],
      [await undo([true]), /^Expected a JSON object/],
      [await redo({ apply: true, steps: ['s1'] }), /^A redo takes no "steps": it puts back what the last undo took\.$/],
    ] as const;
    for (const [res, message] of answers) expect([res.status, res.json().error]).toEqual([400, expect.stringMatching(message)]);
    expect((await undo({ apply: true, steps: ['z'.repeat(20_000)] })).status).toBe(413);
    untouched(dir, store, planId);
    const noPlan = await request(`http://127.0.0.1:${ui!.port}/api/plans/plan_nope/undo`, { method: 'POST', headers: { cookie: `orca_ui_${ui!.port}=${new URL(ui!.url).searchParams.get('token')}`, origin: `http://127.0.0.1:${ui!.port}`, 'content-type': 'application/json' }, body: '{"apply":true}' });
    expect(noPlan.status).toBe(404);
  });

  it('should leave a plan file that does not load where it is (the viewer never quarantines)', async () => {
    const { store, planId, undo } = await viewer();
    writeFileSync(store.pathOf(planId), '{ not json');
    const res = await undo({ apply: true });
    expect([res.status, res.json().error]).toEqual([422, expect.stringMatching(new RegExp(`^Plan ${planId} cannot be undone: not valid JSON`))]);
    expect(existsSync(store.pathOf(planId))).toBe(true);
  });

  it('should refuse an undo or a diff without the token, from another origin, or as a form, changing nothing', async () => {
    const { dir, store, planId, undo, redo, get } = await viewer();
    const base = `http://127.0.0.1:${ui!.port}`;
    const bare = await request(`${base}/api/plans/${planId}/undo`, { method: 'POST', headers: { origin: base, 'content-type': 'application/json' }, body: '{"apply":true}' });
    expect([bare.status, bare.json().error]).toEqual([401, expect.stringMatching(/^Expected the token of the URL the plan viewer printed/)]);
    expect((await request(`${base}/api/plans/${planId}/diff`)).status).toBe(401);
    expect((await request(`${base}/api/plans/${planId}/undo?token=wrong`, { method: 'POST', headers: { origin: base, 'content-type': 'application/json' }, body: '{"apply":true}' })).status).toBe(401);
    expect((await undo({ apply: true }, { origin: 'http://attacker.example' })).status).toBe(403);
    expect((await undo({ apply: true }, { origin: '' })).status).toBe(403);
    expect((await redo({ apply: true }, { host: `attacker.example:${ui!.port}` })).status).toBe(403);
    expect((await undo('apply=true', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await get(`/api/plans/${planId}/undo`)).status).toBe(404);
    untouched(dir, store, planId);
  });
});
