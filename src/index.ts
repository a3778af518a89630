// OpenCode calls every export of a plugin's entry as a plugin (https://github.com/anomalyco/opencode/issues/50021):
// export only the plugin.
export { OrcaPlugin } from './plugin.js';
