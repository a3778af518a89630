import { QUESTION_AGENT_ID, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './ids.js';
import { questionModelFetch } from './question-model.js';

/** The part of OpenCode's config (as the `config` hook receives it) this module writes. */
export interface QuestionChannelConfigTarget {
  provider?: unknown;
  agent?: unknown;
  enabled_providers?: unknown;
  disabled_providers?: unknown;
}

const AGENT_PROMPT =
  'You relay questions from the Orca plugin to the human with the question tool. ' +
  'This agent is driven by an in-process script, not by a language model.';

/**
 * Installs the native question channel (call it from the plugin's `config` hook; calling it again
 * changes nothing): an openai-compatible provider whose `fetch` answers in process with a
 * `question` tool call, and a hidden agent allowed to use only the question tool (custom agents
 * get `question: "deny"` by default). An `enabled_providers` list gets the provider added, or
 * OpenCode would drop it; `disabled_providers` is respected, and the asker then reports the
 * channel unavailable. Returns false when the user has disabled the provider.
 */
export function registerQuestionChannel(cfg: QuestionChannelConfigTarget): boolean {
  if (!isRecord(cfg.provider)) cfg.provider = {};
  (cfg.provider as Record<string, unknown>)[QUESTION_PROVIDER_ID] = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Orca questions (plugin dialog, no model)',
    options: { baseURL: 'http://orca-hitl.invalid/v1', apiKey: 'orca-hitl', fetch: questionModelFetch },
    models: {
      [QUESTION_MODEL_ID]: {
        name: 'Orca question dialog (not a model)',
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
  const disabled = cfg.disabled_providers;
  return !(Array.isArray(disabled) && disabled.includes(QUESTION_PROVIDER_ID));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
