// Channel 1 of the human-in-the-loop on the real opencode 1.18 binary: plugin code raises
// OpenCode's own question dialog through the in-process `orca-hitl` model, with no LLM involved.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { projectRoot } from '../support/opencode-sandbox.js';
import { writePluginFile, type PluginFile } from '../support/plugin-file.js';
import { callTool, lastToolResult, startScriptedModel, text, type ScriptedModel } from '../support/scripted-model.js';

const channelUrl = pathToFileURL(join(projectRoot, 'src', 'hitl', 'native-question', 'index.ts')).href;

// `hitl_ask` asks the gate's two-question pattern and returns what the asker said (or threw).
const PLUGIN = `
import { tool } from '@opencode-ai/plugin';
import { createQuestionAsker, registerQuestionChannel } from ${JSON.stringify(channelUrl)};

export const NativeQuestionUnderTest = async ({ client, directory }) => {
  const asker = createQuestionAsker({ client, directory, startTimeoutMs: 30000 });
  return {
    config: async (cfg) => {
      registerQuestionChannel(cfg);
    },
    tool: {
      hitl_ask: tool({
        description: 'asks the human through the native question dialog',
        args: { nonce: tool.schema.string() },
        async execute(args, ctx) {
          const started = Date.now();
          const questions = [
            {
              header: 'Plan approval',
              question: 'Approve plan ' + args.nonce + '?',
              options: [
                { label: 'Approve', description: 'Run the plan' },
                { label: 'Request Changes' },
                { label: 'Reject', description: 'Drop the plan' },
              ],
              custom: false,
            },
            { header: 'Context', question: 'Anything to add for ' + args.nonce + '?', options: [], custom: true },
          ];
          try {
            const outcome = await asker.ask({ callerSessionId: ctx.sessionID, questions, title: 'Orca: approve ' + args.nonce, signal: ctx.abort });
            return JSON.stringify({ outcome, ms: Date.now() - started });
          } catch (error) {
            return JSON.stringify({ thrown: String(error && error.name) + ': ' + String(error && error.message), ms: Date.now() - started });
          }
        },
      }),
    },
  };
};
`;

type QuestionRequest = {
  id: string;
  sessionID: string;
  questions: Array<{ header: string; question: string; options: Array<{ label: string; description: string }>; custom?: boolean; multiple?: boolean }>;
};
type ToolReport = { outcome?: { kind: string; answers?: string[][]; sessionId?: string; reason?: string }; thrown?: string; ms: number };

const timings: string[] = [];
const since = (t0: number) => `${Date.now() - t0} ms`;
afterAll(() => console.log(`native question timings:\n  ${timings.join('\n  ')}`));

/** The user's agent calls hitl_ask once with the nonce from "ask NONCE", then reports the result. */
function scriptedUserModel(): Promise<ScriptedModel> {
  return startScriptedModel({
    respond(req) {
      const nonce = /^ask (\S+)/.exec(req.lastUser)?.[1];
      if (nonce && !lastToolResult(req)) return callTool('hitl_ask', { nonce });
      return text('done');
    },
  });
}

