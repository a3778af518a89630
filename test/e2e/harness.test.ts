// Proves the e2e harness against the real opencode binary: the scripted model answers a plain
// agent, and a file:// plugin's tool is offered, called, and its output reaches the model.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { openProject, reopenProject, restartOpencode, startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { writePluginFile, type PluginFile } from '../support/plugin-file.js';
import { fetchWithTimeout } from '../support/wait-for.js';
import {
  callTool,
  isForAgent,
  lastToolResult,
  startScriptedModel,
  text,
  type ScriptedModel,
} from '../support/scripted-model.js';

const ECHO_PLUGIN = `
import { tool } from '@opencode-ai/plugin';

export const HarnessEchoPlugin = async () => ({
  tool: {
    harness_echo: tool({
      description: 'Echoes its input back, reversed, so the test can tell it ran.',
      args: { word: tool.schema.string().describe('word to echo') },
      async execute({ word }) {
        return 'echo:' + word.split('').reverse().join('');
      },
    }),
  },
});
`;

// The built-in "build" agent's prompt starts with this line; our own agents will carry markers.
const BUILD_AGENT_MARKER = 'You are opencode';

describe('e2e harness on the real opencode binary', () => {
  let model: ScriptedModel;
  let server: OpencodeServer;
  let plugin: PluginFile;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    model = await startScriptedModel({
      respond(req) {
        if (req.lastUser.includes('use the echo tool')) {
          const result = lastToolResult(req);
          return result ? text(`the tool said ${result.content}`) : callTool('harness_echo', { word: 'orca' });
        }
        return text('hello from the scripted model');
      },
    });
    plugin = writePluginFile(ECHO_PLUGIN, 'echo-plugin.ts');
    const started = Date.now();
    server = await startOpencode({ modelUrl: model.url, plugins: [plugin.url] });
    console.info(`[harness] opencode serve ready in ${Date.now() - started} ms at ${server.url}`);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    plugin?.remove();
  });

  it('lists the built-in agents', async () => {
    const res = await server.fetch('/agent', { timeoutMs: 15_000 });
    expect(res.status).toBe(200);
    const agents = (await res.json()) as { name: string; mode: string }[];
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(['build', 'plan', 'general']));
  }, 60_000);

  it('returns the scripted text for a prompt to the build agent', async () => {
    const started = Date.now();
    const before = model.chatRequests().length;
    // Raw fetch for the session (proves the directory header and JSON body), SDK for the prompt.
    const created = await server.fetch('/session', { method: 'POST', body: JSON.stringify({ title: 'harness: plain' }) });
    expect(created.status).toBe(200);
    const session = (await created.json()) as { id: string; directory: string };
    expect(session.directory).toBe(server.projectDir);
    const res = await server.client.session.prompt(
      { sessionID: session.id, agent: 'build', parts: [{ type: 'text', text: 'say hello' }] },
      { throwOnError: true },
    );
    console.info(`[harness] plain prompt took ${Date.now() - started} ms`);

    const texts = res.data.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(texts.join('')).toBe('hello from the scripted model');
    const seen = model.chatRequests().slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.lastUser).toBe('say hello');
    expect(isForAgent(seen[0]!, BUILD_AGENT_MARKER)).toBe(true);
    expect(seen[0]!.body.stream).toBe(true);
  }, 60_000);

  it('offers a file:// plugin tool, runs it, and sends its output back to the model', async () => {
    const started = Date.now();
    const before = model.chatRequests().length;
    const session = await server.client.session.create({ title: 'harness: plugin tool' }, { throwOnError: true });
    const res = await server.client.session.prompt(
      { sessionID: session.data.id, agent: 'build', parts: [{ type: 'text', text: 'please use the echo tool' }] },
      { throwOnError: true },
    );
    console.info(`[harness] tool round trip took ${Date.now() - started} ms`);

    const [call, followUp] = model.chatRequests().slice(before);
    expect(call?.tools).toContain('harness_echo');
    expect(lastToolResult(followUp!)).toMatchObject({ name: 'harness_echo', content: 'echo:acro' });
    const texts = res.data.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(texts.join('')).toBe('the tool said echo:acro');

    const messages = await server.client.session.messages({ sessionID: session.data.id }, { throwOnError: true });
    const toolPart = messages.data.flatMap((m) => m.parts).find((p) => p.type === 'tool');
    expect(toolPart).toMatchObject({ tool: 'harness_echo', state: { status: 'completed', output: 'echo:acro' } });
  }, 60_000);
});

