// Samples OpenCode's JavaScript (BUN_INSPECT's ScriptProfiler, as opencode-profile.ts) during the first
// prompt in a second directory of a warm server: what a new instance (a step's worktree slot) costs
// beyond a prompt. Prints inclusive and self samples (≈ ms) by function, file, line and column of
// OpenCode's bundled chunks; the chunks' sources are plain text inside the binary. It found the
// models.dev catalog built per instance (OpenCode's provider list: about 2.5 s of CPU each).
// env: CATALOG=empty for an empty catalog.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { freshPort } from '../../test/support/fresh-port.js';
import { startOpencode } from '../../test/support/opencode-server.js';
import { startScriptedModel } from '../../test/support/scripted-model.js';
interface Frame { name: string; url: string; line: number; column: number }
const port = await freshPort();
const model = await startScriptedModel({ respond: () => ({ text: 'ok' }) });
const server = await startOpencode({ modelUrl: model.url, plugins: [], boot: true, modelCatalog: process.env.CATALOG === 'empty' ? 'empty' : 'opencode', env: { BUN_INSPECT: `ws://127.0.0.1:${port}/p` } });
const ws = new WebSocket(`ws://127.0.0.1:${port}/p`);
await new Promise<void>((res, rej) => { ws.once('open', () => res()); ws.once('error', rej); });
let id = 0; const pending = new Map<number, (v: unknown) => void>(); const events: any[] = [];
ws.on('message', (d) => { const m = JSON.parse(String(d)); if (m.id !== undefined) pending.get(m.id)?.(m.result ?? m.error); else events.push(m); });
const send = (method: string, params: Record<string, unknown> = {}) => new Promise<any>((r) => { const n = ++id; pending.set(n, r); ws.send(JSON.stringify({ id: n, method, params })); });
async function prompt(directory: string) {
  const s = await server.client.session.create({ directory, title: 'p' });
  await server.client.session.prompt({ sessionID: s.data!.id, directory, agent: 'build', parts: [{ type: 'text', text: 'hi' }] });
}
await prompt(server.projectDir);
const dir = join(server.homeDir, 'other');
mkdirSync(dir); writeFileSync(join(dir, 'a.txt'), 'a');
execFileSync('git', ['init', '-q'], { cwd: dir }); execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'i', '--allow-empty'], { cwd: dir });
await (await server.fetch(`/agent?directory=${encodeURIComponent(dir)}`)).text();
await send('ScriptProfiler.startTracking', { includeSamples: true });
await prompt(dir);
await send('ScriptProfiler.stopTracking');
for (let i = 0; i < 100 && !events.some((e) => e.method === 'ScriptProfiler.trackingComplete'); i++) await new Promise((r) => setTimeout(r, 100));
const done = events.find((e) => e.method === 'ScriptProfiler.trackingComplete');
const key = (f: Frame) => `${f.name || '(anon)'} ${f.url.replace('/$bunfs/root/', '').slice(-60)}:${f.line}:${f.column}`;
const incl = new Map<string, number>(); const self = new Map<string, number>(); let n = 0;
for (const t of done.params.samples.stackTraces as { stackFrames: Frame[] }[]) {
  n++;
  if (t.stackFrames[0]) self.set(key(t.stackFrames[0]), (self.get(key(t.stackFrames[0])) ?? 0) + 1);
  for (const k of new Set(t.stackFrames.map(key))) incl.set(k, (incl.get(k) ?? 0) + 1);
}
console.log('samples', n);
console.log('--- inclusive'); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 70)) console.log(v, k);
console.log('--- self'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(v, k);
ws.close(); await server.stop(); await model.close();
