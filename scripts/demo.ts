// `npm run demo`: a full Orca plan on the real OpenCode server, with the bundled scripted model.
// No API key, no network: the model is a script on 127.0.0.1, OpenCode is node_modules' binary.
// `npm run demo -- --keep` keeps the temporary project so `orca show` and `orca ui` can open it.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startOpencode } from '../test/support/opencode-server.js';
import { lastToolResult, startScriptedModel } from '../test/support/scripted-model.js';
import { agentOf, builtPluginUrl, orcaRelay, jsonReply, team } from '../test/e2e/team.js';
import { labels, nextQuestion, reply } from '../test/e2e/hitl-answers.js';
import { readJournal, type JournalEntry } from '../src/persistence/journal.js';
import { duration, stepDurations } from '../src/cli/history.js';

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
const done = (summary: string, artifacts: string[]) => jsonReply({ type: 'success', summary, artifacts, key_findings: [] });

type Event = { type: string; stepId?: string; kind?: string; round?: number };
const events = (journal: JournalEntry[]) => journal.flatMap((e) => (e.kind === 'event' ? [e.event as Event] : []));

/** A step's review and fix rounds as the journal recorded them: a fix round means its review round failed. */
function qualityGate(journal: JournalEntry[], stepId: string, agent: string, completed: boolean): string | null {
  const turns = events(journal).filter((e) => e.type === 'step.turn' && e.stepId === stepId);
  const reviews = turns.filter((t) => t.kind === 'review');
  if (reviews.length === 0) return null;
  const fixed = new Set(turns.filter((t) => t.kind === 'fix').map((t) => t.round));
  const verdicts = reviews.map((r) =>
    fixed.has(r.round) ? `review round ${r.round} failed, the ${agent} fixed it` : `review round ${r.round} ${completed ? 'passed' : 'did not pass'}`,
  );
  return `${verdicts.join('; ')} (${reviews.length} reviewer turn(s))`;
}

/** The states the plan's own chart entered, in order, repeats folded. */
function planPath(journal: JournalEntry[]): string[] {
  const states = journal.flatMap((e) => (e.kind === 'state' && e.actor === 'plan' ? [e.state] : []));
  return states.filter((state, i) => state !== states[i - 1]);
}

/** Specialist, reviewer and fixer turns from the journal's step reports. */
function turnCounts(journal: JournalEntry[]): string {
  const all = events(journal);
  const dispatched = all.filter((e) => e.type === 'step.dispatched').length;
  const reviews = all.filter((e) => e.type === 'step.turn' && e.kind === 'review').length;
  const fixes = all.filter((e) => e.type === 'step.turn' && e.kind === 'fix').length;
  return `${dispatched} specialist, ${reviews} reviewer, ${fixes} fixer`;
}

/** The two commands to try on a kept project, runnable as printed from the repository root. */
function keptLines(project: string, planId: string | undefined): string[] {
  const dir = shellWord(project);
  const show = planId ? `show ${planId} --dir ${dir}` : `plans --dir ${dir}`;
  return [
    `\nKept the demo project: ${project}`,
    'Try next, from this repository\'s root (npx orca … works the same):',
    `  node dist/cli/main.js ${show}`,
    `  node dist/cli/main.js ui --dir ${dir}`,
    `Remove it with: rm -rf ${shellWord(dirname(project))}`,
  ];
}

