export { inspectPlan, describeReplay, type InspectPlanOptions } from './inspect-command.js';
export { startConfiguredInspector, startInspector, type OrcaInspector, type StartInspectorOptions } from './inspector.js';
export { startRelay, STATELY_INSPECT_URL, type InspectorRelay, type RelayOptions } from './relay.js';
export { replayPlan, type ReplayResult } from './replay.js';
