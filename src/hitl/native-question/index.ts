export { createQuestionAsker, questionAskerFor, type AskInput, type AskOutcome, type AskerOptions, type QuestionAsker } from './asker.js';
export { questionSessionsFromClient, QUESTION_TOOLS, type QuestionSessions } from './client-sessions.js';
export { QUESTION_AGENT_ID, QUESTION_MODEL, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './ids.js';
export { decodeQuestionPayload, encodeQuestionPayload, toToolQuestions, type QuestionPayload, type ToolQuestion } from './payload.js';
export { findQuestionPart, partOutcome, type PartOutcome, type QuestionPartState } from './question-part.js';
export { DONE_TEXT, NOTE_PREFIX, nextTurn, questionModelFetch } from './question-model.js';
export { registerQuestionChannel, type QuestionChannelConfigTarget, type QuestionChannelRegistration } from './register.js';
export { findRootSession, type ParentLookup } from './root-session.js';
export { sseBody, sseEvents, type ModelTurn } from './sse.js';
