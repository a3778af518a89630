export * from './abortable.js';
export * from './correction-prompt.js';
export * from './expected-shape.js';
export * from './format-issues.js';
export * from './json-candidates.js';
export * from './output-protocol-error.js';
export * from './parse-output.js';
export * from './structured-turn.js';
