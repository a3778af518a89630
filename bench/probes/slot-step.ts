// Backs docs/development.md, "Profiling": at 20,000 files a step's workspace work (git) takes about
// 210 ms in a warm slot against 60–90 ms in the shared tree, run under OpenCode's Bun.
// What one step costs in git, in process, on a repository of FILES committed files (20,000 unless
// set; packed by `git gc` as a user's repository is, PACK=0 leaves the objects loose): a step in a
// warm worktree slot (KIND=worktree: open, measure, land) or in the shared tree (KIND=shared: open,
// capture, diff), ROUNDS times (5), each with its wall and the git processes it ran (trace2: when
// each began after the first, and its own time). No OpenCode server and no model: Orca's workspace
// ports alone, as the step chart calls them.
//
// Run it under OpenCode's own runtime, where the plugin runs: Node spawns a process in about 14 ms
// on this machine, OpenCode's Bun in about 4 (measured 2026-11-29: /bin/true 14.2 against 3.7 ms), so
// under `npx tsx` the gaps between git processes read three times too long:
//   BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode bench/probes/slot-step.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StepWorkspace } from '../../src/machines/types.js';
import { createWorkspaces } from '../../src/workspace/workspace-ports.js';
import { workspaceSupport } from '../../src/workspace/support.js';

const files = Number(process.env.FILES ?? 20_000);
const rounds = Number(process.env.ROUNDS ?? 5);
const kind = process.env.KIND === 'shared' ? 'shared' : 'worktree';
const base = mkdtempSync(join(tmpdir(), 'orca-slot-step-'));
const dir = join(base, 'repo');
mkdirSync(dir);
const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@orca.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@orca.invalid' };
const git = (...args: string[]) => execFileSync('git', ['-c', 'gc.auto=0', ...args], { cwd: dir, env, stdio: 'ignore' });
git('init', '-q');
for (let folder = 0; folder < Math.ceil(files / 100); folder++) {
  mkdirSync(join(dir, 'src', `d${folder}`), { recursive: true });
  for (let file = 0; file < 100 && folder * 100 + file < files; file++) writeFileSync(join(dir, 'src', `d${folder}`, `f${file}.ts`), `export const x${folder}_${file} = ${folder * file};\n`);
}
git('add', '-A');
git('commit', '-q', '-m', `${files} files`);
if (process.env.PACK !== '0') git('gc', '-q');

const support = await workspaceSupport(dir, { dataHome: join(base, 'data') });
const workspaces = createWorkspaces({
  directory: dir,
  support,
  patchPathOf: (planId, stepId, attempt) => join(base, `${planId}.${stepId}.${attempt}.patch`),
  include: [],
  setupTimeoutMs: 60_000,
  keepSlots: 1,
  log: () => {},
});
const traces = join(base, 'trace');
mkdirSync(traces);
const signal = new AbortController().signal;
const planId = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';

/** `run`'s result, and a line: its wall, then each git process it ran (`verb@ms after the first began+its own ms`). */
async function traced<T>(label: string, run: () => Promise<T>): Promise<{ result: T; line: string }> {
  const before = new Set(readdirSync(traces));
  process.env.GIT_TRACE2_EVENT = traces;
  const start = performance.now();
  const result = await run();
  const wall = performance.now() - start;
  delete process.env.GIT_TRACE2_EVENT;
  const processes = readdirSync(traces)
    .filter((name) => !before.has(name))
    .map((name) => {
      const events = readFileSync(join(traces, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; time?: string; argv?: string[]; t_abs?: number });
      const began = events.find((e) => e.event === 'start');
      const ended = events.find((e) => e.event === 'exit');
      const verb = began?.argv?.slice(1).find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? '?';
      return { verb, at: Date.parse(began?.time ?? ''), ms: Math.round((ended?.t_abs ?? 0) * 1000) };
    })
    .sort((a, b) => a.at - b.at);
  const first = processes[0]?.at ?? 0;
  return { result, line: `  ${label} ${wall.toFixed(0)} ms: ${processes.map((p) => `${p.verb}@${p.at - first}+${p.ms}`).join(' ')}` };
}

console.log(`One step at ${files.toLocaleString('en-US')} files (${process.env.PACK === '0' ? 'loose objects' : 'packed'}), ${kind === 'worktree' ? 'in a worktree slot' : 'in the shared tree'}:`);
for (let round = 0; round < rounds; round++) {
  const stepId = `s${round}`;
  const started = performance.now();
  const lines: string[] = [];
  const open = await traced('open', () => workspaces.openWorkspace({ idempotencyKey: `${planId}:${stepId}:1`, planId, stepId, attempt: 1, kind }, signal));
  lines.push(open.line);
  const workspace: StepWorkspace = open.result;
  // The step's work: one committed file changed where it works.
  writeFileSync(join(workspace.dir, 'src', 'd1', `f${round % 100}.ts`), `changed in round ${round}\n`);
  const step = { planId, stepId, attempt: 1, workspace, declared: [] };
  if (kind === 'shared') {
    const kept = await traced('capture', () => workspaces.captureStep({ ...step, sessionId: null }, signal));
    lines.push(kept.line, (await traced('diff', () => workspaces.measureStep({ ...step, result: kept.result.result }, signal))).line);
  } else {
    const measured = await traced('measure', () => workspaces.measureStep(step, signal));
    lines.push(measured.line, (await traced('land', () => workspaces.mergeStep({ ...step, idempotencyKey: `${planId}:${stepId}:1:merge`, measured: measured.result }, signal))).line);
  }
  console.log(`step ${round}${round === 0 && kind === 'worktree' ? ' (the slot is made)' : ''}: ${(performance.now() - started).toFixed(0)} ms\n${lines.join('\n')}`);
}
rmSync(base, { recursive: true, force: true });
