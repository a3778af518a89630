// `tsx scripts/tui-sandbox.ts [dir]`: a hermetic project for trying Orca in the real OpenCode TUI
// (e.g. in tmux at 80x24), with the scripted model of the demo. It writes `<dir>/run-tui.sh`, which
// starts the interactive `opencode` from node_modules in the project with the built plugin, and
// keeps the scripted model running until Ctrl-C. Ask the orca agent anything; a message with
// "steps:N" gets an N-step plan, "fail:ID" makes step ID fail, "slow:MS" makes each step take MS,
// "think:MS" makes the planner take MS, "long:1" gives the plan realistic ~400-character steps,
// "errlen:N" makes a failing step's error N characters long. After Request Changes a "long:1" plan comes
// back revised: step 3 reworded and an 11th step added. "write:1" makes each step write its file
// (src/<step>.ts), so the outcome, /orca-diff and /orca-undo have changes to show.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOpencodeConfig } from '../test/support/opencode-config.js';
import { createSandbox, hermeticEnv, opencodeBinary } from '../test/support/opencode-sandbox.js';
import { lastToolResult, startScriptedModel, type RecordedRequest } from '../test/support/scripted-model.js';
import { agentOf, builtPluginUrl, jsonReply, orcaResumeRelay, team, userTurns } from '../test/e2e/team.js';
import { longPlanProposal, longStep } from '../test/support/long-plan.js';

const root = resolve(process.argv[2] ?? mkdtempSync(join(tmpdir(), 'orca-tui-')));
const sandbox = createSandbox({ homeDir: join(root, 'home'), projectDir: join(root, 'project') });

/** The first user message of the conversation, where the options of the scenario are. */
const request = (req: RecordedRequest) => JSON.stringify(req.messages);
const option = (req: RecordedRequest, name: string) => new RegExp(`${name}:([\\w.-]+)`).exec(request(req))?.[1];

const AGENTS = ['coder', 'tester', 'document-writer', 'researcher', 'architect'] as const;

function plan(req: RecordedRequest) {
  const n = Number(option(req, 'steps') ?? 3);
  const steps = Array.from({ length: n }, (_, i) => ({
    id: `s${i + 1}`,
    agent: AGENTS[i % AGENTS.length]!,
    description: `Step ${i + 1} of the plan: change module ${i + 1} and keep its tests green`,
    ...(i > 0 ? { depends_on: [`s${i}`] } : {}),
    files: [`src/module${i + 1}.ts`],
  }));
  if (option(req, 'long')) {
    const proposal = longPlanProposal(n);
    // The request's options (fail:, errlen:, slow:), from every message of the planner's session, reach the specialists' prompts through the goal.
    const options = [...new Set(request(req).match(/\b(?:fail|errlen|slow):[\w.-]+/g) ?? [])];
    if (options.length) proposal.goal = `${proposal.goal} (${options.join(' ')})`;
    // After Request Changes (a second user turn), a revision: step 3 reworded, a step added after the last.
    if (userTurns(req) > 1 && proposal.steps.length > 3) {
      proposal.steps[2] = { ...proposal.steps[2]!, description: `${proposal.steps[2]!.description} Keep the old message as a hint.` };
      proposal.steps.push(longStep(n));
    }
    return { ...jsonReply({ type: 'plan', ...proposal }), delayMs: Number(option(req, 'think') ?? 0) };
  }
  const proposal = {
    type: 'plan',
    // The planner's prompt opens with Orca's header line (`Orca · plan_… · planner`); the goal keeps
    // the whole request, so its options (slow:, fail:) reach the specialists' prompts too.
    goal: `A ${n}-step plan for: ${req.lastUser.replace(/^Orca · [^\n]*\n+/, '').slice(0, 200)}`,
    steps,
    assumptions: ['The project is TypeScript'],
    risks: ['Scripted: nothing real changes'],
    verification: ['npm test passes'],
  };
  return { ...jsonReply(proposal), delayMs: Number(option(req, 'think') ?? 0) };
}

const specialist = (req: RecordedRequest) => {
  const step = /Your step: ([\w.-]+)/.exec(req.lastUser)?.[1] ?? '?';
  const delayMs = Number(option(req, 'slow') ?? 1500);
  const errlen = Number(option(req, 'errlen') ?? 0);
  const error = `scripted failure of ${step}${errlen ? `: ${'the linter found a problem in src/stats.js line 8; '.repeat(Math.ceil(errlen / 50))}`.slice(0, errlen) : ''}`;
  if (option(req, 'fail') === step) return { ...jsonReply({ type: 'failure', error }), delayMs };
  const dir = /Working directory: (.+)/.exec(req.system)?.[1]?.trim();
  if (option(req, 'write') && dir && req.tools.includes('write') && !lastToolResult(req)) {
    return { toolCalls: [{ name: 'write', arguments: { filePath: join(dir, 'src', `${step}.ts`), content: `export const ${step} = ${JSON.stringify(`written by ${step}`)};\n` } }], delayMs };
  }
  return { ...jsonReply({ type: 'success', summary: `${agentOf(req)} did ${step}`, artifacts: [`src/${step}.ts`], key_findings: [] }), delayMs };
};

const model = await startScriptedModel({
  respond: team({
    // Orca relays the message, then says what the tool returned (a real model would word it better).
    orca: (req) => {
      const result = lastToolResult(req);
      if (!result) return orcaResumeRelay(req);
      const { status, plan_id, reason } = JSON.parse(result.content) as Record<string, string>;
      return { text: `Plan ${plan_id}: ${status}${reason ? ` (${reason})` : ''}` };
    },
    planner: plan,
    ...Object.fromEntries(AGENTS.map((a) => [a, specialist])),
    // The plan's verifying turn once every step landed (its own hidden agent): it reports the checks hold.
    verifier: specialist,
  }),
});

const config = buildOpencodeConfig({ modelUrl: model.url, plugins: [builtPluginUrl] });
const env = hermeticEnv(sandbox.homeDir, {
  OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
  TERM: process.env.TERM ?? 'xterm-256color',
  COLORTERM: 'truecolor',
});
const exports = Object.entries(env)
  .filter(([, v]) => v !== undefined)
  .map(([k, v]) => `export ${k}=${shellQuote(v!)}`)
  .join('\n');
const script = join(root, 'run-tui.sh');
writeFileSync(script, `#!/bin/sh\n${exports}\ncd ${shellQuote(sandbox.projectDir)}\nexec ${shellQuote(opencodeBinary())} "$@"\n`, { mode: 0o755 });
const cli = join(root, 'orca.sh');
writeFileSync(cli, `#!/bin/sh\nexec node ${shellQuote(join(process.cwd(), 'dist', 'cli', 'main.js'))} --dir ${shellQuote(sandbox.projectDir)} "$@"\n`, { mode: 0o755 });
console.log(`project ${sandbox.projectDir}\nTUI     ${script}\nCLI     ${cli}\nmodel   ${model.url}\nready`);

function shellQuote(value: string) {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const stop = async () => {
  await model.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
