// Backs docs/worktrees.md, "What it costs" (a slot's OpenCode instance costs seconds of CPU once, at its
// first turn) and docs/development.md, "How the e2e servers are started" (an instance's first prompt: 1
// to 3 s of CPU with OpenCode's models.dev catalog, 0.3 to 0.7 s with an empty one).
// CPU of the opencode server (its threads, from /proc) at each point of an instance's life: the server
// listening, the project's instance booted, its first and second prompt, then the same for another
// repository and for a worktree of the project, twice. Tells what a new directory costs (each step slot
// is one) from what a prompt costs. env: PLUGIN=1 loads Orca; CATALOG=empty starts the server with an
// empty models.dev catalog (what the e2e files do) instead of OpenCode's bundled one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpencode } from '../../test/support/opencode-server.js';
import { startScriptedModel } from '../../test/support/scripted-model.js';
import { builtPluginUrl } from '../../test/e2e/team.js';
/** utime + stime of a process in ms (USER_HZ 100). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const model = await startScriptedModel({ respond: () => ({ text: 'ok' }) });
const server = await startOpencode({ modelUrl: model.url, plugins: process.env.PLUGIN === '1' ? [builtPluginUrl] : [], boot: false, modelCatalog: process.env.CATALOG === 'empty' ? 'empty' : 'opencode' });
const pid = Number(readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(' ').at(-1));
let last = 0;
let lastAt = Date.now();
const mark = (l: string) => { const c = cpuOf(pid); console.log(`${l.padEnd(30)} +${c - last} ms CPU, ${Date.now() - lastAt} ms`); last = c; lastAt = Date.now(); };
mark('listening');
async function prompt(directory: string, l: string) {
  await (await server.fetch(`/agent?directory=${encodeURIComponent(directory)}`)).text();
  mark(`${l} boot`);
  for (const n of [1, 2]) {
    const s = await server.client.session.create({ directory, title: 'p' });
    await server.client.session.prompt({ sessionID: s.data!.id, directory, agent: 'build', parts: [{ type: 'text', text: 'hi' }] });
    mark(`${l} prompt ${n}`);
  }
}
await prompt(server.projectDir, 'project');
for (const k of [1, 2]) {
  const dir = join(server.homeDir, `other${k}`);
  mkdirSync(dir); writeFileSync(join(dir, 'a.txt'), 'a');
  execFileSync('git', ['init', '-q'], { cwd: dir }); execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'i', '--allow-empty'], { cwd: dir });
  await prompt(dir, `repo ${k}`);
  const wt = join(server.homeDir, `wt${k}`);
  execFileSync('git', ['worktree', 'add', '-q', '--detach', wt], { cwd: server.projectDir });
  await prompt(wt, `worktree ${k}`);
}
await server.stop(); await model.close();
