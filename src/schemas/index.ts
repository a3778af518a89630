export * from './hitl-question.js';
export * from './json-schema.js';
export * from './plan-graph.js';
export * from './planner-output.js';
export * from './specialist-agents.js';
export * from './specialist-output.js';
export * from './review-output.js';
export * from './verification-output.js';
