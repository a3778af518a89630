// `npm run relay -- [options]` (builds first) or `npx tsx scripts/relay.ts [options]`: the real
// `opencode serve` with the built plugin (dist/) on a hermetic project, whose only model is a relay:
// a person (or another model) answers as the model, seeing only the requests, never Orca's source.
//
//   --dir <dir>          work folder (default: a new /tmp/orca-relay-*); its layout:
//       requests/0001-<agent>.md   each model request as text: system prompt, messages, tools, tool_choice
//       replies/0001.md            YOUR reply as the model (see below); the relay waits for it
//       questions/0001.md          each question (or permission) dialog the server opens, with its options and
//                                  what the conversation shows above it (Orca's notes: the plan, an error, …)
//       answers/0001.md            YOUR answer: one line per question (label, number, or your own text)
//       project/  home/  plugin/ (a copy of dist/, so a rebuild meanwhile changes nothing)  server.log
//   --project <dir>      copy this project (node_modules left out; git-initialised if it is not a repo);
//                        default: a demo (src/stats.js whose mean() is wrong, `npm test` = node --test, failing)
//   --message <text>     send this to the agent in a new session, then exit when that turn ends and no plan
//                        of the project runs or waits for a decision any more (with Orca's defaults the
//                        turn ends at the first gate: its dialogs and notes come after), printing the plan
//                        files (project/.opencode/plans/*.json) and the session's last text
//   --message-file <f>   the same, the message read from a file
//   --agent <id>         the agent the message goes to (default: orca)
//   --keep               keep serving after the turn (or, without --message, until Ctrl-C: attach a TUI
//                        with `opencode attach <url>` and the relay still answers as the model)
//   --reply-timeout <s>  give up waiting for a reply or answer file after this long (default: wait forever)
//   --orca-options <json>  plugin options; its top-level keys replace the relay's ({"timeouts":{"step_idle_seconds":86400}})
//
// A reply file is plain text (the model's text reply) and/or tool calls, one block each:
//
//     Let me look at the code first.
//     TOOL read
//     {"filePath": "src/stats.js"}
//     TOOL grep
//     {"pattern": "mean"}
//
// (several blocks = parallel calls). A reply that does not parse, or calls a tool the request did not
// offer, gets `replies/0001.error.txt` and the relay waits for the file to change. Title-generation
// requests are answered at once and not relayed. Stdout says what the relay waits for, one line each:
// `WAIT reply <file> for <request file>`, `WAIT answer <file> for <question file>`, then `DONE …`.
// Only 127.0.0.1 is used; every server request has a deadline; Ctrl-C stops the server's process group.
// To check the loop without a person: `npx tsx scripts/relay/canned.ts <dir>` beside it answers mechanically.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startOpencode, type OpencodeServer } from '../test/support/opencode-server.js';
import { opencodeBinary } from '../test/support/opencode-sandbox.js';
import { startScriptedModel, type RecordedRequest, type ScriptedReply } from '../test/support/scripted-model.js';
import { relayDirs, waitForFile } from './relay/files.js';
import { snapshotPlugin } from './relay/plugin.js';
import { prepareProject } from './relay/project.js';
import { agentNameOf, renderPermission, renderQuestion, renderRequest, seq, type PermissionRequest, type QuestionRequest } from './relay/render.js';
import { parseAnswers, parsePermissionAnswer, parseReply } from './relay/reply.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    project: { type: 'string' },
    message: { type: 'string' },
    'message-file': { type: 'string' },
    agent: { type: 'string', default: 'orca' },
    keep: { type: 'boolean', default: false },
    'reply-timeout': { type: 'string' },
    'orca-options': { type: 'string' },
  },
});

const dirs = relayDirs(resolve(args.dir ?? mkdtempSync(join(tmpdir(), 'orca-relay-'))));
const projectDir = join(dirs.root, 'project');
const replyTimeoutMs = args['reply-timeout'] ? Number(args['reply-timeout']) * 1000 : undefined;
const message = args['message-file'] ? readFileSync(args['message-file'], 'utf8') : args.message;
const say = (line: string) => console.log(line);

