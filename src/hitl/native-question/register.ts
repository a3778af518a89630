import { QUESTION_AGENT_ID, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './ids.js';
import { questionModelFetch } from './question-model.js';

/** The part of OpenCode's config (as the `config` hook receives it) this module writes. */
export interface QuestionChannelConfigTarget {
  model?: unknown;
  provider?: unknown;
  agent?: unknown;
  enabled_providers?: unknown;
  disabled_providers?: unknown;
}

const AGENT_PROMPT =
  'You relay questions from the Orca plugin to the human with the question tool. ' +
  'This agent is driven by an in-process script, not by a language model.';

export type QuestionChannelRegistration = { registered: true } | { registered: false; reason: string };

/**
 * Installs the native question channel (call it from the plugin's `config` hook; calling it again
 * changes nothing): an openai-compatible provider whose `fetch` answers in process with a
 * `question` tool call, and a hidden agent allowed to use only the question tool (custom agents get
 * `question: "deny"` by default). An `enabled_providers` list gets the provider added, or OpenCode
 * would drop it.
 *
 * It installs nothing when the user disabled the provider, or when the config sets no `model`:
 * OpenCode 1.18 then picks its default model among the providers named in `cfg.provider` (all of
 * them when there are none), so a config without a `provider` section would make this fake model
 * everybody's default, the planner's included (https://github.com/anomalyco/opencode/issues/47815).
 * `allowWithoutModel` skips that guard. The asker reports the channel unavailable when nothing was
 * installed.
 */
export function registerQuestionChannel(
  cfg: QuestionChannelConfigTarget,
  { allowWithoutModel = false }: { allowWithoutModel?: boolean } = {},
): QuestionChannelRegistration {
  const disabled = cfg.disabled_providers;
  if (Array.isArray(disabled) && disabled.includes(QUESTION_PROVIDER_ID)) {
    return { registered: false, reason: `"${QUESTION_PROVIDER_ID}" is in disabled_providers` };
  }
  if (!allowWithoutModel && !(typeof cfg.model === 'string' && cfg.model.includes('/'))) {
    return {
      registered: false,
      reason: 'opencode.json sets no "model", and without one OpenCode could pick the question model as its default model',
    };
  }
  if (!isRecord(cfg.provider)) cfg.provider = {};
  (cfg.provider as Record<string, unknown>)[QUESTION_PROVIDER_ID] = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Orca questions (plugin dialog, no model)',
    options: { baseURL: 'http://orca-hitl.invalid/v1', apiKey: 'orca-hitl', fetch: questionModelFetch },
    models: {
      [QUESTION_MODEL_ID]: {
        name: 'Orca plugin (no model)',
        tool_call: true,
        attachment: false,
        reasoning: false,
        temperature: false,
        cost: { input: 0, output: 0 },
        limit: { context: 1_000_000, output: 8192 },
      },
    },
  };
  const enabled = cfg.enabled_providers;
  if (Array.isArray(enabled) && !enabled.includes(QUESTION_PROVIDER_ID)) enabled.push(QUESTION_PROVIDER_ID);
  if (!isRecord(cfg.agent)) cfg.agent = {};
  (cfg.agent as Record<string, unknown>)[QUESTION_AGENT_ID] = {
    mode: 'subagent',
    hidden: true,
    description: 'Orca: shows a plugin question dialog (no model involved)',
    model: `${QUESTION_PROVIDER_ID}/${QUESTION_MODEL_ID}`,
    prompt: AGENT_PROMPT,
    permission: { '*': 'deny', question: 'allow' },
  };
  return { registered: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
