import type { Hooks, PluginInput } from '@opencode-ai/plugin';
import { applyAgents } from '../agents/apply.js';
import { INVALID_TOOL } from '../agents/permissions.js';
import { agentOverrides, type OrcaOptions } from '../config/options.js';
import { agentPlanning } from '../config/policy.js';
import { unavailableToolText } from '../opencode/tool-failures.js';
import { planIdOfMetadata, promptCacheHooks, promptCacheSettings } from '../opencode/prompt-cache.js';
import { gitCommonDir, relayToMain, type RelayLog } from './relay.js';
import { registerWarmup } from './warmup.js';

/** What the worktree instance uses of OpenCode's plugin input: its directory, and the log. */
export type PassiveInput = Pick<PluginInput, 'directory' | 'client'>;

/**
 * The hooks of Orca's instance inside a step's git worktree (isOrcaWorktree), which OpenCode
 * loads there when Orca opens a session in that directory. It installs Orca's agents and their
 * permissions, in their worktree variant, so the step's specialist, reviewer and fixer exist there;
 * and it hands every event and every model request to the main instance of the repository
 * (relay.ts), whose idle timeout, usage meter and tool-failure breaker follow the step. Nothing
 * else of Orca runs here: no tools, question dialog, slash commands, agenda, viewer, inspector,
 * toasts, start-up notice, leases, and no plan is read or written; the main instance does all that.
 */
export async function passiveHooks(input: PassiveInput, options: OrcaOptions): Promise<Hooks> {
  const log: RelayLog = (level, message) =>
    // The log is the last resort: a failing log call has nowhere left to report to.
    void input.client.app.log({ body: { service: 'orca', level, message } }).catch(() => {});
  const commonDir = await gitCommonDir(input.directory);
  const main = relayToMain(commonDir, log);
  log('info', `orca (passive) loaded for ${input.directory}`);
  if (!main.connected()) {
    log('warn', `no Orca instance of ${commonDir ?? 'this repository'} runs in this server: this worktree's sessions are not watched (idle timeout, usage, tool-failure breaker)`);
  }
  const cache = promptCacheHooks(promptCacheSettings(options.prompt_cache), (sessionID) => sessionPlan(input, sessionID), log);
  return {
    config: async (config) => {
      cache.agentsInstalled(applyAgents(config, agentOverrides(options), { planning: agentPlanning(options), worktree: true }));
      // Orca measures what a step changed itself, with git (docs/worktrees.md, "What a step's session loses"):
      // OpenCode's own snapshots of every model step in this folder would cost a store and a capture per slot.
      config.snapshot = false;
      // The main instance gets a slot ready ahead with one turn of this in-process agent (warmup.ts).
      registerWarmup(config);
    },
    // As in the main instance: the agent's prompt as a system message of its own, a cache key per plan and role.
    'experimental.chat.system.transform': async (_input, output) => cache.systemTransform(output),
    'chat.params': async (input, output) => cache.chatParams(input, output),
    event: async ({ event }) => main.event(event),
    // Where the main instance's tool-loop breaker acts on the step's sessions, which run here.
    'experimental.chat.messages.transform': async (_input, output) => main.beforeModelRequest(output.messages),
    // As in the main instance: a call to a tool the agent lacks is answered with what was called and what it has.
    'tool.execute.after': async (input, output) => {
      if (input.tool !== INVALID_TOOL) return;
      const text = unavailableToolText(input.args);
      if (text) output.output = text;
    },
  } satisfies Hooks;
}

/** The plan a session of this worktree belongs to, from the session's metadata (Orca wrote it when it opened the session). */
async function sessionPlan(input: PassiveInput, sessionID: string): Promise<string | undefined> {
  const res = await input.client.session.get({ path: { id: sessionID }, query: { directory: input.directory } });
  if (res.error) throw new Error(`session ${sessionID} not read: ${JSON.stringify(res.error)}`);
  return planIdOfMetadata((res.data as { metadata?: Record<string, unknown> } | undefined)?.metadata);
}