const pluginUrl = snapshotPlugin(join(dirs.root, 'plugin'));
if (!onPath('rg')) say('WARN ripgrep (rg) is not on PATH: OpenCode\'s grep and glob tools will fail (apt-get install ripgrep)');
prepareProject(projectDir, args.project && resolve(args.project));

let stopping = false;
let server: OpencodeServer | undefined;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (server) writeFileSync(join(dirs.root, 'server.log'), server.logs());
    await server?.stop({ keepFiles: true }).catch(() => undefined);
    await model.close();
  }
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(130));
process.on('SIGTERM', () => void shutdown(143));

// ── the model: every non-title request is written out and answered from its reply file ──
// A rerun on the same --dir numbers on, so an old reply file never answers a new request.
let requestCount = highestNumber(dirs.requests);
const model = await startScriptedModel({ respond: relayToFiles, titleText: 'Relay session' });

async function relayToFiles(req: RecordedRequest): Promise<ScriptedReply> {
  const n = ++requestCount;
  const requestFile = join(dirs.requests, `${seq(n)}-${agentNameOf(req)}.md`);
  const replyFile = join(dirs.replies, `${seq(n)}.md`);
  const errorFile = join(dirs.replies, `${seq(n)}.error.txt`);
  writeFileSync(requestFile, renderRequest(req, n));
  say(`WAIT reply ${replyFile} for ${requestFile}`);
  let rejected: string | undefined;
  for (;;) {
    const content = await waitForFile(replyFile, { stop: () => stopping || req.aborted === true, timeoutMs: replyTimeoutMs, ignore: rejected }).catch(giveUp);
    if (content === undefined) {
      if (!stopping) say(`ABORTED request ${seq(n)}: OpenCode closed it (session aborted); its reply file is no longer read`);
      return { text: '' };
    }
    const parsed = parseReply(content, req.tools);
    if (parsed.ok) {
      rmSync(errorFile, { force: true });
      const calls = parsed.value.toolCalls?.map((c) => c.name).join(', ');
      say(`REPLIED ${seq(n)}: ${calls ? `tool calls ${calls}` : `text, ${parsed.value.text?.length ?? 0} chars`}`);
      return parsed.value;
    }
    rejected = content;
    writeFileSync(errorFile, `${parsed.error}\n`);
    say(`BAD reply ${replyFile}: ${parsed.error} (see ${errorFile}; waiting for the file to change)`);
  }
}

/** --reply-timeout ran out: the run ends, rather than OpenCode retrying a request nobody answers. */
function giveUp(error: Error): Promise<never> {
  say(`TIMEOUT ${error.message}`);
  return shutdown(1);
}

// ── the server ──
const orcaOptions = { timeouts: { step_idle_seconds: 86_400 }, ...(args['orca-options'] ? JSON.parse(args['orca-options']) : {}) };
const opencode = await startOpencode({
  modelUrl: model.url,
  plugins: [],
  // Orca as a user has it: the harness's pin of ask_planner_returns is for the e2e files.
  orcaDefaults: true,
  modelCatalog: 'opencode',
  allocator: 'bun',
  projectDir,
  homeDir: join(dirs.root, 'home'),
  requestTimeoutMs: 30_000,
  config: {
    plugin: [[pluginUrl, orcaOptions]],
    // A person answers in minutes, not OpenCode's default 5 min header and chunk deadlines.
    provider: { fake: { name: 'Relay model', options: { timeout: false, headerTimeout: false, chunkTimeout: false } } },
  },
}).catch((error: Error) => {
  say(`ERROR the server did not start: ${error.message}`);
  return shutdown(1);
});
server = opencode;
say(`READY server ${opencode.url} · project ${projectDir} · work dir ${dirs.root}`);

// ── dialogs: each open question or permission is written out and answered from its answer file ──
const seen = new Set<string>();
let open = new Set<string>();
let dialogCount = highestNumber(dirs.questions);
void (async function watchDialogs() {
  while (!stopping) {
    try {
      const questions = (await getJson<QuestionRequest[]>('/question')) ?? [];
      const permissions = (await getJson<PermissionRequest[]>('/permission')) ?? [];
      open = new Set([...questions, ...permissions].map((d) => d.id));
      for (const q of questions) if (!seen.has(q.id)) void answerDialog(q, 'question');
      for (const p of permissions) if (!seen.has(p.id)) void answerDialog(p, 'permission');
    } catch (error) {
      say(`WARN listing dialogs failed: ${(error as Error).message}`);
    }
    await sleep(500);
  }
})();

