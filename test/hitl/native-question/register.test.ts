import type { Config } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import { QUESTION_AGENT_ID, QUESTION_PROVIDER_ID } from '../../../src/hitl/native-question/ids.js';
import { questionModelFetch } from '../../../src/hitl/native-question/question-model.js';
import { registerQuestionChannel } from '../../../src/hitl/native-question/register.js';

const withoutFetch = (cfg: Record<string, any>) =>
  structuredClone({ ...cfg, provider: { ...cfg.provider, [QUESTION_PROVIDER_ID]: { ...cfg.provider[QUESTION_PROVIDER_ID], options: {} } } });

describe('registerQuestionChannel', () => {
  it('should add the in-process provider and a hidden agent that may only ask questions', () => {
    const cfg: Config = { model: 'anthropic/claude-sonnet-4' };
    expect(registerQuestionChannel(cfg)).toEqual({ registered: true });
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
    const cfg: Record<string, any> = { model: 'fake/m', provider: { fake: { npm: 'x' } }, agent: { orca: { mode: 'primary' } } };
    registerQuestionChannel(cfg);
    expect(Object.keys(cfg.provider)).toEqual(['fake', QUESTION_PROVIDER_ID]);
    expect(Object.keys(cfg.agent)).toEqual(['orca', QUESTION_AGENT_ID]);
  });

  it('should be idempotent, and add itself to an enabled_providers list once', () => {
    const cfg: Record<string, any> = { model: 'fake/m', enabled_providers: ['fake'] };
    registerQuestionChannel(cfg);
    const once = withoutFetch(cfg);
    registerQuestionChannel(cfg);
    expect(withoutFetch(cfg)).toEqual(once);
    expect(cfg.enabled_providers).toEqual(['fake', QUESTION_PROVIDER_ID]);
  });

  it('should install nothing when the user disabled the provider', () => {
    const cfg: Record<string, unknown> = { model: 'fake/m', disabled_providers: [QUESTION_PROVIDER_ID] };
    expect(registerQuestionChannel(cfg)).toEqual({ registered: false, reason: expect.stringMatching(/disabled_providers/) });
    expect(cfg.provider).toBeUndefined();
  });

  it('should install nothing without a default model, so it can never become the default', () => {
    const cfg: Record<string, unknown> = {};
    expect(registerQuestionChannel(cfg)).toEqual({ registered: false, reason: expect.stringMatching(/no "model"/) });
    expect(cfg).toEqual({});
    expect(registerQuestionChannel(cfg, { allowWithoutModel: true })).toEqual({ registered: true });
  });
});
