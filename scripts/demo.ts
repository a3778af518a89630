// `npm run demo`: a full Orca plan on the real OpenCode server, with the bundled scripted model.
// No API key, no network: the model is a script on 127.0.0.1, OpenCode is node_modules' binary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpencode } from '../test/support/opencode-server.js';
import { lastToolResult, startScriptedModel } from '../test/support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaRelay, structured, team } from '../test/e2e/team.js';
import { labels, nextQuestion, reply } from '../test/e2e/hitl-answers.js';

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
const REVIEW_ERROR = {
  id: 'ERROR-001',
  category: 'Logic',
  file: 'src/greet.ts',
  line: 2,
  issue: 'An empty name gives "Hello, !"',
  found: 'return `Hello, ${name}!`',
  expected: 'a greeting for an empty name',
  fix: 'Return "Hello, stranger!" when name is empty',
};
const done = (summary: string, artifacts: string[]) => structured({ type: 'success', summary, artifacts, key_findings: [] });

const say = (s = '') => console.log(s);
const model = await startScriptedModel({
  respond: team({
    orca: orcaRelay(REQUEST),
    planner: () => structured(PLAN),
    coder: (req) =>
      /# Fix required/.test(req.lastUser)
        ? done('greet(name) now returns "Hello, stranger!" for an empty name', ['src/greet.ts'])
        : done('greet(name) returns "Hello, <name>!" in src/greet.ts', ['src/greet.ts']),
    // The quality gate (seed 003): the reviewer fails the first version once, the coder fixes it.
    reviewer: (_req, turn) =>
      turn === 1
        ? structured({ type: 'fail', summary: 'one edge case', errors: [REVIEW_ERROR] })
        : structured({ type: 'pass', summary: 'greet() meets the step, empty names included' }),
    'document-writer': () => done('README.md has a greet() section with an example', ['README.md']),
    tester: (req) =>
      done(`test/greet.test.ts checks greet("Ada"); it was told: ${/Summary: ([^\n]+)/.exec(req.lastUser)?.[1] ?? '?'}`, ['test/greet.test.ts']),
  }),
});
// No auto policy: the plan waits for a human, and the demo answers OpenCode's question dialog
// through the HTTP API exactly as a person would in the TUI.
const server = await startOpencode({ modelUrl: model.url, plugins: [builtPluginUrl], requestTimeoutMs: 120_000 });
try {
  say(`OpenCode ${server.url} (real binary), scripted model ${model.url}`);
  say(`\nUser → Orca: ${REQUEST}`);
  const session = (await server.client.session.create({ title: 'Orca demo' })).data!;
  const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: REQUEST }] });
  const dialog = await nextQuestion(server, /^Goal: /);
  say(`\nThe question dialog asks the human:\n  ${dialog.questions[0]!.question.replace(/\n/g, '\n  ')}`);
  say(`  options: ${labels(dialog).join(' / ')}`);
  say('Human → Approve');
  await reply(server, dialog, [['Approve'], ['No guidance']]);
  await turn;
  const orcaLast = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
  const result = JSON.parse(lastToolResult(orcaLast)!.content);
  const plansDir = join(server.projectDir, '.opencode', 'plans');
  const file = JSON.parse(readFileSync(join(plansDir, `${result.plan_id}.json`), 'utf8'));

  say(`\nDependencies: ${file.steps.map((s: { id: string; depends_on: string[] }) => `${s.id} ← ${s.depends_on.join(', ') || '(none)'}`).join('; ')}`);
  for (const d of file.decisions) say(`\nDecision at the ${d.gate} gate: ${d.option} (channel: ${d.channel}${d.text ? `, ${d.text}` : ''})`);
  say('\nSteps:');
  for (const s of file.steps) {
    const review = s.review_round ? `, ${s.review_round} review round(s)` : '';
    say(`  ${s.id}: ${s.status} after ${s.attempts} attempt(s)${review} — ${s.output?.summary}`);
  }
  const reviews = model.chatRequests().filter((r) => agentOf(r) === 'reviewer').length;
  say(`\nQuality gate: ${reviews} reviewer turn(s); round 1 failed impl with ${REVIEW_ERROR.id} ${REVIEW_ERROR.category} (${REVIEW_ERROR.file}:${REVIEW_ERROR.line}: ${REVIEW_ERROR.issue}), the coder fixed it, round 2 passed.`);
  say(`\norca_ask_planner returned: ${result.status}`);
  const gates = file.decisions.map((d: { gate: string; option: string }) => `${d.gate}: ${d.option}`).join(', ');
  say(`Path through the plan statechart: drafting → pending_approval → (${gates}) → in_progress → ${file.status}`);
  say(`Plan file: ${join(plansDir, `${file.plan_id}.json`)} (state "${file.state}"; a temporary project, removed when the demo exits)`);
  say(`Model requests: ${model.chatRequests().length} (${[...new Set(model.chatRequests().map(agentOf))].join(', ')})`);
  if (result.status !== 'completed') throw new Error(`the demo plan ended ${result.status}`);
} finally {
  await server.stop();
  await model.close();
}
