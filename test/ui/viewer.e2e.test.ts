// The plan viewer inside the real plugin (OpenCode's embedded Bun, opted in with the plugin option
// `ui`), driven in Debian's Chromium against plans the real server runs with a scripted model.
// Needs `npm run build`: the plugin and the page's files are loaded from dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctColours, launchBrowser, outputDir, pngSize, screenshot } from '../support/browser.js';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { lastToolResult, startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedReply } from '../support/scripted-model.js';
import { dismiss, nextQuestion, reply } from '../e2e/hitl-answers.js';
import { agentOf, builtPluginUrl, passingReview, scenarioOf, jsonReply } from '../e2e/team.js';
import { eventStream, request } from './http-client.js';

const ok = (summary: string, artifacts: string[] = []) => jsonReply({ type: 'success', summary, artifacts, key_findings: [`${summary}: done`] });
const STEPS = {
  approve: [
    { id: 'build', agent: 'coder', description: 'write greet()', files: ['src/greet.ts'] },
    { id: 'docs', agent: 'document-writer', description: 'document greet()', depends_on: ['build'], files: ['README.md'] },
    { id: 'check', agent: 'tester', description: 'test greet()', depends_on: ['build'] },
  ],
  retry: [
    { id: 'impl', agent: 'coder', description: 'implement the API', files: ['src/api.ts'] },
    { id: 'docs', agent: 'document-writer', description: 'document the API', depends_on: ['impl'], files: ['docs/api.md'] },
    { id: 'test', agent: 'tester', description: 'test the API', depends_on: ['impl'] },
  ],
};

let model: ScriptedModel;
let releaseBuild: () => void = () => {};
const buildReleased = new Promise<void>((resolve) => (releaseBuild = resolve));
const requestsOf = (agent: string, scenario: string) => model.chatRequests().filter((r) => agentOf(r) === agent && scenarioOf(r) === scenario);

async function respond(req: RecordedRequest): Promise<ScriptedReply> {
  const agent = agentOf(req);
  const scenario = scenarioOf(req) as keyof typeof STEPS;
  if (agent === 'orca') return lastToolResult(req) ? { text: 'relayed' } : { toolCalls: [{ name: 'orca_ask_planner', arguments: { message: req.lastUser } }] };
  if (agent === 'planner') return jsonReply({ type: 'plan', goal: `SCENARIO:${scenario} greet the world`, steps: STEPS[scenario], assumptions: ['node 20'], risks: [], verification: ['npm test'] });
  const review = passingReview(req);
  if (review) return review;
  // The first step of the approval scenario runs until the test lets it finish: the page must show it running first.
  if (scenario === 'approve' && agent === 'coder') await buildReleased;
  if (scenario === 'retry' && agent === 'tester' && requestsOf('tester', 'retry').length === 1) return jsonReply({ type: 'failure', error: 'the test runner is missing' });
  return ok(`${agent} did ${scenario}`, agent === 'coder' ? ['src/greet.ts'] : []);
}