/** A path as one shell word: bare when it is plain, single-quoted otherwise. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function demoOptions(): { keep: boolean } {
  try {
    const { values } = parseArgs({ options: { keep: { type: 'boolean' } }, allowPositionals: false, strict: true });
    return { keep: values.keep ?? false };
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--x'. To specify a positional argument starting with a '-' …"
    console.error(`demo: ${(error as Error).message.split('. ')[0]} (the demo takes one option, --keep: npm run demo -- --keep).`);
    process.exit(2);
  }
}

const { keep } = demoOptions();
const say = (s = '') => console.log(s);
const model = await startScriptedModel({
  respond: team({
    orca: orcaRelay(REQUEST),
    planner: () => jsonReply(PLAN),
    coder: (req) =>
      /# Fix required/.test(req.lastUser)
        ? done('greet(name) now returns "Hello, stranger!" for an empty name', ['src/greet.ts'])
        : done('greet(name) returns "Hello, <name>!" in src/greet.ts', ['src/greet.ts']),
    // The quality gate (seed 003): the reviewer fails the first version once, the coder fixes it.
    reviewer: (_req, turn) =>
      turn === 1
        ? jsonReply({ type: 'fail', summary: 'one edge case', errors: [REVIEW_ERROR] })
        : jsonReply({ type: 'pass', summary: 'greet() meets the step, empty names included' }),
    'document-writer': () => done('README.md has a greet() section with an example', ['README.md']),
    tester: (req) =>
      done(`test/greet.test.ts checks greet("Ada"); it was told: ${/Summary: ([^\n]+)/.exec(req.lastUser)?.[1] ?? '?'}`, ['test/greet.test.ts']),
  }),
});
// No auto policy: the plan waits for a human, and the demo answers OpenCode's question dialog
// through the HTTP API exactly as a person would in the TUI.
const server = await startOpencode({ modelUrl: model.url, plugins: [builtPluginUrl], requestTimeoutMs: 120_000, modelCatalog: 'opencode', allocator: 'bun' });
let planId: string | undefined;
try {
  say(`OpenCode ${server.url} (real binary), scripted model ${model.url}`);
  say(`\nUser → Orca: ${REQUEST}`); // what the demo types; everything after it comes from OpenCode, the plan file and its journal
  const session = (await server.client.session.create({ title: 'Orca demo' })).data!;
  const turn = server.client.session.prompt({ sessionID: session.id, agent: 'orca', parts: [{ type: 'text', text: REQUEST }] });
  const dialog = await nextQuestion(server, /^Goal: /, 60_000); // the planner's turn: on a loaded machine it took over 20 s
  say(`\nThe question dialog asks the human:\n  ${dialog.questions[0]!.question.replace(/\n/g, '\n  ')}`);
  say(`  options: ${labels(dialog).join(' / ')}`);
  say('Human → Approve');
  await reply(server, dialog, [['Approve'], ['No guidance']]);
  await turn;
  const orcaLast = model.chatRequests().filter((r) => agentOf(r) === 'orca').at(-1)!;
  const result = JSON.parse(lastToolResult(orcaLast)!.content);
  planId = result.plan_id;
  const plansDir = join(server.projectDir, '.opencode', 'plans');
  const file = JSON.parse(readFileSync(join(plansDir, `${result.plan_id}.json`), 'utf8'));

  say(`\nDependencies: ${file.steps.map((s: { id: string; depends_on: string[] }) => `${s.id} ← ${s.depends_on.join(', ') || '(none)'}`).join('; ')}`);
  for (const d of file.decisions) say(`\nDecision at the ${d.gate} gate: ${d.option} (channel: ${d.channel}${d.text ? `, ${d.text}` : ''})`);
  say('\nSteps:');
  const took = stepDurations(join(plansDir, `${file.plan_id}.journal.jsonl`));
  for (const s of file.steps) {
    const review = s.review_round ? `, ${s.review_round} review round(s)` : '';
    const time = took.has(s.id) ? `, took ${duration(took.get(s.id)!)}` : '';
    say(`  ${s.id}: ${s.status} after ${s.attempts} attempt(s)${review}${time} — ${s.output?.summary}`);
  }
  // The rest is read from the plan's journal: the quality gate's rounds and the path through the chart.
  const journal = readJournal(join(plansDir, `${file.plan_id}.journal.jsonl`));
  for (const s of file.steps) {
    const rounds = qualityGate(journal, s.id, s.agent, s.status === 'completed');
    if (rounds) say(`\nQuality gate (journal): ${s.id}: ${rounds}`);
  }
  say(`\norca_ask_planner returned: ${result.status}`);
  say(`Path through the plan statechart (journal): ${planPath(journal).join(' → ')}`);
  say(`Plan file: ${join(plansDir, `${file.plan_id}.json`)} (state "${file.state}"; a temporary project, ${keep ? 'kept' : 'removed'} when the demo exits)`);
  say(`Model turns Orca started (journal): ${turnCounts(journal)}`);
  if (result.status !== 'completed') throw new Error(`the demo plan ended ${result.status}`);
} finally {
  await server.stop({ keepFiles: keep });
  await model.close();
  if (keep) {
    // orca reads only the project's .opencode/; the throwaway OpenCode home beside it goes.
    rmSync(server.homeDir, { recursive: true, force: true });
    for (const line of keptLines(server.projectDir, planId)) say(line);
  } else {
    say('\nThe temporary project is removed now. To keep it and open the plan with orca show and orca ui: npm run demo -- --keep');
  }
}