describe('server lifecycle', () => {
  // One server start and one restart for both (each costs about 3.4 s of CPU): the project opened on the
  // server is re-opened by the same restart that the server's own session must survive.
  it('restarts after kill -9 on the same project and home, keeping sessions; a project opened on it (openProject) follows it', async () => {
    const model = await startScriptedModel({ respond: (req) => text(`working in ${/Working directory: (.+)/.exec(req.system)?.[1]?.trim()}`) });
    let server = await startOpencode({ modelUrl: model.url });
    const project = await openProject(server);
    const answer = async (session: string) => {
      const res = await project.client.session.prompt({ sessionID: session, agent: 'build', parts: [{ type: 'text', text: 'where?' }] }, { throwOnError: true });
      return res.data.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    };
    const ids = async (s: OpencodeServer) => ((await s.client.session.list({}, { throwOnError: true })).data ?? []).map((x) => x.id);
    try {
      // Its own folder (a git repository of its own) on the same server and home; its sessions and events are its own.
      expect(project.url).toBe(server.url);
      expect(project.homeDir).toBe(server.homeDir);
      expect(project.projectDir).not.toBe(server.projectDir);
      expect(existsSync(join(project.projectDir, '.git'))).toBe(true);
      const session = await server.client.session.create({ title: 'survives a crash' }, { throwOnError: true });
      const guest = await project.client.session.create({ title: 'follows its server' }, { throwOnError: true });
      expect(guest.data.directory).toBe(project.projectDir);
      expect(await answer(guest.data.id)).toBe(`working in ${project.projectDir}`);
      expect(await ids(server)).toEqual([session.data.id]);
      expect(await ids(project)).toEqual([guest.data.id]);
      expect(project.events.events.length).toBeGreaterThan(0);
      expect(new Set(project.events.events.map((e) => e.directory))).toEqual(new Set([project.projectDir]));
      await expect(project.kill9()).rejects.toThrow(/opened on one \(openProject\); kill that one/);
      await expect(restartOpencode(project)).rejects.toThrow(/opened on one \(openProject\); restart that one/);
      await expect(openProject(project)).rejects.toThrow(/Expected a server of the file's own/);

      await server.kill9();
      const started = Date.now();
      server = await restartOpencode(server);
      console.info(`[harness] restart after kill -9 took ${Date.now() - started} ms`);
      const again = await server.client.session.get({ sessionID: session.data.id }, { throwOnError: true });
      expect(again.data.title).toBe('survives a crash');
      // The project is the restarted server's now: same object, same folder and sessions, new events.
      expect(project.url).toBe(server.url);
      const recorded = project.events.events.length;
      expect((await project.client.session.get({ sessionID: guest.data.id }, { throwOnError: true })).data.title).toBe('follows its server');
      expect(await answer(guest.data.id)).toBe(`working in ${project.projectDir}`);
      expect(project.events.events.length).toBeGreaterThan(recorded);
      expect(new Set(project.events.events.map((e) => e.directory))).toEqual(new Set([project.projectDir]));
      expect(model.chatRequests()).toHaveLength(2);

      // Stopping it removes its folder and ends its instance only: the server goes on.
      await project.stop();
      expect(existsSync(project.projectDir)).toBe(false);
      expect(await ids(server)).toEqual([session.data.id]);
    } finally {
      await project.stop();
      await server.stop();
      await model.close();
    }
  }, 90_000);

  it('fails the start with the import error when a plugin cannot load', async () => {
    const model = await startScriptedModel({ respond: () => text('unused') });
    const broken = writePluginFile(`import { nope } from 'no-such-package-orca';\nexport const Broken = async () => ({ nope });\n`);
    try {
      await expect(startOpencode({ modelUrl: model.url, plugins: [broken.url] })).rejects.toThrow(
        /Expected every plugin to load[\s\S]*no-such-package-orca/,
      );
    } finally {
      broken.remove();
      await model.close();
    }
  }, 60_000);
});

describe('shared server', () => {
  it('gives each project its own config, model, sessions and events, stops one without the other, and reopens one with another config', async () => {
    const models = await Promise.all(['one', 'two'].map((word) => startScriptedModel({ respond: () => text(`model ${word}`) })));
    const [a, b] = await Promise.all(models.map((model) => startOpencode({ server: 'shared', modelUrl: model.url })));
    try {
      expect(a!.url).toBe(b!.url);
      expect(a!.projectDir).not.toBe(b!.projectDir);
      const answer = async (server: OpencodeServer) => {
        const session = await server.client.session.create({ title: 'shared' }, { throwOnError: true });
        const res = await server.client.session.prompt({ sessionID: session.data.id, agent: 'build', parts: [{ type: 'text', text: 'hi' }] }, { throwOnError: true });
        return { id: session.data.id, text: res.data.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') };
      };
      const [ofA, ofB] = [await answer(a!), await answer(b!)];
      expect([ofA.text, ofB.text]).toEqual(['model one', 'model two']);
      expect(models.map((m) => m.chatRequests().length)).toEqual([1, 1]);
      const ids = async (server: OpencodeServer) => ((await server.client.session.list({}, { throwOnError: true })).data ?? []).map((x) => x.id);
      expect(await ids(a!)).toEqual([ofA.id]);
      expect(await ids(b!)).toEqual([ofB.id]);
      // Each project's event log holds its own directory's events only.
      expect(a!.events.events.length).toBeGreaterThan(0);
      expect(new Set(a!.events.events.map((e) => e.directory))).toEqual(new Set([a!.projectDir]));
      expect(new Set(b!.events.events.map((e) => e.directory))).toEqual(new Set([b!.projectDir]));

      await expect(a!.kill9()).rejects.toThrow(/server of the file's own to be killed/);
      await expect(restartOpencode(a!)).rejects.toThrow(/server of the file's own to be restarted/);
      await expect(startOpencode({ server: 'shared', modelUrl: models[0]!.url, env: { X: '1' }, logLevel: 'DEBUG' })).rejects.toThrow(
        "Expected no env, logLevel for a project on the shared server: they are a server process's; start it with server: 'own'.",
      );

      await a!.stop();
      expect(existsSync(a!.projectDir)).toBe(false);
      expect((await answer(b!)).text).toBe('model two');

      // Reopened with another model (its config written anew): the same folder and sessions, the new config's answers.
      const reopened = await reopenProject(b!, { modelUrl: models[0]!.url });
      expect(reopened.projectDir).toBe(b!.projectDir);
      expect(await ids(reopened)).toContain(ofB.id);
      expect((await answer(reopened)).text).toBe('model one');
      await expect(reopenProject({ options: {} } as OpencodeServer)).rejects.toThrow(/Expected a project on the shared server to reopen/);
      await reopened.stop();
      expect(existsSync(b!.projectDir)).toBe(false);
    } finally {
      await Promise.all([a?.stop(), b?.stop()]);
      await Promise.all(models.map((m) => m.close()));
    }
  }, 60_000);

  it("refuses a project folder that holds an OpenCode config of its own, and leaves it as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orca-shared-'));
    try {
      mkdirSync(join(dir, '.opencode'));
      writeFileSync(join(dir, '.opencode', 'opencode.json'), '{ "theme": "mine" }\n');
      await expect(startOpencode({ server: 'shared', modelUrl: 'http://127.0.0.1:9/v1', projectDir: dir, git: false })).rejects.toThrow(
        `Expected no ${join(dir, '.opencode', 'opencode.json')} in a project on the shared server`,
      );
      expect(readFileSync(join(dir, '.opencode', 'opencode.json'), 'utf8')).toBe('{ "theme": "mine" }\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the start with the import error when a plugin cannot load', async () => {
    const model = await startScriptedModel({ respond: () => text('unused') });
    const broken = writePluginFile(`import { nope } from 'no-such-package-orca';\nexport const Broken = async () => ({ nope });\n`);
    try {
      await expect(startOpencode({ server: 'shared', modelUrl: model.url, plugins: [broken.url] })).rejects.toThrow(
        /Expected every plugin to load[\s\S]*no-such-package-orca/,
      );
    } finally {
      broken.remove();
      await model.close();
    }
  }, 60_000);
});

describe('scripted model wire format', () => {
  it('answers stream:false with a chat.completion and reports a throwing script as HTTP 500', async () => {
    const model = await startScriptedModel({
      respond(req) {
        if (req.lastUser === 'fail') throw new Error('no script for "fail"');
        return callTool('lookup', { q: req.lastUser });
      },
    });
    try {
      const post = (content: string) =>
        fetchWithTimeout(`${model.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake-model', stream: false, messages: [{ role: 'user', content }] }),
          timeoutMs: 5_000,
        });
      const ok = await post('find orca');
      expect(await ok.json()).toMatchObject({
        object: 'chat.completion',
        choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ function: { name: 'lookup', arguments: '{"q":"find orca"}' } }] } }],
      });
      const failed = await post('fail');
      expect(failed.status).toBe(500);
      expect(await failed.text()).toContain('no script for \\"fail\\"');
      expect(model.errors()).toEqual(['no script for "fail"']);
    } finally {
      await model.close();
    }
  });
});
