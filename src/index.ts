// OpenCode calls every export of a plugin's entry as a plugin: export only the plugin.
export { OrcaPlugin } from './plugin.js';
