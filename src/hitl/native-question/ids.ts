/** Names the native question channel installs into OpenCode's config (visible in /models and GET /agent). */
export const QUESTION_PROVIDER_ID = 'orca-hitl';
export const QUESTION_MODEL_ID = 'question';
export const QUESTION_AGENT_ID = 'orca-hitl';

/** The provider/model pair a prompt passes to route its turn to the in-process question model. */
export const QUESTION_MODEL = { providerID: QUESTION_PROVIDER_ID, modelID: QUESTION_MODEL_ID } as const;