describe('native question dialog on the real opencode binary', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: PluginFile;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    const t0 = Date.now();
    model = await scriptedUserModel();
    plugin = writePluginFile(PLUGIN, 'native-question-plugin.ts');
    server = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [plugin.url] });
    timings.push(`server start: ${since(t0)}`);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    plugin?.remove();
  });

  async function session(title: string, parentID?: string): Promise<string> {
    const res = await server.client.session.create({ title, ...(parentID ? { parentID } : {}) }, { throwOnError: true });
    return res.data.id;
  }

  async function openQuestions(): Promise<QuestionRequest[]> {
    const res = await server.fetch('/question', { timeoutMs: 15_000 });
    return (await res.json()) as QuestionRequest[];
  }

  const questionFor = (nonce: string) =>
    waitFor(async () => (await openQuestions()).find((q) => q.questions[0]?.question === `Approve plan ${nonce}?`), {
      // The first question of a server also starts its first model turn: slow on a busy machine.
      timeoutMs: 45_000,
      description: `a question request for ${nonce} on GET /question`,
    });

  /** The caller session prompts "ask NONCE"; resolves with hitl_ask's report once the turn ends. */
  function askFrom(caller: string, nonce: string): Promise<ToolReport> {
    return (async () => {
      await server.client.session.prompt({ sessionID: caller, parts: [{ type: 'text', text: `ask ${nonce}` }] }, { throwOnError: true });
      const messages = (await server.client.session.messages({ sessionID: caller }, { throwOnError: true })).data;
      const part = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.tool === 'hitl_ask');
      if (part?.type !== 'tool' || part.state.status !== 'completed') throw new Error(`Expected a completed hitl_ask part, got ${JSON.stringify(part)}`);
      return JSON.parse(part.state.output) as ToolReport;
    })();
  }

  async function parentOf(sessionID: string): Promise<string | undefined> {
    return (await server.client.session.get({ sessionID }, { throwOnError: true })).data.parentID;
  }

  it('asks from a direct child of the root although the caller is two levels down, and returns the answers', async () => {
    const root = await session('root');
    const caller = await session('grandchild', await session('child', root));
    const t0 = Date.now();
    const report = askFrom(caller, 'n1');
    const request = await questionFor('n1');
    timings.push(`answered case: question visible after ${since(t0)}`);

    expect(await parentOf(request.sessionID)).toBe(root);
    expect(request.questions).toHaveLength(2);
    const [action, context] = request.questions;
    expect(action).toMatchObject({ header: 'Plan approval', question: 'Approve plan n1?' });
    expect(action?.options).toEqual([
      { label: 'Approve', description: 'Run the plan' },
      { label: 'Request Changes', description: '' },
      { label: 'Reject', description: 'Drop the plan' },
    ]);
    expect(context).toMatchObject({ header: 'Context', question: 'Anything to add for n1?', options: [] });
    // 1.18.33 quirk: the question tool's input schema has no `custom`, so custom: false is dropped
    // and the dialog offers "Type your own answer" on the action question too. Fails when fixed upstream.
    expect(action?.custom).toBeUndefined();

    const t1 = Date.now();
    const reply = await server.fetch(`/question/${request.id}/reply`, { method: 'POST', body: JSON.stringify({ answers: [['Approve'], ['ship it']] }) });
    expect(reply.status).toBe(200);
    const result = await report;
    timings.push(`answered case: tool result ${since(t1)} after the reply (asker total ${result.ms} ms)`);
    expect(result.outcome).toEqual({ kind: 'answered', answers: [['Approve'], ['ship it']], sessionId: request.sessionID });
    expect((await openQuestions()).some((q) => q.id === request.id)).toBe(false);
  }, 90_000);

  it('returns dismissed when the human rejects the dialog', async () => {
    const root = await session('root');
    const t0 = Date.now();
    const report = askFrom(root, 'n2');
    const request = await questionFor('n2');
    timings.push(`dismissed case: question visible after ${since(t0)}`);
    expect(await parentOf(request.sessionID)).toBe(root);

    const t1 = Date.now();
    const reject = await server.fetch(`/question/${request.id}/reject`, { method: 'POST' });
    expect(reject.status).toBe(200);
    const result = await report;
    timings.push(`dismissed case: tool result ${since(t1)} after the reject`);
    expect(result.outcome).toEqual({ kind: 'dismissed', sessionId: request.sessionID });
  }, 90_000);

  it('closes the open question when the caller is aborted', async () => {
    const root = await session('root');
    void askFrom(root, 'n3').catch(() => {});
    const request = await questionFor('n3');
    const t0 = Date.now();
    await server.client.session.abort({ sessionID: root }, { throwOnError: true });
    await waitFor(async () => !(await openQuestions()).some((q) => q.id === request.id), {
      timeoutMs: 5_000,
      description: 'the question to disappear from GET /question after the caller was aborted',
    });
    timings.push(`abort case: question gone ${since(t0)} after aborting the caller`);
  }, 90_000);

  it('never sends the question turn to a real model', async () => {
    const leaked = model.requests.filter((r) => JSON.stringify(r.body).includes('orca-hitl-question') || r.system.includes('Orca plugin'));
    expect(leaked).toEqual([]);
    // The user's model saw only its own turns: hitl_ask, then the final text (none after the abort).
    const turns = (nonce: string) => model.chatRequests().filter((r) => r.lastUser === `ask ${nonce}`).length;
    expect([turns('n1'), turns('n2'), turns('n3')]).toEqual([2, 2, 1]);
    const sessions = (await server.client.session.list(undefined, { throwOnError: true })).data;
    const questionSessions = sessions.filter((s) => s.title.startsWith('Orca: approve'));
    expect(questionSessions).toHaveLength(3);
    for (const s of questionSessions) {
      const messages = (await server.client.session.messages({ sessionID: s.id }, { throwOnError: true })).data;
      // What the human sees in the question's session: the title and where to answer, no raw payload.
      const shown = messages.filter((m) => m.info.role === 'user').flatMap((m) => m.parts).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      expect(shown.split('\n')[0]).toBe(s.title);
      expect(shown).not.toContain('orca-hitl-question');
      expect(shown).not.toContain('"questions"');
      const assistants = messages.map((m) => m.info).filter((info) => info.role === 'assistant');
      expect(assistants.length).toBeGreaterThan(0);
      for (const info of assistants) expect(info).toMatchObject({ providerID: 'orca-hitl', modelID: 'question', agent: 'orca-hitl' });
    }
  }, 30_000);

  it('lists the provider and the hidden agent it installed', async () => {
    const providers = (await (await server.fetch('/config/providers')).json()) as { providers: Array<{ id: string; name: string; models: Record<string, unknown> }> };
    const orca = providers.providers.find((p) => p.id === 'orca-hitl');
    expect(orca && Object.keys(orca.models)).toEqual(['question']);
    const agents = (await (await server.fetch('/agent')).json()) as Array<{ name: string; hidden?: boolean; mode: string }>;
    expect(agents.find((a) => a.name === 'orca-hitl')).toMatchObject({ hidden: true, mode: 'subagent' });
  });
});

