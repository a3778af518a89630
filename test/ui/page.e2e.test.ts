// The page in Chromium over plan files written here: what the real server does not write yet
// (usage, revisions) and what a click on a step shows. Fast: no OpenCode server.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { launchBrowser, outputDir, screenshot } from '../support/browser.js';
import { approvalPlan, failedStepPlan, runningPlan, tempProject, type Project } from '../cli/fixtures.js';
import { turn } from '../support/turns.js';
import { twoInterruptedPlan } from '../support/parallel-plans.js';
import { inboxDir } from '../../src/persistence/inbox.js';

describe('the plan page', () => {
  let project: Project;
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let planId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    project = tempProject();
    const host = project.host();
    planId = failedStepPlan(host, 1);
    await host.dispose();
    const path = project.store.pathOf(planId);
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    raw.usage = { turns: 3, model_calls: 7, input: 15_400, output: 2_100, reasoning: 0, cache_read: 9_000, cache_write: 0, cost: 0.0421 };
    raw.steps[0].usage = { turns: 2, input: 9_000, output: 1_500, reasoning: 0, cache_read: 6_000, cache_write: 0, cost: 0.0312 };
    raw.revisions = [
      {
        goal: 'first idea',
        steps: [{ id: 's1', agent: 'coder', description: 'first idea', depends_on: [] }, { id: 'old', agent: 'tester', description: 'gone', depends_on: ['s1'] }],
        assumptions: [],
        risks: [],
        verification: [],
      },
    ];
    writeFileSync(path, JSON.stringify(raw));
    [ui, browser] = await Promise.all([startUiServer({ project: project.dir, pollMs: 100, rewind: { store: project.store, repo: null, include: [] } }), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    await project?.remove();
  });

  it('shows the cost in the list and on the plan, a step’s usage, and an earlier version beside the graph', async () => {
    await page.goto(ui.url);

    await page.waitForSelector(`tr[data-plan="${planId}"] >> text=$0.0421`);
    await page.click(`tr[data-plan="${planId}"] a`);
    await page.waitForSelector('.plan-head >> text=3 Orca turns · 7 model calls · 15k in · 2.1k out · 0 reasoning · 9.0k cache read · 0 cache write · cache hits 37% · $0.0421');
    await page.click('[data-graph="current"] g.node[data-step="s1"]');
    await page.waitForSelector('.step[data-step="s1"] >> text=2 Orca turns · model calls not recorded · 9.0k in · 1.5k out');
    // Split by role as the plugin records it (the specialist's one turn); the rest of the patched total is not attributed.
    await page.waitForSelector('.step[data-step="s1"] [data-testid="usage-by-role"] >> text=Specialist:');
    await page.waitForSelector('.step[data-step="s1"] [data-testid="usage-by-role"] >> text=Not attributed: 1 Orca turn');
    await page.waitForSelector('.step[data-step="s1"] >> text=wrote hello.ts');

    await page.selectOption('.revision-picker select', '0');
    await page.waitForSelector('[data-graph="revision-0"] g.node[data-step="old"]');
    expect(await page.locator('[data-graph="revision-0"] figcaption').textContent()).toBe('version 1: first idea');
    expect(await page.locator('[data-graph="current"] g.node').count()).toBe(2);
    await screenshot(page, join(outputDir('ui'), 'plan-with-usage-and-revision.png'));
    expect(pageErrors).toEqual([]);
  });

  it('keeps the guidance being typed while the plan file changes under it', async () => {
    await page.fill('.gates textarea', 'half a thought');
    const path = project.store.journalPathOf(planId);
    writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), kind: 'state', actor: 'plan', state: 'touched' })}\n`, { flag: 'a' });
    await page.waitForSelector('.timeline >> text=plan → touched');
    expect(await page.inputValue('.gates textarea')).toBe('half a thought');
  });

  it('says the journal in words: turns, decisions, the planner; no JSON line, no internal names', async () => {
    const path = project.store.journalPathOf(planId);
    const usage = { turns: 1, model_calls: 3, input: 100, output: 10, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0.001 };
    writeFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), kind: 'turn', role: 'planner', agent: 'planner', session_id: 'ses_p', correction: false, usage })}\n`, { flag: 'a' });
    await page.waitForSelector('.timeline >> text=planner turn: 1 Orca turn, 3 model calls, 110 tokens, $0.001');
    const timeline = (await page.locator('.timeline').textContent())!;
    expect(timeline).toContain('plan created from "say hello"');
    expect(timeline).toContain('the planner proposed a plan of 2 step(s)');
    expect(timeline).toContain('Approve at the approval gate by slash command: "looks good"');
    expect(timeline).not.toContain('xstate.');
    expect(timeline).not.toContain('{"');
    expect(pageErrors).toEqual([]);
  });

  it('drops the confirmation of a decision once the next gate opens', async () => {
    await page.fill('.gates textarea', 'install vitest first');
    await page.click('button[data-choice="retry"][data-step="s2"]');
    await page.waitForSelector('.gates .message.ok >> text=queued');
    // A server resumes the plan: it applies the Retry from the inbox, and s2 fails again.
    const host = project.host();
    const s2 = () => host.open(planId).getSnapshot().children['step:s2'] as { send(event: unknown): void };
    s2().send({ type: 'xstate.done.actor.openSpecialistSession', output: { sessionId: 'ses_s2_2' } });
    s2().send({ type: 'xstate.done.actor.runSpecialist', output: turn({ type: 'failure', error: 'test 2 is red' }) });
    host.flush(planId);
    await host.dispose();
    await page.waitForSelector('[data-gate="deviation"] >> text=2 failed attempt(s); last error: test 2 is red');
    expect(await page.locator('.gates .message').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("takes a decision for each of two steps at the resume gate, one waiting to be applied not holding up the other's", async () => {
    const host = project.host();
    const two = twoInterruptedPlan(host);
    await host.dispose();
    await page.goto(`${ui.url}#/plan/${two}`);
    await page.waitForSelector('[data-gate="resume"][data-step="b"]');
    await page.click('button[data-choice="rerun"][data-step="a"]');
    await page.waitForSelector('.gates .message.ok >> text=queued');
    // a's decision waits in the inbox (no server holds the plan): a's buttons wait with it, b's do not.
    await page.waitForSelector('button[data-choice="rerun"][data-step="a"]:disabled');
    expect(await page.isEnabled('button[data-choice="rerun"][data-step="b"]')).toBe(true);
    await page.click('button[data-choice="rerun"][data-step="b"]');
    await page.waitForSelector('button[data-choice="rerun"][data-step="b"]:disabled');
    await page.waitForSelector('.gates .message.busy >> text=resume.rerun posted');
    const dir = inboxDir(project.store.dir, two);
    const posted = readdirSync(dir).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')).event);
    expect(posted.map((e: { type: string; stepId: string }) => `${e.type}:${e.stepId}`).sort()).toEqual(['resume.rerun:a', 'resume.rerun:b']);
    expect(pageErrors).toEqual([]);
  });

  it('says a running step that waits for a worktree slot waits, on its node and in its panel', async () => {
    const host = project.host();
    const waiting = runningPlan(host);
    await host.dispose();
    // As the step chart saves it while every slot is held (test/host/drive.test.ts has a step get there).
    const path = project.store.pathOf(waiting);
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    raw.snapshot.children['step:s1'].snapshot.value = { opening_workspace: 'waiting_for_slot' };
    writeFileSync(path, JSON.stringify(raw));
    await page.goto(`${ui.url}#/plan/${waiting}`);
    const node = '[data-graph="current"] g.node[data-step="s1"]';
    await page.waitForSelector(`${node} text.state >> text=running · waiting for slot`);
    await page.click(node);
    expect(await page.locator('.step[data-step="s1"] [data-testid="phase"]').textContent()).toBe('Now: opening workspace · waiting for slot');
    expect(pageErrors).toEqual([]);
  });

  it('shows only the error, and what to do, for a plan file that does not load', async () => {
    const host = project.host();
    const broken = approvalPlan(host);
    await host.dispose();
    writeFileSync(project.store.pathOf(broken), '{"plan_id": "not a plan"}');
    await page.goto(`${ui.url}#/plan/${broken}`);
    await page.waitForSelector(`.problem >> text=Plan ${broken} cannot be shown`);
    await page.waitForSelector('text=moved aside by orca doctor');
    expect(await page.locator('#main .card:visible').count()).toBe(0);
    await screenshot(page, join(outputDir('ui'), 'plan-that-does-not-load.png'));
  });
});
