// The opencode.json a test server runs with: one fake provider pointing at the scripted
// model, nothing that reaches the network, plus whatever the test merges in.

export const FAKE_MODEL = { providerID: 'fake', modelID: 'fake-model' } as const;

export type ConfigInput = {
  modelUrl: string;
  plugins?: string[];
  config?: Record<string, unknown>;
};

export function buildOpencodeConfig({ modelUrl, plugins = [], config = {} }: ConfigInput): Record<string, unknown> {
  const base = {
    $schema: 'https://opencode.ai/config.json',
    model: `${FAKE_MODEL.providerID}/${FAKE_MODEL.modelID}`,
    small_model: `${FAKE_MODEL.providerID}/${FAKE_MODEL.modelID}`,
    enabled_providers: [FAKE_MODEL.providerID],
    autoupdate: false,
    share: 'disabled',
    provider: {
      [FAKE_MODEL.providerID]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted test model',
        options: { baseURL: modelUrl, apiKey: 'scripted' },
        models: {
          [FAKE_MODEL.modelID]: { name: 'Scripted model', tool_call: true, limit: { context: 100_000, output: 4096 } },
        },
      },
    },
  };
  const merged = deepMerge(base, config);
  // Plugins from both places are kept: a test passing `config.plugin` means "also these".
  const extra = Array.isArray(config.plugin) ? (config.plugin as unknown[]) : [];
  merged.plugin = [...plugins, ...extra];
  return merged;
}

/** Objects merge key by key; anything else (arrays included) in `patch` replaces `base`. */
export function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
