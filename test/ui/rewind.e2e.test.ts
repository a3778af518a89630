// What a plan landed, on its page in Chromium, and taken back from there: a real git project with an
// ended two-step plan whose patches are recorded (test/rewind/fixtures.ts), the viewer's server from
// src/ (no OpenCode server), the page's files as they ship.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { launchBrowser, outputDir, screenshot } from '../support/browser.js';
import { aText, endedPlan } from '../rewind/fixtures.js';
import { read, tempDirs } from '../workspace/repo.js';

describe('what a plan landed, on its page', () => {
  const dirs = tempDirs();
  let ended: Awaited<ReturnType<typeof endedPlan>>;
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ended = await endedPlan(dirs);
    [ui, browser] = await Promise.all([
      startUiServer({ project: ended.dir, pollMs: 100, rewind: { store: ended.store, repo: ended.repo, include: [] } }),
      launchBrowser(),
    ]);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(8_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    dirs.cleanup();
  });

  const landed = '[data-testid="landed"]';
  const colourOf = (selector: string, property: 'color' | 'backgroundColor') =>
    page
      .locator(selector)
      .first()
      // Runs in the page: the browser's getComputedStyle, which Node's types do not declare.
      .evaluate((el, p) => (globalThis as typeof globalThis & { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el)[p], property);

  it("shows each step's files, and its patch coloured when opened", async () => {
    await page.goto(`${ui.url}#/plan/${ended.planId}`);
    await page.waitForSelector(`${landed} .landed-step[data-step="s1"] li[data-path="new.txt"] >> text=+1 −0`);
    expect(await page.locator(`${landed} .landed-step`).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')))).toEqual(['s1', 's2']);
    // Closed until asked for.
    expect(await page.locator(`${landed} details.patch[data-step="s1"] .dl`).count()).toBe(0);

    await page.click(`${landed} details.patch[data-step="s1"] summary`);
    const added = `${landed} details.patch[data-step="s1"] .dl-added >> text=+s1 was here`;
    await page.waitForSelector(added);
    await page.waitForSelector(`${landed} details.patch[data-step="s1"] .dl-removed >> text=-line 5`);
    await page.waitForSelector(`${landed} details.patch[data-step="s1"] .dl-hunk >> text=/^@@ -2,7 \\+2,7 @@/`);
    expect(await colourOf(added, 'backgroundColor')).toBe('rgb(230, 255, 236)');
    expect(await colourOf(`${landed} details.patch[data-step="s1"] .dl-removed`, 'backgroundColor')).toBe('rgb(255, 235, 233)');
    // One line per line of the patch, as text.
    const patch = readFileSync(ended.store.load(ended.planId).steps[0]!.diff!.landed!.patch_path!, 'utf8');
    expect(await page.locator(`${landed} details.patch[data-step="s1"] pre.diff`).textContent()).toBe(patch);
    await screenshot(page, join(outputDir('ui'), 'landed-diff.png'));
    expect(pageErrors).toEqual([]);
  });

  it('asks the server what Undo… would change, changes nothing until confirmed, then takes it back and shows the record', async () => {
    await page.click(`${landed} .landed-top button[data-rewind="undo"]`);
    const preview = '[data-testid="rewind-preview"]';
    await page.waitForSelector(`${preview} >> text=Undo would take the changes of s2, s1 (plan ${ended.planId}) back out of your working tree:`);
    expect(await page.locator(`${preview} pre`).textContent()).toContain('  modified  a.txt    +2 −2\n  deleted   new.txt  +0 −1\n');
    expect(await page.locator(`${preview} pre`).textContent()).toContain('Nothing has changed yet: press Take these changes back.');
    expect(read(ended.dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here', 15: 's2 was here' }));
    await screenshot(page, join(outputDir('ui'), 'undo-dry-run.png'));

    await page.click(`${preview} button[data-confirm="undo"]`);
    await page.waitForSelector(`[data-testid="rewind-message"] >> text=Took the changes of s2, s1 (plan ${ended.planId}) back out of your working tree: 2 files.`);
    expect(read(ended.dir, 'a.txt')).toBe(aText(20));
    expect(existsSync(join(ended.dir, 'new.txt'))).toBe(false);
    expect(read(ended.dir, 'mine.txt')).toBe('my own uncommitted edit\n');

    // The plan file changed: the page follows it, with the undo recorded and the steps marked.
    await page.waitForSelector('[data-testid="undos"] tr[data-kind="undo"] >> text=plan viewer');
    expect(await page.locator('[data-testid="undos"] tbody tr').textContent()).toContain('s2, s1');
    await page.waitForSelector(`${landed} .landed-step[data-step="s1"].taken-back >> text=Taken back by an undo at`);
    await page.waitForSelector('[data-graph="current"] g.node.taken-back[data-step="s2"] text.meta >> text=taken back');
    await page.waitForSelector('.timeline .tl-rewind >> text=undo: took the changes of s2, s1 back out of your working tree (2 files, in the plan viewer)');
    expect(await colourOf('.timeline .tl-rewind .text', 'color')).toBe('rgb(109, 40, 217)');
    expect(await page.locator(`${landed} button[data-rewind="undo"]`).count()).toBe(0);
    await page.waitForSelector(`${landed} .landed-top button[data-rewind="redo"]`);
    await screenshot(page, join(outputDir('ui'), 'undo-recorded.png'));
    expect(pageErrors).toEqual([]);
  });

  it('puts it back with Redo…, and says a refusal in the rewind chart’s words', async () => {
    await page.click(`${landed} .landed-top button[data-rewind="redo"]`);
    await page.waitForSelector('[data-testid="rewind-preview"] >> text=Nothing has changed yet: press Put these changes back.');
    await page.click('[data-testid="rewind-preview"] button[data-confirm="redo"]');
    await page.waitForSelector('[data-testid="rewind-message"] >> text=They are in your working tree again, uncommitted.');
    expect(read(ended.dir, 'a.txt')).toBe(aText(20, { 5: 's1 was here', 15: 's2 was here' }));
    await page.waitForSelector('[data-testid="undos"] tr[data-kind="redo"]');

    await page.waitForSelector(`${landed} .landed-step[data-step="s1"] button[data-rewind="undo"]`);
    await page.click(`${landed} .landed-step[data-step="s1"] button[data-rewind="undo"]`);
    await page.waitForSelector('[data-testid="rewind-message"].error >> text=s1 cannot be taken back without s2: s2 depends on it and landed after it.');
    expect(await page.locator('[data-testid="rewind-preview"]').count()).toBe(0);
    // The browser logs the refusal's answer (409) as a failed resource: that one, and nothing else.
    expect(pageErrors).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)']);
  });
});
