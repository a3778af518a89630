// The page in Chromium over plan files written here: what the real server does not write yet
// (usage, revisions) and what a click on a step shows. Fast: no OpenCode server.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { launchBrowser, outputDir, screenshot } from '../support/browser.js';
import { failedStepPlan, tempProject, type Project } from '../cli/fixtures.js';

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
    [ui, browser] = await Promise.all([startUiServer({ project: project.dir, pollMs: 100 }), launchBrowser()]);
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
    await page.waitForSelector('.plan-head >> text=3 Orca turns · 7 model calls · 15k in · 2.1k out · 0 reasoning · 9.0k cache read · 0 cache write · $0.0421');
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
    await page.waitForSelector('.timeline >> text=→ touched');
    expect(await page.inputValue('.gates textarea')).toBe('half a thought');
  });
});
