import type { Config } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import { QUESTION_AGENT_ID, QUESTION_PROVIDER_ID } from '../../../src/hitl/native-question/ids.js';
import { questionModelFetch } from '../../../src/hitl/native-question/question-model.js';
import { registerQuestionChannel } from '../../../src/hitl/native-question/register.js';

describe('registerQuestionChannel', () => {
  it('should add the in-process provider and a hidden agent that may only ask questions', () => {
    const cfg: Config = {};
    expect(registerQuestionChannel(cfg)).toBe(true);
    const provider = (cfg.provider as Record<string, any>)[QUESTION_PROVIDER_ID];
    expect(provider).toMatchObject({ npm: '@ai-sdk/openai-compatible', models: { question: { tool_call: true } } });
    expect(provider.options.fetch).toBe(questionModelFetch);
    expect((cfg.agent as Record<string, unknown>)[QUESTION_AGENT_ID]).toMatchObject({
      mode: 'subagent',
      hidden: true,
      model: 'orca-hitl/question',
      permission: { '*': 'deny', question: 'allow' },
    });
  });

  it('should keep what the user and other parts of the plugin configured', () => {
    const cfg: Record<string, any> = { provider: { fake: { npm: 'x' } }, agent: { orca: { mode: 'primary' } } };
    registerQuestionChannel(cfg);
    expect(Object.keys(cfg.provider)).toEqual(['fake', QUESTION_PROVIDER_ID]);
    expect(Object.keys(cfg.agent)).toEqual(['orca', QUESTION_AGENT_ID]);
  });

  it('should be idempotent', () => {
    const cfg: Record<string, any> = { enabled_providers: ['fake'] };
    registerQuestionChannel(cfg);
    const once = structuredClone({ ...cfg, provider: { ...cfg.provider, [QUESTION_PROVIDER_ID]: { ...cfg.provider[QUESTION_PROVIDER_ID], options: {} } } });
    registerQuestionChannel(cfg);
    const twice = structuredClone({ ...cfg, provider: { ...cfg.provider, [QUESTION_PROVIDER_ID]: { ...cfg.provider[QUESTION_PROVIDER_ID], options: {} } } });
    expect(twice).toEqual(once);
    expect(cfg.enabled_providers).toEqual(['fake', QUESTION_PROVIDER_ID]);
  });

  it('should respect a user who disabled the provider', () => {
    const cfg: Record<string, unknown> = { disabled_providers: [QUESTION_PROVIDER_ID] };
    expect(registerQuestionChannel(cfg)).toBe(false);
  });
});
