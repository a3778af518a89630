// The inspector inside the real plugin: OpenCode's embedded Bun, opted in through the plugin
// option. Needs `npm run build` (the plugin is loaded from dist/) and the wiring of plugin.ts.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectPlan } from '../../src/inspect/inspect-command.js';
import { builtPluginUrl, orcaRelay, jsonReply, team } from '../e2e/team.js';
import { freshPort } from '../support/fresh-port.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model.js';
import { connectPage, definitionOf } from './page-client.js';

const PLAN = {
  type: 'plan',
  goal: 'greet',
  steps: [
    { id: 'impl', agent: 'coder', description: 'write greet()' },
    { id: 'test', agent: 'tester', description: 'test greet()', depends_on: ['impl'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};
const success = (summary: string) => ({ type: 'success', summary, artifacts: [], key_findings: [] });

describe('the inspector in the plugin', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('should show the live plan actors of a run, and replay the plan from disk afterwards', async () => {
    const port = await freshPort();
    model = await startScriptedModel({
      respond: team({
        orca: orcaRelay('greet'),
        planner: () => jsonReply(PLAN),
        coder: () => jsonReply(success('greet() written')),
        tester: () => jsonReply(success('greet() tested')),
      }),
    });
    server = await startOpencode({
      server: 'shared',
      modelUrl: model.url,
      config: { plugin: [[builtPluginUrl, { inspect: { port }, hitl: { auto: { approval: 'approve' } } }]] },
      requestTimeoutMs: 120_000,
    });
    // The plugin logs through the server's API, asynchronously: the line may land after start-up returns.
    await waitFor(() => server.logs().includes(`Stately inspector: open http://127.0.0.1:${port}/`), { description: 'the inspector URL in the server log' });
    const page = await connectPage(`ws://127.0.0.1:${port}`);
    const session = await server.client.session.create({ title: 'inspect' });
    await server.client.session.prompt({ sessionID: session.data!.id, agent: 'orca', parts: [{ type: 'text', text: 'greet' }] });

    const plan = await page.next((m) => m.type === '@xstate.actor' && m.name === 'plan', 'the plan registration');
    expect(definitionOf(plan).id).toBe('plan');
    await page.next((m) => m.type === '@xstate.actor' && m.name === 'step:test', 'the second step registration');
    await page.next(
      (m) => m.type === '@xstate.snapshot' && m.sessionId === plan.sessionId && m.snapshot?.value === 'completed',
      'the completed plan',
    );
    page.close();

    const planId = readdirSync(join(server.projectDir, '.opencode', 'plans')).find((f) => f.endsWith('.json'))!.slice(0, -'.json'.length);
    const lines: string[] = [];
    expect(await inspectPlan(planId, { dir: server.projectDir, once: true, print: (l) => lines.push(l) })).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/→ in_progress\.running → completed$/), 'The replay ends in the saved state completed.']);
  }, 180_000);
});
