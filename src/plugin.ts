import type { Hooks, Plugin } from '@opencode-ai/plugin';
import { applyAgents } from './agents/apply.js';
import { loadOrcaConfig } from './config/load.js';
import { createOrca } from './composition-root.js';
import { guarded } from './engine/observers.js';
import { createSessionMonitor, toolFailureLimits } from './opencode/session-monitor.js';
import { startConfiguredInspector, type OrcaInspector } from './inspect/inspector.js';
import { NOTE_PREFIX, registerQuestionChannel } from './hitl/native-question/index.js';
import { isGateCommand, registerGateCommands, runGateCommand } from './hitl/commands.js';
import { waitingSummaries } from './persistence/plan-index.js';
import { askPlannerTool } from './tools/ask-planner.js';
import { askSpecialistTool } from './tools/ask-specialist.js';
import { describePlanTool } from './tools/describe-plan.js';
import { listPlansTool } from './tools/list-plans.js';
import { startConfiguredUi } from './ui/plugin-ui.js';

/**
 * Orca: a router, a planner and six specialists whose plans run as persisted statecharts.
 * Invalid plugin options refuse loudly (the plugin does not load) rather than run with guesses.
 */
export const OrcaPlugin: Plugin = async (input, rawOptions) => {
  const options = loadOrcaConfig(input.directory, rawOptions);
  let inspector: OrcaInspector | null = null; // actors are only created after this function returns
  // The monitor aborts and logs through orca, which needs the monitor for its ports: bind lazily.
  const monitor = createSessionMonitor({
    abort: (sessionId) => orca.sessions.abort(sessionId),
    log: (level, message) => orca.log(level, message),
    ...toolFailureLimits(options),
  });
  const orca = createOrca(input, options, { inspect: (event) => inspector?.inspect(event), monitor });
  const observeEvent = guarded('the session monitor', (event: Parameters<typeof monitor.observe>[0]) => monitor.observe(event), (level, message) => orca.log(level, message));
  orca.log('info', `orca loaded for ${input.directory}`);
  inspector = await startConfiguredInspector(options.inspect, orca.log);
  const ui = await startConfiguredUi(options.ui, input.directory, {
    log: orca.log,
    toast: (message) =>
      void input.client.tui
        .showToast({ body: { title: 'Orca', message, variant: 'info' }, query: { directory: input.directory } })
        .catch((error: Error) => orca.log('warn', `toast "${message}" not shown: ${error.message}`)),
  });
  return {
    config: async (config) => {
      applyAgents(config, options.agents ?? {});
      const channel = registerQuestionChannel(config);
      if (channel.registered) registerGateCommands(config);
      else orca.log('warn', `question dialog and slash commands unavailable: ${channel.reason}`);
    },
    'command.execute.before': async (input, output) => {
      if (!isGateCommand(input.command)) return;
      let note: string;
      try {
        note = runGateCommand(orca, input.command, input.arguments, input.sessionID);
      } catch (error) {
        note = `Orca: /${input.command} did nothing. ${(error as Error).message}`;
      }
      // The command's turn goes to the in-process orca-hitl model, which says the note back: no model request.
      const first = output.parts[0];
      output.parts.splice(0, output.parts.length, { ...(first ?? {}), type: 'text', text: `${NOTE_PREFIX} ${note}` } as (typeof output.parts)[number]);
    },
    // Every event of the server passes here: one the monitor cannot read is logged once, never thrown back at OpenCode.
    event: async ({ event }) => observeEvent(event),
    // Runs before every model request with the session's transcript: where the tool-loop breaker acts.
    'experimental.chat.messages.transform': async (_input, output) => monitor.beforeModelRequest(output.messages),
    tool: {
      orca_ask_planner: askPlannerTool(orca),
      orca_list_plans: listPlansTool(orca),
      orca_describe_plan: describePlanTool(orca),
      orca_ask_specialist: askSpecialistTool(orca),
    },
    // A plan waiting on a human must not be pushed on by an automatic "continue" after compaction.
    'experimental.compaction.autocontinue': async (input, output) => {
      const waiting = waitingSummaries(orca.host.index).filter((p) => p.caller_session_id === input.sessionID);
      if (waiting.length === 0) return;
      output.enabled = false;
      orca.log('info', `auto-continue after compaction suppressed: ${waiting.map((p) => `${p.plan_id} waits for ${p.waiting_for}`).join(', ')}`);
    },
    dispose: async () => {
      await orca.dispose();
      await inspector?.stop();
      await ui?.stop();
    },
  } satisfies Hooks;
};