async function answerDialog(dialog: QuestionRequest | PermissionRequest, kind: 'question' | 'permission'): Promise<void> {
  seen.add(dialog.id);
  const n = ++dialogCount;
  const questionFile = join(dirs.questions, `${seq(n)}.md`);
  const answerFile = join(dirs.answers, `${seq(n)}.md`);
  const errorFile = join(dirs.answers, `${seq(n)}.error.txt`);
  const above = kind === 'question' ? await conversationAbove(dialog.sessionID).catch((error: Error) => `(could not be read: ${error.message})`) : '';
  writeFileSync(questionFile, kind === 'question' ? renderQuestion(dialog as QuestionRequest, n, above) : renderPermission(dialog as PermissionRequest, n));
  say(`WAIT answer ${answerFile} for ${questionFile}`);
  let rejected: string | undefined;
  for (;;) {
    const content = await waitForFile(answerFile, { stop: () => stopping || !open.has(dialog.id), timeoutMs: replyTimeoutMs, ignore: rejected }).catch(giveUp);
    if (content === undefined) {
      if (!stopping) say(`CLOSED ${kind} ${seq(n)}: answered or dismissed elsewhere`);
      return;
    }
    const parsed = kind === 'question' ? parseAnswers(content, dialog as QuestionRequest) : parsePermissionAnswer(content);
    if (parsed.ok) {
      rmSync(errorFile, { force: true });
      const path = kind === 'question' ? `/question/${dialog.id}/reply` : `/permission/${dialog.id}/reply`;
      const body = kind === 'question' ? { answers: parsed.value } : parsed.value;
      const res = await opencode.fetch(path, { method: 'POST', body: JSON.stringify(body), timeoutMs: 15_000 });
      say(res.ok ? `ANSWERED ${seq(n)}: ${JSON.stringify(body)}` : `WARN POST ${path} answered HTTP ${res.status}: ${await res.text()}`);
      return;
    }
    rejected = content;
    writeFileSync(errorFile, `${parsed.error}\n`);
    say(`BAD answer ${answerFile}: ${parsed.error} (see ${errorFile}; waiting for the file to change)`);
  }
}

// ── the user: one message to the agent, then wait for its turn to end ──
if (message !== undefined) {
  try {
    await runTurn(message);
  } catch (error) {
    say(`ERROR ${(error as Error).message}`);
    if (!args.keep) await shutdown(1);
  }
  if (!args.keep) await shutdown(0);
}
say(`SERVING until Ctrl-C (attach a TUI: ${opencodeAttachHint()})`);

