// Backs docs/development.md, "How the e2e servers are started": with the C library's allocator a server
// starts on less CPU and a prompt spends less time in the kernel (test/support/opencode-server.ts, `allocator`).
// CPU of a bare opencode server (no plugin, empty catalog) to start and per prompt (a new session and
// one "hi" to the scripted model), with Bun's allocator and with the C library's (`Malloc=1`, what the
// e2e servers run with: see `allocator` in test/support/opencode-server.ts), alternately ROUNDS times
// (default 3): the machine's noise shows as the spread between rounds of the same allocator.
// With TRACE=strace or TRACE=perf, the prompts of each run are traced too (`strace -c -f` into
// /tmp/allocator-<allocator>.strace, `perf record -g` into /tmp/allocator-<allocator>.perf).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startOpencode } from '../../test/support/opencode-server.js';
import { startScriptedModel } from '../../test/support/scripted-model.js';

/** user and system ms of a process (USER_HZ 100). */
const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 };
};
const PROMPTS = 30;
const model = await startScriptedModel({ respond: () => ({ text: 'ok' }) });

async function run(allocator: 'bun' | 'system') {
  const server = await startOpencode({ modelUrl: model.url, plugins: [], boot: true, allocator });
  try {
    const pid = Number(readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(' ').at(-1));
    const started = cpuOf(pid);
    const prompt = async () => {
      const s = await server.client.session.create({ title: 'p' });
      await server.client.session.prompt({ sessionID: s.data!.id, agent: 'build', parts: [{ type: 'text', text: 'hi' }] });
    };
    for (let i = 0; i < 3; i++) await prompt(); // the first prompts compile what the later ones run
    const trace = process.env.TRACE;
    const tracer = trace
      ? spawn(trace, trace === 'strace' ? ['-c', '-f', '-p', String(pid), '-o', `/tmp/allocator-${allocator}.strace`] : ['record', '-g', '-p', String(pid), '-o', `/tmp/allocator-${allocator}.perf`], { stdio: 'ignore' })
      : undefined;
    if (tracer) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = cpuOf(pid);
    for (let i = 0; i < PROMPTS; i++) await prompt();
    const after = cpuOf(pid);
    if (tracer) {
      tracer.kill('SIGINT');
      await new Promise((resolve) => tracer.once('exit', resolve));
    }
    const per = (k: 'user' | 'sys') => ((after[k] - before[k]) / PROMPTS).toFixed(0);
    console.log(`${allocator.padEnd(6)} start ${started.user + started.sys} ms CPU; per prompt: user ${per('user')} ms, sys ${per('sys')} ms`);
  } finally {
    await server.stop();
  }
}

for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  await run('bun');
  await run('system');
}
await model.close();
