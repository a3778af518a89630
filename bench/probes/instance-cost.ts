// What a new directory costs OpenCode: a prompt in the project, in a fresh git worktree, and in the
// same worktree again (a warm slot), with and without OpenCode's snapshot, plain OpenCode (no plugin).
// FILES=n committed files in the project (default 200). Prints prompt sent → model request and the server's RSS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpencode } from '../../test/support/opencode-server.js';
import { startScriptedModel } from '../../test/support/scripted-model.js';
import { builtPluginUrl } from '../../test/e2e/team.js';

const files = Number(process.env.FILES ?? 200);
const snapshot = process.env.SNAPSHOT !== '0';
let arrived = 0;
const model = await startScriptedModel({ respond: () => { arrived = performance.now(); return { text: 'ok' }; } });
const plugins = process.env.PLUGIN === '1' ? [builtPluginUrl] : [];
const server = await startOpencode({ modelUrl: model.url, plugins, config: { snapshot }, modelCatalog: process.env.CATALOG === 'empty' ? 'empty' : 'opencode', ...(process.env.LOG ? { logLevel: 'DEBUG' as const } : {}) });
const git = (args: string[], cwd = server.projectDir) => execFileSync('git', args, { cwd, stdio: 'pipe' }).toString();
for (let i = 0; i < files; i++) {
  const dir = join(server.projectDir, 'src', `m${i % 50}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
}
git(['add', '-A']);
git(['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'files']);
const rss = () => {
  const pids = execFileSync('pgrep', ['-f', 'opencode-linux-x64/bin/opencode']).toString().trim().split('\n');
  return pids.reduce((sum, pid) => sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0), 0) / 1024;
};
async function prompt(directory: string, label: string) {
  const t0 = performance.now();
  const created = await server.client.session.create({ directory, title: label });
  const t1 = performance.now();
  await server.client.session.prompt({ sessionID: created.data!.id, directory, agent: 'build', parts: [{ type: 'text', text: 'hi' }] });
  const t2 = performance.now();
  console.log(`${label.padEnd(28)} create ${(t1 - t0).toFixed(0).padStart(5)} ms, sent→model ${(arrived - t1).toFixed(0).padStart(5)} ms, whole ${(t2 - t0).toFixed(0).padStart(5)} ms, rss ${rss().toFixed(0)} MiB`);
}
try {
  console.log(`files ${files}, snapshot ${snapshot}, rss at start ${rss().toFixed(0)} MiB`);
  await prompt(server.projectDir, 'project');
  await prompt(server.projectDir, 'project again');
  for (const n of [1, 2, 3]) {
    const wt = join(server.homeDir, `wt${n}`);
    git(['worktree', 'add', '-q', '--detach', wt]);
    if (process.env.BOOT) {
      const t = performance.now();
      const res = await server.fetch(`/${process.env.BOOT}?directory=${encodeURIComponent(wt)}`);
      await res.text();
      console.log(`boot via /${process.env.BOOT}: ${res.status} ${(performance.now() - t).toFixed(0)} ms`);
      if (process.env.NOREPLY) {
        const t2 = performance.now();
        const warm = await server.client.session.create({ directory: wt, title: 'warm' });
        await server.client.session.prompt({ sessionID: warm.data!.id, directory: wt, noReply: true, parts: [{ type: 'text', text: 'warm' }] });
        console.log(`noReply prompt: ${(performance.now() - t2).toFixed(0)} ms`);
      }
      await new Promise((r) => setTimeout(r, Number(process.env.BOOT_WAIT ?? 0)));
    }
    await prompt(wt, `worktree ${n} (new)`);
    await prompt(wt, `worktree ${n} (warm)`);
  }
} finally {
  if (process.env.LOG) (await import('node:fs')).writeFileSync(process.env.LOG, server.logs());
  await server.stop();
  await model.close();
}