async function runTurn(text: string): Promise<void> {
  const session = await postJson<{ id: string }>('/session', {});
  const res = await opencode.fetch(`/session/${session.id}/prompt_async`, {
    method: 'POST',
    body: JSON.stringify({ agent: args.agent, parts: [{ type: 'text', text }] }),
  });
  if (!res.ok) throw new Error(`POST /session/${session.id}/prompt_async answered HTTP ${res.status}: ${await res.text()}`);
  say(`SENT message to agent ${args.agent} in session ${session.id}`);

  let busy = false;
  let lastRetry = '';
  for (;;) {
    await sleep(500);
    const statuses = await getJson<Record<string, { type: string; attempt?: number; message?: string }>>('/session/status').catch((error: Error) => {
      say(`WARN reading the session status failed: ${error.message}`);
      return 'unknown' as const;
    });
    if (statuses === 'unknown') continue;
    const status = statuses?.[session.id];
    if (status?.type === 'retry' && `${status.attempt}` !== lastRetry) {
      lastRetry = `${status.attempt}`;
      say(`RETRY attempt ${status.attempt}: ${status.message}`);
    }
    if (status && status.type !== 'idle') busy = true;
    else if (busy || (await lastAssistant(session.id))?.info?.time?.completed) break;
  }

  const ended = await lastAssistant(session.id);
  say(`TURN of ${args.agent} ended${ended?.info?.error ? ` with error ${JSON.stringify(ended.info.error)}` : ''}`);
  const plansDir = join(projectDir, '.opencode', 'plans');
  const plans = existsSync(plansDir) ? readdirSync(plansDir).filter((f) => f.endsWith('.json')).map((f) => join(plansDir, f)) : [];
  // The session is free while its plan runs: its gates ask (questions/) and notes follow it after the turn.
  for (let said = false; plans.some(unsettled); said = true) {
    if (!said) say('WAIT the plan runs or waits for a decision: its dialogs come as questions/, its notes in the session');
    await sleep(1_000);
  }
  // The outcome's note is posted once the plan has ended: wait (a little) for the session to say it.
  for (let waited = 0; waited < 30_000 && !(await settledSession(session.id)); waited += 500) await sleep(500);
  const last = await lastAssistant(session.id);
  const finalText = (last?.parts ?? []).filter((p: any) => p.type === 'text').map((p: any) => p.text).join('\n').trim();
  say(`DONE turn of ${args.agent} ended, and no plan runs or waits`);
  say(`PLANS ${plans.length > 0 ? plans.join(' ') : '(none)'}`);
  say(`FINAL ${finalText ? summary(finalText) : '(no text)'}`);
}

/** A plan file of a plan that still runs, or waits for a decision (a draft with an answer is settled). */
function unsettled(file: string): boolean {
  try {
    const plan = JSON.parse(readFileSync(file, 'utf8')) as { status: string; waiting_for: string | null };
    return plan.waiting_for !== null || ['pending_approval', 'changes_requested', 'approved', 'in_progress'].includes(plan.status);
  } catch {
    return false; // being replaced: read again at the next look
  }
}

/**
 * What the conversation shows right above a dialog: the texts of the dialog's root session since the
 * last message a person (or the agent's caller) typed, Orca's notes among them (the plan, an error).
 */
async function conversationAbove(dialogSessionId: string): Promise<string> {
  const dialogSession = await getJson<{ parentID?: string }>(`/session/${dialogSessionId}`);
  const root = dialogSession?.parentID ?? dialogSessionId;
  const messages = (await getJson<any[]>(`/session/${root}/message`)) ?? [];
  const typed = (m: any) => m.info?.role === 'user' && (m.parts ?? []).some((p: any) => p.type === 'text' && !p.synthetic);
  const since = messages.length - 1 - [...messages].reverse().findIndex(typed);
  const shown = messages
    .slice(since >= messages.length ? 0 : since)
    .flatMap((m: any) => (m.parts ?? []).filter((p: any) => p.type === 'text' && !p.synthetic).map((p: any) => `${m.info?.role === 'user' ? 'USER' : 'SHOWN'}: ${p.text}`));
  return shown.join('\n\n');
}

/** The session is idle and its last reply finished. */
async function settledSession(sessionId: string): Promise<boolean> {
  const statuses = await getJson<Record<string, { type: string }>>('/session/status').catch(() => undefined);
  if (statuses?.[sessionId] && statuses[sessionId]!.type !== 'idle') return false;
  return Boolean((await lastAssistant(sessionId))?.info?.time?.completed);
}

async function lastAssistant(sessionId: string): Promise<any> {
  const messages = (await getJson<any[]>(`/session/${sessionId}/message`)) ?? [];
  return messages.filter((m) => m.info?.role === 'assistant').at(-1);
}

async function getJson<T>(path: string): Promise<T | undefined> {
  const res = await opencode.fetch(path, { timeoutMs: 15_000 });
  if (!res.ok) throw new Error(`GET ${path} answered HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await opencode.fetch(path, { method: 'POST', body: JSON.stringify(body), timeoutMs: 15_000 });
  if (!res.ok) throw new Error(`POST ${path} answered HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

function summary(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}

function opencodeAttachHint(): string {
  return `${opencodeBinary()} attach ${opencode.url}`;
}

function highestNumber(dir: string): number {
  return Math.max(0, ...readdirSync(dir).map((file) => Number(/^(\d+)/.exec(file)?.[1] ?? 0)));
}

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
