// Throwaway copies of the project with experimental switches, for the probes in this folder.
// Nothing under src/ or dist/ of the project is touched: the copies live in a temp dir.
//
// distCopy(): dist/ with (a) ORCA_TRACE=<file>: a JSONL trace of every OpenCode call the plugin
//   makes, every plan-file save and every event-loop stall > 15 ms inside the opencode process;
//   (b) while the file <dir>/EVERY_LOOKUP exists, every dispatch makes the crash-recovery
//   look-ups (session.children before session.create, session.messages before the prompt), as
//   before they were limited to side effects in flight in a restored plan (PlanHost.isRecovering).
// srcCopy(): src/ + bench/ + test/ with env switches EXP_STOPCHILD=1 (stop a step's actor when
//   its completion is recorded), EXP_COMPACT=1 (plan file without indentation), EXP_NOFSYNC=1.
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');

function patch(file: string, from: string, to: string) {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`experiment patch does not apply to ${file}: ${from.slice(0, 80)}`);
  writeFileSync(file, text.replace(from, to));
}

function fresh(name: string) {
  const dir = join(tmpdir(), name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  return dir;
}

export function distCopy(name = 'orca-bench-dist-copy') {
  const dir = fresh(name);
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  const d = (p: string) => join(dir, 'dist', p);
  writeFileSync(
    d('opencode/sessions.js'),
    readFileSync(d('opencode/sessions.js'), 'utf8') +
      `
// ---- bench experiment: timing trace ----
import { appendFileSync as __append } from 'node:fs';
const __trace = process.env.ORCA_TRACE;
export function tracedSessionsFromClient(client, directory) {
    const raw = sessionsFromClient(client, directory);
    if (!__trace) return raw;
    const out = {};
    for (const [k, fn] of Object.entries(raw)) {
        out[k] = async (...args) => {
            const t0 = Date.now();
            try { return await fn(...args); }
            finally { __append(__trace, JSON.stringify({ op: k, t0, t1: Date.now() }) + '\\n'); }
        };
    }
    return out;
}
if (__trace) {
    let last = Date.now();
    setInterval(() => { const now = Date.now(); const lag = now - last - 10; if (lag > 15) __append(__trace, JSON.stringify({ op: 'lag', t0: last, t1: now, lag }) + '\\n'); last = now; }, 10).unref();
}
`,
  );
  patch(d('orca.js'), "import { sessionsFromClient } from './opencode/sessions.js';", "import { tracedSessionsFromClient as sessionsFromClient } from './opencode/sessions.js';");
  patch(
    d('persistence/plan-store.js'),
    'writeFileAtomic(this.pathOf(file.plan_id), `${JSON.stringify(file, null, 2)}\\n`);',
    'const __t0 = Date.now();\n        writeFileAtomic(this.pathOf(file.plan_id), `${JSON.stringify(file, null, 2)}\\n`);\n        if (process.env.ORCA_TRACE) appendFileSync(process.env.ORCA_TRACE, JSON.stringify({ op: \'save\', t0: __t0, t1: Date.now() }) + \'\\n\');',
  );
  patch(d('persistence/plan-store.js'), 'import { existsSync,', 'import { appendFileSync, existsSync,');
  const flag = join(dir, 'EVERY_LOOKUP');
  const orca = d('orca.js');
  writeFileSync(orca, `import { existsSync as __exists } from 'node:fs';\nconst __every = () => __exists(${JSON.stringify(flag)});\n` + readFileSync(orca, 'utf8'));
  patch(orca, 'isRecovering: (idempotencyKey) => host.isRecovering(idempotencyKey),', 'isRecovering: (idempotencyKey) => __every() || host.isRecovering(idempotencyKey),');
  return { dir, pluginUrl: pathToFileURL(d('index.js')).href, everyLookupFlag: flag };
}

export function srcCopy(name = 'orca-bench-src-copy') {
  const dir = fresh(name);
  for (const p of ['src', 'bench', 'test', 'tsconfig.json']) cpSync(join(root, p), join(dir, p), { recursive: true });
  patch(join(dir, 'src/persistence/atomic-write.ts'), '    fsyncSync(fd);', '    if (!process.env.EXP_NOFSYNC) fsyncSync(fd);');
  patch(
    join(dir, 'src/persistence/plan-store.ts'),
    'writeFileAtomic(this.pathOf(file.plan_id), `${JSON.stringify(file, null, 2)}\\n`);',
    'writeFileAtomic(this.pathOf(file.plan_id), `${process.env.EXP_COMPACT ? JSON.stringify(file) : JSON.stringify(file, null, 2)}\\n`);',
  );
  const machine = join(dir, 'src/machines/plan.machine.ts');
  patch(
    machine,
    '    markCompleted: assign({',
    "    stopCompletedStep: enqueueActions(({ enqueue }, p: { stepId: string }) => {\n      if (process.env.EXP_STOPCHILD) enqueue.stopChild(stepActorId(p.stepId));\n    }),\n    markCompleted: assign({",
  );
  patch(
    machine,
    "{ actions: [{ type: 'markCompleted', params: ({ event }) => event }, 'startReadySteps'] },",
    "{ actions: [{ type: 'markCompleted', params: ({ event }) => event }, { type: 'stopCompletedStep', params: ({ event }) => event }, 'startReadySteps'] },",
  );
  return { dir };
}
