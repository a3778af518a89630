// `npx tsx scripts/relay/canned.ts <relay dir>`: answers a relay run mechanically, to check the loop
// without a person: it reads only the relay's request and question files (as a person would) and
// writes canned replies for the demo project: orca relays to the planner, the planner proposes one
// coder step, the coder reads src/stats.js, fixes mean(), runs the tests and reports success, a
// reviewer passes; every question is answered with its "Approve" option (else option 1), every
// permission with "once". Runs until killed. Not a model: a smoke test of scripts/relay.ts.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { relayDirs } from './files.js';

const dirs = relayDirs(process.argv[2] ?? fail('usage: tsx scripts/relay/canned.ts <relay dir>'));

for (;;) {
  for (const file of readdirSync(dirs.requests).sort()) {
    const [, n, agent] = /^(\d+)-(.+)\.md$/.exec(file) ?? [];
    if (!n || !agent || existsSync(join(dirs.replies, `${n}.md`))) continue;
    write(join(dirs.replies, `${n}.md`), replyFor(agent, readFileSync(join(dirs.requests, file), 'utf8')));
  }
  for (const file of readdirSync(dirs.questions).sort()) {
    const n = /^(\d+)\.md$/.exec(file)?.[1];
    if (!n || existsSync(join(dirs.answers, `${n}.md`))) continue;
    write(join(dirs.answers, `${n}.md`), answerFor(readFileSync(join(dirs.questions, file), 'utf8')));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
}

function replyFor(agent: string, request: string): string {
  const results = (request.match(/^### \d+ · tool result · /gm) ?? []).length;
  const cwd = /Working directory: (\S+)/.exec(request)?.[1] ?? '.';
  const file = `${cwd}/src/stats.js`;
  switch (agent) {
    case 'orca':
      return results === 0 ? tool('orca_ask_planner', { message: firstUserText(request) }) : 'The plan ran; see the plan file.';
    case 'planner':
      return JSON.stringify({
        type: 'plan',
        goal: 'Fix mean() in src/stats.js so the tests pass',
        steps: [{ id: 'fix', agent: 'coder', description: 'Fix the divisor in mean() in src/stats.js and run node --test', files: ['src/stats.js'] }],
        assumptions: ['node --test runs the tests'],
        risks: ['none'],
        verification: ['node --test passes'],
      });
    case 'coder':
      if (results === 0) return `Reading the file.\n${tool('read', { filePath: file })}`;
      if (results === 1) return tool('edit', { filePath: file, oldString: 'values.length - 1', newString: 'values.length' });
      if (results === 2) return tool('bash', { command: 'node --test', description: 'Run the tests' });
      return `Fixed.\n\n${JSON.stringify({ type: 'success', summary: 'mean() divides by the count; node --test passes', artifacts: ['src/stats.js'], key_findings: [] })}`;
    case 'reviewer':
      return JSON.stringify({ type: 'pass', summary: 'canned review: the change meets the criteria' });
    default:
      return 'OK';
  }
}

function answerFor(question: string): string {
  if (question.startsWith('# Permission')) return 'once\n';
  const sections = question.split(/^## \d+\..*$/m).slice(1);
  return sections
    .map((section) => {
      const labels = [...section.matchAll(/^\[\d+\] (.+?)(?: — .*)?$/gm)].map((m) => m[1]!);
      return labels.find((l) => /approve/i.test(l)) ?? labels[0] ?? 'yes';
    })
    .join('\n') + '\n';
}

function tool(name: string, args: unknown): string {
  return `TOOL ${name}\n${JSON.stringify(args, null, 2)}\n`;
}

/** The text of the first user message: the fenced block under `### 1 · user`. */
function firstUserText(request: string): string {
  const match = /^### 1 · user\n\n(`{3,})\n([\s\S]*?)\n\1$/m.exec(request);
  return match?.[2] ?? 'Fix the failing test';
}

// Written elsewhere and renamed in, so the relay never reads half a file.
function write(path: string, content: string): void {
  writeFileSync(`${path}.tmp`, content);
  renameSync(`${path}.tmp`, path);
  console.log(`canned: wrote ${path}`);
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}
