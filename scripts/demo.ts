// `npm run demo`: a full Orca plan on the real OpenCode server, with the bundled scripted model.
// No API key, no network: the model is a script on 127.0.0.1, OpenCode is node_modules' binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpencode } from '../test/support/opencode-server.js';
import { lastToolResult, startScriptedModel } from '../test/support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaRelay, structured, team } from '../test/e2e/team.js';

const REQUEST = 'Add a greet(name) function to the project, document it and test it.';
const PLAN = {
  type: 'plan',
  goal: 'Add greet(name) with documentation and a test',
  steps: [
    { id: 'impl', agent: 'coder', description: 'Create src/greet.ts exporting greet(name) that returns "Hello, <name>!"', files: ['src/greet.ts'] },
    { id: 'docs', agent: 'document-writer', description: 'Document greet() in README.md', files: ['README.md'] },
    { id: 'test', agent: 'tester', description: 'Write test/greet.test.ts covering greet()', depends_on: ['impl', 'docs'] },
  ],
  assumptions: ['The project is TypeScript'],
  risks: ['None: new files only'],
  verification: ['test/greet.test.ts passes'],
};
const done = (summary: string, artifacts: string[]) => structured({ type: 'success', summary, artifacts, key_findings: [] });

const say = (s = '') => console.log(s);
const model = await startScriptedModel({
  respond: team({
    orca: orcaRelay(REQUEST),
    planner: () => structured(PLAN),
    coder: () => done('greet(name) returns "Hello, <name>!" in src/greet.ts', ['src/greet.ts']),
    'document-writer': () => done('README.md has a greet() section with an example', ['README.md']),
    tester: (req) =>
      done(`test/greet.test.ts checks greet("Ada"); it was told: ${/Summary: ([^\n]+)/.exec(req.lastUser)?.[1] ?? '?'}`, ['test/greet.test.ts']),
  }),
});
// The approval comes from an explicit, logged auto policy until the interactive channels land.
const server = await startOpencode({
  modelUrl: model.url,
  config: { plugin: [[builtPluginUrl, { hitl: { auto: { approval: 'approve' } } }]] },
  requestTimeoutMs: 120_000,
});
try {
  say(`OpenCode ${server.url} (real binary), scripted model ${model.url}`);
  say(`\nUser → Orca: ${REQUEST}`);
  const session = (await server.client.session.create({ title: 'Orca demo' })).data!;
  await server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: REQUEST }] });
  const orcaLast = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
  const result = JSON.parse(lastToolResult(orcaLast)!.content);
  const plansDir = join(server.projectDir, '.opencode', 'plans');
  const file = JSON.parse(readFileSync(join(plansDir, `${result.plan_id}.json`), 'utf8'));

  say(`\nPlanner → plan ${file.plan_id}: ${file.goal}`);
  for (const s of file.steps) say(`  ${s.id} (${s.agent})${s.depends_on.length ? ` after ${s.depends_on.join(', ')}` : ''}: ${s.description}`);
  for (const d of file.decisions) say(`\nDecision at the ${d.gate} gate: ${d.option} (channel: ${d.channel}${d.text ? `, ${d.text}` : ''})`);
  say('\nSteps:');
  for (const s of file.steps) say(`  ${s.id}: ${s.status} after ${s.attempts} attempt(s) — ${s.output?.summary}`);
  say(`\norca_ask_planner returned: ${result.status}`);
  say(`Statechart path: drafting → pending_approval → approved → in_progress → ${file.status}`);
  say(`Plan file: ${join(plansDir, `${file.plan_id}.json`)} (state "${file.state}")`);
  say(`Model requests: ${model.chatRequests().length} (${[...new Set(model.chatRequests().map(agentOf))].join(', ')})`);
  if (result.status !== 'completed') throw new Error(`the demo plan ended ${result.status}`);
} finally {
  await server.stop();
  await model.close();
}
