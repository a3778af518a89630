export { inspectCommand, describeReplay, type InspectCommandOptions } from './inspect-command.js';
export { InspectorError } from './inspector-error.js';
export { startConfiguredInspector, startInspector, type OrcaInspector, type StartInspectorOptions } from './inspector.js';
export { startRelay, STATELY_INSPECT_URL, type InspectorRelay, type RelayOptions } from './relay.js';
export { replayPlan, type ReplayResult } from './replay.js';
export { DEFAULT_INSPECT_PORT, inspectOption, inspectorSettings, type InspectOption, type InspectorSettings } from './settings.js';