describe('the plan viewer in a browser', () => {
  let server: OpencodeServer;
  let browser: Browser;
  let context: BrowserContext;
  let viewerUrl: string;
  /** Both plans are brought to their gates at once, while the browser starts: the server has turns to spare. */
  const plans = {} as Record<'approve' | 'retry', Promise<string>>;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({ respond });
    [server, browser] = await Promise.all([
      startOpencode({ server: 'shared', modelUrl: model.url, config: { plugin: [[builtPluginUrl, { ui: true }]] }, requestTimeoutMs: 60_000 }),
      launchBrowser(),
    ]);
    for (const scenario of ['approve', 'retry'] as const) {
      plans[scenario] = waitingPlan(scenario);
      plans[scenario].catch(() => {}); // awaited (and reported) by its test
    }
    viewerUrl = await waitFor(() => /Orca plan viewer: open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(server.logs())?.[1], { description: 'the viewer URL in the server log' });
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  }, 90_000);

  afterAll(async () => {
    releaseBuild();
    await browser?.close();
    await server?.stop();
    await model?.close();
  });

  // Upper bounds only (every wait ends as soon as its condition holds): CI machines are shared.
  const TURNS_MS = 60_000;

  /** Run an Orca turn to a gate nobody is asked about any more (the dialog dismissed): the plan waits there, held by the server. */
  async function waitingPlan(scenario: 'approve' | 'retry') {
    const session = (await server.client.session.create({ title: scenario })).data!;
    const done = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: `SCENARIO:${scenario}` }] });
    const approval = await nextQuestion(server, new RegExp(`SCENARIO:${scenario} greet`), TURNS_MS);
    if (scenario === 'approve') await dismiss(server, approval);
    else {
      await reply(server, approval, [['Approve'], ['No guidance']]);
      await dismiss(server, await nextQuestion(server, /the test runner is missing/, TURNS_MS));
    }
    await done;
    const result = JSON.parse(lastToolResult(requestsOf('orca', scenario).at(-1)!)!.content);
    expect(result).toMatchObject({ status: 'waiting', waiting_for: scenario === 'approve' ? 'approval' : 'deviation' });
    return result.plan_id as string;
  }

  const planFile = (planId: string) => JSON.parse(readFileSync(join(server.projectDir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
  /** A wait that did not end says what the page showed instead: its address, the graph's nodes, the plan's badge. */
  const orWhatItShows = <T>(page: Page, waiting: Promise<T>) =>
    waiting.catch(async (error: unknown) => {
      const shown = await (async () => {
        const nodes = await Promise.all((await page.locator('g.node').all()).map(async (n) => `${await n.getAttribute('data-step')}:${await n.getAttribute('data-status')}`));
        const badge = await page.locator('.plan-head .badge').first().getAttribute('data-status', { timeout: 1_000 }).catch(() => null);
        const text = (await page.locator('body').innerText({ timeout: 1_000 })).slice(0, 400);
        return { url: page.url(), nodes, badge, text };
      })().catch((failed: unknown) => ({ unreadable: String(failed) }));
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nthe page showed: ${JSON.stringify(shown)}`);
    });
  const node = (page: Page, step: string, status: string) => orWhatItShows(page, page.waitForSelector(`[data-graph="current"] g.node[data-step="${step}"][data-status="${status}"]`, { timeout: TURNS_MS }));
  const planStatus = (page: Page, status: string) => orWhatItShows(page, page.waitForSelector(`.plan-head .badge[data-status="${status}"]`, { timeout: TURNS_MS }));

  it('refuses a request without the token, or with a foreign Origin or Host', async () => {
    const { origin, searchParams } = new URL(viewerUrl);
    const token = searchParams.get('token')!;
    expect((await request(`${origin}/`)).status).toBe(401);
    expect((await request(`${origin}/api/plans`)).status).toBe(401);
    expect((await request(`${origin}/api/plans`, { headers: { 'x-orca-token': token } })).status).toBe(200);
    expect((await request(`${origin}/api/plans`, { headers: { 'x-orca-token': token, origin: 'http://attacker.example' } })).status).toBe(403);
    expect((await request(`${origin}/api/plans`, { headers: { 'x-orca-token': token, host: `attacker.example:${new URL(origin).port}` } })).status).toBe(403);
  });

  it('shows every step of a plan waiting for approval; Approve answers the gate and the steps turn running, then completed, without a reload', async () => {
    const planId = await plans.approve;
    const page = await context.newPage();
    await page.goto(viewerUrl);
    await page.waitForSelector(`tr[data-plan="${planId}"][data-status="pending_approval"]`);
    await page.click(`tr[data-plan="${planId}"] a`);
    for (const step of STEPS.approve) await node(page, step.id, 'pending');
    expect(await page.locator('[data-graph="current"] g.node').count()).toBe(3);
    expect(await page.locator('[data-gate="approval"] button').allTextContents()).toEqual(['Approve', 'Request Changes', 'Reject']);

    // Request Changes needs guidance: the page asks for it and posts nothing.
    await page.click('button[data-choice="changes"]');
    await page.waitForSelector('.gates .message.error >> text=needs your guidance');
    expect(planFile(planId).decisions).toEqual([]);

    await page.evaluate(() => ((globalThis as { sameDocument?: string }).sameDocument = 'yes'));
    const clicked = Date.now();
    await page.click('button[data-choice="approve"]');
    await page.waitForSelector('.gates .message.ok >> text=applied by the running server', { timeout: 10_000 });
    const appliedMs = Date.now() - clicked;
    expect(planFile(planId).decisions).toMatchObject([{ gate: 'approval', option: 'Approve', channel: 'cli' }]);
    await node(page, 'build', 'running');
    await page.waitForSelector('[data-graph="current"] g.node[data-step="build"] rect.pulse');
    releaseBuild();
    await node(page, 'build', 'completed');
    await node(page, 'docs', 'completed');
    await node(page, 'check', 'completed');
    await planStatus(page, 'completed');
    expect(await page.evaluate(() => (globalThis as { sameDocument?: string }).sameDocument)).toBe('yes');
    expect(await page.locator('[data-testid="gates"]').count()).toBe(1); // only the outcome message is left
    // The journal in the words of orca show: no JSON line, no xstate name.
    await page.waitForSelector('.timeline >> text=Approve at the approval gate with orca decide');
    const timeline = (await page.locator('.timeline').textContent())!;
    expect(timeline).toContain('the planner proposed a plan of 3 step(s)');
    expect(timeline).toMatch(/specialist \(coder\) turn for step build: 1 Orca turn/);
    expect(timeline).not.toContain('xstate.');
    expect(timeline).not.toContain('{"');
    console.log(`approve: the running server applied the decision ${appliedMs} ms after the click`);
    await page.close();
  }, 150_000);

  it('offers Retry for a failed step, shows its failure and what fed its prompt, and Retry runs it again; screenshot', async () => {
    const planId = await plans.retry;
    const page = await context.newPage();
    await page.goto(`${viewerUrl}#/plan/${planId}`);
    await node(page, 'test', 'awaiting_decision');
    for (const step of ['impl', 'docs']) await node(page, step, 'completed');
    await page.waitForSelector('.step[data-step="test"] .failures >> text=the test runner is missing');
    expect(await page.locator('[data-gate="deviation"][data-step="test"] button').allTextContents()).toEqual(['Retry', 'Replan', 'Stop']);
    expect(await page.locator('.step[data-step="test"]').textContent()).toContain('Outputs of: impl (coder)');

    const png = await screenshot(page, join(outputDir('ui'), 'plan-waiting-for-retry.png'));
    expect(pngSize(png)).toMatchObject({ width: 1400 });
    expect(pngSize(png).height).toBeGreaterThanOrEqual(1000);
    expect(await distinctColours(browser, png)).toBeGreaterThan(200);

    await page.fill('.gates textarea', 'install vitest first');
    await page.click('button[data-choice="retry"][data-step="test"]');
    await page.waitForSelector('.gates .message.ok >> text=applied by the running server', { timeout: 10_000 });
    await node(page, 'test', 'completed');
    await planStatus(page, 'completed');
    const second = requestsOf('tester', 'retry')[1]!;
    expect(second.lastUser).toContain('install vitest first');
    // The page sizes the prompt from the plan file exactly as the plugin rendered it for the model.
    await page.click('[data-graph="current"] g.node[data-step="test"]');
    const size = await page.locator('.step[data-step="test"] [data-testid="prompt-size"]').textContent();
    expect(size).toContain(`Prompt: ${second.lastUser.length.toLocaleString('en')} characters`);
    expect(planFile(planId).decisions.at(-1)).toMatchObject({ gate: 'deviation', option: 'Retry', channel: 'cli', step_id: 'test', text: 'install vitest first' });
    await page.close();
  }, 150_000);

  it('stops with the plugin: OpenCode disposing the instance closes the viewer, open event streams included; the next request brings both back', async () => {
    const { origin, searchParams } = new URL(viewerUrl);
    const stream = eventStream(`${origin}/api/events`, { 'x-orca-token': searchParams.get('token')! });
    try {
      await waitFor(() => stream.events.some((e) => e.event === 'ready'), { description: 'an open event stream' });
      expect((await server.fetch('/instance/dispose', { method: 'POST' })).status).toBe(200);
      await waitFor(
        async () => {
          try {
            await request(viewerUrl);
            return false;
          } catch {
            return true; // refused or reset: nothing listens any more
          }
        },
        { timeoutMs: 10_000, description: 'the viewer to stop listening' },
      );
    } finally {
      stream.stop();
    }
    // The next request boots the instance again, Orca and a viewer with it: its start-up ends with the viewer's toast.
    // (Waited for, so the teardown disposes an instance that has started: one disposed while it boots answers the
    // requests its plugins made meanwhile only after, by booting it yet again, and writing into the folder being removed.)
    const restarted = Date.now();
    expect((await server.fetch('/agent')).status).toBe(200);
    const toast = await server.events.next('tui.toast.show', (e) => e.at >= restarted && /^Plan viewer: http/.test(String(e.properties?.message)), { timeoutMs: 30_000 });
    const again = String(toast.properties.message).slice('Plan viewer: '.length);
    expect(again).not.toBe(viewerUrl);
    expect((await request(again)).status).toBe(200);
  });
});
