import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config, Hooks } from '@opencode-ai/plugin';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLED_AGENT_IDS, evaluatePermission, isToolHidden, type OrcaAgentConfig } from '../../src/agents/index.js';
import { parseOptions } from '../../src/config/options.js';
import { QUESTION_AGENT_ID } from '../../src/hitl/native-question/ids.js';
import { passiveHooks, type PassiveInput } from '../../src/passive/plugin.js';
import { WARMUP_AGENT_ID, WARMUP_PROVIDER_ID, warmupFetch } from '../../src/passive/warmup.js';
import { registerMainInstance, type MainSink } from '../../src/passive/relay.js';
import { agentRuleset } from '../agents/opencode-rules.js';

const PLAN = 'plan_01JZ8X6Q4V3M2N1P0R9S8T7W6Y';

let root: string;
let repo: string;
let worktree: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'orca-passive-')));
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'app'), { recursive: true });
  const { GIT_DIR: _dir, GIT_WORK_TREE: _tree, GIT_COMMON_DIR: _common, ...env } = process.env;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'pipe', env });
  git('init', '-q');
  writeFileSync(join(repo, 'app', 'a.txt'), 'a\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  worktree = join(repo, '.git', 'orca-worktrees', PLAN, 'impl.1');
  git('worktree', 'add', '-q', '--detach', worktree);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function fakeInput(directory: string) {
  const logs: Array<{ level: string; message: string }> = [];
  const input = {
    directory,
    client: { app: { log: async ({ body }: { body: { level: string; message: string } }) => void logs.push(body) } },
  } as unknown as PassiveInput;
  return { input, logs };
}

function mainSink() {
  const events: unknown[] = [];
  const requests: unknown[] = [];
  const sink: MainSink = { event: (event) => void events.push(event), beforeModelRequest: async (messages) => void requests.push(messages) };
  cleanups.push(registerMainInstance(join(repo, '.git'), sink));
  return { events, requests };
}

type Transform = NonNullable<Hooks['experimental.chat.messages.transform']>;
type Messages = Parameters<Transform>[1]['messages'];
const idle = { type: 'session.idle', properties: { sessionID: 'ses_step' } } as unknown as Parameters<NonNullable<Hooks['event']>>[0]['event'];

describe('passiveHooks', () => {
  it('should offer only the config, event, model-request, prompt-cache and tool-answer hooks: no tool, command, compaction or dispose', async () => {
    const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
    expect(Object.keys(hooks).sort()).toEqual(['chat.params', 'config', 'event', 'experimental.chat.messages.transform', 'experimental.chat.system.transform', 'tool.execute.after']);
    expect(hooks).not.toHaveProperty('tool');
  });

  it('should log that it loaded, for its directory', async () => {
    mainSink();
    const { input, logs } = fakeInput(join(worktree, 'app'));
    await passiveHooks(input, parseOptions({}));
    expect(logs).toEqual([{ service: 'orca', level: 'info', message: `orca (passive) loaded for ${join(worktree, 'app')}` }]);
  });

  describe('config', () => {
    it("should install Orca's agents in their worktree variant: no directory outside, the reviewer with bash but no edits", async () => {
      const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
      const config: Config = {};
      await hooks.config!(config);
      const agents = config.agent as Record<string, OrcaAgentConfig>;
      for (const id of INSTALLED_AGENT_IDS) {
        expect(agents[id], id).toBeDefined();
        expect(evaluatePermission('external_directory', '/home/user/checkout/*', agentRuleset(agents[id]!.permission)), id).toBe('deny');
      }
      const reviewer = agentRuleset(agents.reviewer!.permission);
      expect(isToolHidden('bash', reviewer)).toBe(false);
      for (const tool of ['edit', 'write', 'apply_patch']) expect(isToolHidden(tool, reviewer), tool).toBe(true);
    });

    it('should install nothing else of Orca but the warm-up agent and its in-process provider: no question agent, no slash commands', async () => {
      const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
      const config: Config = { enabled_providers: ['fake'] };
      await hooks.config!(config);
      expect(config.agent).not.toHaveProperty(QUESTION_AGENT_ID);
      expect(config.command).toBeUndefined();
      expect(Object.keys(config.provider ?? {})).toEqual([WARMUP_PROVIDER_ID]);
      expect(config.enabled_providers).toEqual(['fake', WARMUP_PROVIDER_ID]);
      expect(config.agent?.[WARMUP_AGENT_ID]).toMatchObject({ mode: 'subagent', hidden: true, model: `${WARMUP_PROVIDER_ID}/warm`, permission: { '*': 'deny' } });
    });

    it("should turn OpenCode's own file snapshots off in the worktree (Orca measures the step's changes with git)", async () => {
      const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
      const config: Config = {};
      await hooks.config!(config);
      expect(config.snapshot).toBe(false);
    });

    it('should answer the warm-up agent in process with one short text turn, streamed as a chat completion', async () => {
      const streamed = await warmupFetch('http://orca-warmup.invalid/v1/chat/completions', { method: 'POST', body: JSON.stringify({ stream: true, messages: [] }) });
      const body = await streamed.text();
      expect(streamed.headers.get('content-type')).toBe('text/event-stream');
      expect(body).toContain('"content":"ready"');
      expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
      const plain = await warmupFetch('http://orca-warmup.invalid/v1/chat/completions', { method: 'POST', body: JSON.stringify({ stream: false }) });
      expect(((await plain.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('ready');
      expect((await warmupFetch('http://orca-warmup.invalid/v1/models')).status).toBe(404);
    });

    it("should apply the options' agent settings, as the main instance does", async () => {
      const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({ agents: { coder: { model: 'a/b', output: 'structured' } } }));
      const config: Config = {};
      await hooks.config!(config);
      expect(config.agent?.coder).toMatchObject({ model: 'a/b' });
      expect(config.agent?.coder).not.toHaveProperty('output');
    });
  });

  describe('with the main instance of its repository registered', () => {
    it('should hand it every event', async () => {
      const main = mainSink();
      const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
      await hooks.event!({ event: idle });
      expect(main.events).toEqual([idle]);
    });

    it('should hand it every model request, with the transcript OpenCode is about to send', async () => {
      const main = mainSink();
      const hooks = await passiveHooks(fakeInput(join(worktree, 'app')).input, parseOptions({}));
      const output = { messages: [] as Messages };
      await hooks['experimental.chat.messages.transform']!({}, output);
      expect(main.requests).toHaveLength(1);
      expect(main.requests[0]).toBe(output.messages);
    });

    it('should throw nothing back into OpenCode when the main instance throws, and log it once', async () => {
      cleanups.push(
        registerMainInstance(join(repo, '.git'), {
          event: () => {
            throw new Error('observer broke');
          },
          beforeModelRequest: () => Promise.reject(new Error('abort failed')),
        }),
      );
      const { input, logs } = fakeInput(worktree);
      const hooks = await passiveHooks(input, parseOptions({}));
      await expect(hooks.event!({ event: idle })).resolves.toBeUndefined();
      await expect(hooks.event!({ event: idle })).resolves.toBeUndefined();
      await expect(hooks['experimental.chat.messages.transform']!({}, { messages: [] })).resolves.toBeUndefined();
      expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
        expect.stringMatching(/observer broke/),
        expect.stringMatching(/abort failed/),
      ]);
    });
  });

  describe('without a main instance', () => {
    it('should throw nothing, and warn once that the sessions here are not watched', async () => {
      const { input, logs } = fakeInput(worktree);
      const hooks = await passiveHooks(input, parseOptions({}));
      await expect(hooks.event!({ event: idle })).resolves.toBeUndefined();
      await expect(hooks['experimental.chat.messages.transform']!({}, { messages: [] })).resolves.toBeUndefined();
      expect(logs.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ message: expect.stringMatching(/not watched/) })]);
    });

    it('should throw nothing outside any repository either', async () => {
      const lone = join(root, 'lone', '.git', 'orca-worktrees', PLAN, 'impl.1');
      mkdirSync(lone, { recursive: true });
      const hooks = await passiveHooks(fakeInput(lone).input, parseOptions({}));
      await expect(hooks.event!({ event: idle })).resolves.toBeUndefined();
    });
  });

  it('should answer a call to a tool the agent lacks with what was called and what it has, like the main instance', async () => {
    const hooks = await passiveHooks(fakeInput(worktree).input, parseOptions({}));
    const output = { title: '', output: 'The arguments provided to the tool are invalid', metadata: {} };
    const args = { tool: 'edit', error: "Model tried to call unavailable tool 'edit'. Available tools: bash, invalid, read." };
    await hooks['tool.execute.after']!({ tool: 'invalid', sessionID: 's', callID: 'c', args }, output);
    expect(output.output).toMatch(/^You called 'edit'/);
    const other = { title: '', output: 'ok', metadata: {} };
    await hooks['tool.execute.after']!({ tool: 'read', sessionID: 's', callID: 'c', args: {} }, other);
    expect(other.output).toBe('ok');
  });
});
