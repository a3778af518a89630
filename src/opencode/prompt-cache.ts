import { findAgentMarker } from '../agents/prompts/marker.js';
import { isInstalledAgentId } from '../agents/roles.js';
import { errorMessage } from '../errors.js';

/**
 * What providers may cache of an Orca agent's requests (docs/usage.md, "What the provider caches").
 *
 * OpenCode 1.18 sends one system message: the agent's prompt, then an `<env>` block (model, working
 * directory, platform, today's date), AGENTS.md and skills. The agent's prompt is the same for
 * every step of a role; the working directory is not once steps run in worktrees of their own, nor
 * the date across midnight. Split in two, the stable part is a system message of its own, which
 * OpenCode marks as a cache breakpoint for Anthropic-like providers (it marks the first two system
 * messages and the last two messages), so sibling steps read the tools and the agent's prompt
 * from the cache instead of paying for them again.
 *
 * For OpenAI-family providers OpenCode sets a prompt cache key per session: a step's first request
 * then never shares a cache with its siblings'. The key per plan and role routes them together.
 */

/** The option `prompt_cache.key`: one key per plan and role (default), or OpenCode's per session. */
export type CacheKeyScope = 'plan-role' | 'session';

/**
 * `system` as OpenCode built it, split after the prompt of the Orca agent it starts with, in place:
 * [agent prompt, the rest]. Left alone when it is not one of Orca's agents, when the agent's prompt
 * is not its start (a transform of another plugin came first), or when it is already split.
 * `prompts`: each installed agent's full prompt, by agent id, as the `config` hook installed it.
 */
export function splitSystemPrompt(system: string[], prompts: ReadonlyMap<string, string>): boolean {
  if (system.length !== 1) return false;
  const whole = system[0]!;
  const agent = findAgentMarker(whole);
  const prompt = agent === undefined ? undefined : prompts.get(agent);
  if (prompt === undefined || !whole.startsWith(`${prompt}\n`)) return false;
  const rest = whole.slice(prompt.length + 1);
  if (!rest.trim()) return false;
  system.splice(0, 1, prompt, rest);
  return true;
}

/** Where a session belongs: the plan an Orca session was opened for (its `metadata.orca.plan_id`), if any. */
export type PlanOfSession = (sessionID: string) => Promise<string | undefined>;

export interface CacheKeysOptions {
  scope: CacheKeyScope;
  planOf: PlanOfSession;
  log: (level: 'warn', message: string) => void;
}

/** The provider option names under which OpenCode 1.18 sets the session's cache key. */
const KEY_OPTIONS = ['promptCacheKey', 'prompt_cache_key'] as const;

/**
 * The `chat.params` side: for a request of one of Orca's agents in a session of a plan, where
 * OpenCode set the cache key to the session id, the key becomes `orca-<plan>-<agent>`. Nothing is
 * added where OpenCode set none (the provider has no such key), and nothing changes for other
 * agents, sessions of no plan, or with the scope "session". A failed lookup leaves OpenCode's key.
 */
export function createCacheKeys({ scope, planOf, log }: CacheKeysOptions) {
  const plans = new Map<string, Promise<string | undefined>>();
  let warned = false;
  const lookup = (sessionID: string): Promise<string | undefined> => {
    let found = plans.get(sessionID);
    if (!found) {
      found = planOf(sessionID).catch((error: unknown) => {
        plans.delete(sessionID);
        if (!warned) log('warn', `prompt cache key left per session: ${errorMessage(error)}`);
        warned = true;
        return undefined;
      });
      plans.set(sessionID, found);
    }
    return found;
  };
  return async function applyCacheKey(input: { sessionID: string; agent: string }, options: Record<string, unknown>): Promise<void> {
    if (scope === 'session' || !isInstalledAgentId(input.agent)) return;
    const names = KEY_OPTIONS.filter((name) => options[name] === input.sessionID);
    if (names.length === 0) return;
    const planId = await lookup(input.sessionID);
    if (planId === undefined) return;
    for (const name of names) options[name] = cacheKey(planId, input.agent);
  };
}

/** The shared key of a plan's sessions of one role. */
export function cacheKey(planId: string, agent: string): string {
  return `orca-${planId}-${agent}`;
}

/** A session's plan from its metadata, as Orca's session ports write it (`metadata.orca.plan_id`). */
export function planIdOfMetadata(metadata: Record<string, unknown> | undefined): string | undefined {
  const orca = metadata?.orca;
  const planId = typeof orca === 'object' && orca !== null ? (orca as { plan_id?: unknown }).plan_id : undefined;
  return typeof planId === 'string' ? planId : undefined;
}

/** The prompt_cache option as the hooks use it; defaults filled in. */
export interface PromptCacheSettings {
  key: CacheKeyScope;
  splitSystem: boolean;
}

export function promptCacheSettings(option: { key?: CacheKeyScope; split_system?: boolean } | undefined): PromptCacheSettings {
  return { key: option?.key ?? 'plan-role', splitSystem: option?.split_system ?? true };
}

/**
 * The two OpenCode hooks of the prompt cache, for an instance (the project's, or a step worktree's):
 * `agentsInstalled` takes what the `config` hook installed, `systemTransform` and `chatParams` are
 * the `experimental.chat.system.transform` and `chat.params` hooks. Neither ever throws at OpenCode.
 */
export function promptCacheHooks(settings: PromptCacheSettings, planOf: PlanOfSession, log: (level: 'warn', message: string) => void) {
  const prompts = new Map<string, string>();
  const applyCacheKey = createCacheKeys({ scope: settings.key, planOf, log });
  return {
    agentsInstalled(installed: Readonly<Record<string, { prompt: string }>>): void {
      prompts.clear();
      for (const [id, agent] of Object.entries(installed)) prompts.set(id, agent.prompt);
    },
    async systemTransform(output: { system: string[] }): Promise<void> {
      if (settings.splitSystem) splitSystemPrompt(output.system, prompts);
    },
    async chatParams(input: { sessionID: string; agent: string }, output: { options: Record<string, unknown> }): Promise<void> {
      try {
        await applyCacheKey(input, output.options);
      } catch (error) {
        log('warn', `prompt cache key not set: ${errorMessage(error)}`);
      }
    },
  };
}