describe('native question dialog when opencode.json sets no model', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: PluginFile;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await scriptedUserModel();
    plugin = writePluginFile(PLUGIN, 'native-question-plugin.ts');
    // No "model": registering would let OpenCode pick the question model as the default, so it stays out.
    server = await startOpencode({ server: 'shared', modelUrl: model.url, plugins: [plugin.url], config: { model: undefined } });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    plugin?.remove();
  });

  it("keeps the user's default model and returns unavailable with a reason instead of hanging", async () => {
    const root = (await server.client.session.create({ title: 'root' }, { throwOnError: true })).data.id;
    const t0 = Date.now();
    await server.client.session.prompt({ sessionID: root, parts: [{ type: 'text', text: 'ask n4' }] }, { throwOnError: true });
    const messages = (await server.client.session.messages({ sessionID: root }, { throwOnError: true })).data;
    const part = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.tool === 'hitl_ask');
    const report = JSON.parse(part?.type === 'tool' && part.state.status === 'completed' ? part.state.output : '{}') as ToolReport;
    timings.push(`unavailable case: tool result after ${since(t0)}: ${report.outcome?.reason}`);
    expect(messages[0]?.info).toMatchObject({ role: 'user', model: { providerID: 'fake', modelID: 'fake-model' } });
    expect(report.outcome?.kind).toBe('unavailable');
    expect(report.outcome?.reason).toMatch(/^native question dialog unavailable: .*registerQuestionChannel/);
    // Detected before any session was opened for it.
    const sessions = (await server.client.session.list(undefined, { throwOnError: true })).data;
    expect(sessions.filter((s) => s.title.startsWith('Orca: approve'))).toEqual([]);
  }, 30_000);
});
