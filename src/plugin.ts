import type { Hooks, Plugin } from '@opencode-ai/plugin';
import { applyAgents } from './agents/apply.js';
import { INVALID_TOOL } from './agents/permissions.js';
import { loadOrcaConfig } from './config/load.js';
import { agentOverrides, askPlannerReturns, startupPruneRules } from './config/options.js';
import { agentPlanning } from './config/policy.js';
import { createOrca } from './composition-root.js';
import { guarded } from './host/observers.js';
import { createSessionMonitor, toolFailureLimits } from './opencode/session-monitor.js';
import { createToolActivity } from './opencode/tool-activity.js';
import { unavailableToolText } from './opencode/tool-failures.js';
import { createUsageMeter } from './opencode/usage-meter.js';
import { logOpencodeVersion } from './opencode/server-version.js';
import { planIdOfMetadata, promptCacheHooks, promptCacheSettings } from './opencode/prompt-cache.js';
import { startConfiguredInspector, type OrcaInspector } from './inspect/inspector.js';
import { NOTE_PREFIX, registerQuestionChannel } from './hitl/native-question/index.js';
import { registerGateCommands, registerNoteCommand, runGateCommand } from './hitl/commands.js';
import { isGateCommand } from './decisions/gate-commands.js';
import { isPlanCommand, PLAN_COMMANDS, runPlanCommand } from './hitl/plan-commands.js';
import { isRewindCommand, REWIND_COMMANDS, runRewindCommand } from './hitl/rewind-commands.js';
import { listSummaries, waitingSummaries } from './persistence/plan-index.js';
import { pruneInBackground } from './persistence/prune.js';
import { AGENDA_COMMANDS, isAgendaCommand, runAgendaCommand } from './agenda/bridges/slash-commands.js';
import { inspectAgendaItems } from './inspect/agenda-actors.js';
import { compactionContext } from './opencode/compaction.js';
import { createIdleReminder } from './notices/idle-reminder.js';
import { agendaTool } from './tools/agenda.js';
import { askPlannerTool } from './tools/ask-planner.js';
import { askSpecialistTool } from './tools/ask-specialist.js';
import { describePlanTool } from './tools/describe-plan.js';
import { listPlansTool } from './tools/list-plans.js';
import { startConfiguredUi } from './ui/plugin-ui.js';
import { forMarkdown, isRestoreMessage } from './notices/session-notes.js';
import { errorMessage } from './errors.js';
import { isOrcaWorktree } from './passive/detect.js';
import { passiveHooks } from './passive/plugin.js';
import { registerMainInstanceOf } from './passive/relay.js';
import { workspaceSupport } from './workspace/index.js';

/**
 * Orca: a router, a planner and six specialists whose plans run as persisted statecharts.
 * Invalid plugin options refuse loudly (the plugin does not load) rather than run with guesses.
 */
export const OrcaPlugin: Plugin = async (input, rawOptions) => {
  // OpenCode loads the plugin again for a step's worktree: there Orca only installs its agents and relays to this instance.
  if (isOrcaWorktree(input.directory)) return passiveHooks(input, loadOrcaConfig(input.directory, rawOptions));
  const options = loadOrcaConfig(input.directory, rawOptions);
  // The planner schedules through the agenda's one tool unless the project turns it off (issues 26 and 35: what every request carries).
  const agendaForModels = options.agenda?.tools !== false;
  // orca_ask_planner returns as soon as the plan waits for a person or runs, the session following it (ask_planner_returns: early), or at its outcome.
  const returns = askPlannerReturns(options);
  let inspector: OrcaInspector | null = null; // actors are only created after this function returns
  // The monitor aborts and logs through orca, which needs the monitor for its ports: bind lazily.
  const monitor = createSessionMonitor({
    abort: (sessionId) => orca.sessions.abort(sessionId),
    log: (level, message) => orca.log(level, message),
    ...toolFailureLimits(options),
  });
  // The earlier model requests of a prompt that called tools are known only from message.updated events.
  const meter = createUsageMeter();
  // When each session's tool calls last ran: a step in the shared tree is measured by a snapshot begun after its last one.
  const toolActivity = createToolActivity();
  // What git can do here decides where file-changing steps work (issue 25): a few git calls, once.
  const support = await workspaceSupport(input.directory);
  const orca = createOrca(input, options, { inspect: (event) => inspector?.inspect(event), monitor, meter, support, toolActivity });
  const log = (level: 'warn' | 'error', message: string) => orca.log(level, message);
  const cache = promptCacheHooks(promptCacheSettings(options.prompt_cache), async (sessionID) => planIdOfMetadata((await orca.sessions.get(sessionID))?.metadata), log);
  const observeSession = guarded('the session monitor', (event: Parameters<typeof monitor.observe>[0]) => monitor.observe(event), log);
  const observeUsage = guarded('the usage meter', (event: Parameters<typeof meter.observe>[0]) => meter.observe(event), log);
  const observeTools = guarded('the tool activity', (event: Parameters<typeof toolActivity.observe>[0]) => toolActivity.observe(event), log);
  const observeEvent = (event: Parameters<typeof monitor.observe>[0]) => {
    observeSession(event);
    observeUsage(event);
    observeTools(event);
  };
  // The steps' worktree instances hand this one their events and model requests (src/passive/).
  const unregisterMain = registerMainInstanceOf(
    input.directory,
    { event: observeEvent, beforeModelRequest: (messages) => monitor.beforeModelRequest(messages) },
    orca.log,
  );
  const observeNotes = guarded('the session notes', (event: Parameters<typeof orca.notes.observe>[0]) => orca.notes.observe(event), log);
  const observeStartup = guarded('the start-up notice', (event: { type: string }) => orca.startup.observe(event), log);
  orca.log('info', `orca loaded for ${input.directory}`);
  void logOpencodeVersion(input.client, orca.log); // which OpenCode, and a warning outside the supported range: never waited for
  // The prune option (off unless set): old plans removed once, off the start-up path, then dropped from the index.
  const pruneRules = startupPruneRules(options);
  const pruning = pruneRules && pruneInBackground(orca.store, pruneRules, { log: orca.log, onRemoved: (planId) => orca.host.index.trigger.remove({ planId }) });
  inspector = await startConfiguredInspector(options.inspect, orca.log);
  const ui = await startConfiguredUi(options.ui, input.directory, {
    log: orca.log,
    rewind: orca.rewind,
    toast: (message) => orca.showToast({ title: 'Orca', message, variant: 'info' }),
  });
  // The agenda's items as actors in the inspector, only while it is on (and once this process runs the agenda).
  if (inspector) orca.agenda.onOpen((agenda) => inspectAgendaItems(agenda, (event) => inspector?.inspect(event)));
  const remind = createIdleReminder({
    plans: () => listSummaries(orca.host.index),
    items: () => orca.agenda.list(),
    show: orca.showToast,
    isRoot: async (sessionID) => (await orca.sessions.get(sessionID))?.parentID === undefined,
  });
  const observeIdle = guarded('the idle reminder', (event: Parameters<typeof remind>[0]) => void remind(event).catch((error: unknown) => orca.log('warn', `the idle reminder failed: ${errorMessage(error)}`)), (level, message) => orca.log(level, message));
  return {
    config: async (config) => {
      cache.agentsInstalled(applyAgents(config, agentOverrides(options), { planning: agentPlanning(options), agenda: agendaForModels, detach: returns === 'early' }));
      const channel = registerQuestionChannel(config);
      if (channel.registered) {
        registerGateCommands(config);
        for (const [name, description] of Object.entries({ ...PLAN_COMMANDS, ...REWIND_COMMANDS, ...AGENDA_COMMANDS })) registerNoteCommand(config, name, description);
      } else orca.log('warn', `question dialog and slash commands unavailable: ${channel.reason}`);
    },
    // A turn starting: a restore of the session's model still on its way must not land after its message
    // (the restore's own message comes through here too, and never waits for itself).
    'chat.message': async (input, output) => {
      if (!isRestoreMessage(output.parts)) await orca.notes.turnStarting(input.sessionID);
    },
    'command.execute.before': async (input, output) => {
      await orca.notes.turnStarting(input.sessionID);
      if (!isGateCommand(input.command) && !isPlanCommand(input.command) && !isRewindCommand(input.command) && !isAgendaCommand(input.command)) return;
      // The command's turn runs on the in-process model: give the session its own model back after it.
      orca.notes.restoreAfterTurn(input.sessionID);
      let note: string;
      try {
        note = isGateCommand(input.command)
          ? runGateCommand(orca, input.command, input.arguments, input.sessionID)
          : isPlanCommand(input.command)
            ? await runPlanCommand(orca, input.command, input.arguments, input.sessionID)
            : isRewindCommand(input.command)
              ? await runRewindCommand(orca, input.command, input.arguments, input.sessionID)
              : await runAgendaCommand(orca, input.command as Parameters<typeof runAgendaCommand>[1], input.arguments);
      } catch (error) {
        note = `Orca: /${input.command} did nothing. ${errorMessage(error)}`;
      }
      // The command's turn goes to the in-process orca-hitl model, which says the note back: no model
      // request. The user's message shows the command as typed; the note rides along hidden
      // (synthetic), so the TUI shows it once, as the reply.
      const first = output.parts[0];
      const typed = `/${input.command}${input.arguments.trim() ? ` ${input.arguments.trim()}` : ''}`;
      output.parts.splice(
        0,
        output.parts.length,
        { ...(first ?? {}), type: 'text', text: typed } as (typeof output.parts)[number],
        { type: 'text', text: `${NOTE_PREFIX} ${forMarkdown(note)}`, synthetic: true } as (typeof output.parts)[number],
      );
    },
    // Every event of the server passes here: one the monitor cannot read is logged once, never thrown back at OpenCode.
    event: async ({ event }) => {
      observeEvent(event);
      observeIdle(event);
      observeNotes(event);
      observeStartup(event);
    },
    // What providers may cache: the agent's prompt as a system message of its own, a cache key per plan and role.
    'experimental.chat.system.transform': async (_input, output) => cache.systemTransform(output),
    'chat.params': async (input, output) => cache.chatParams(input, output),
    // Runs before every model request with the session's transcript: where the tool-loop breaker acts, and
    // where a session is told what Orca learnt since its turn began (the checks failing before a plan, for its planner).
    'experimental.chat.messages.transform': async (_input, output) => {
      await monitor.beforeModelRequest(output.messages);
      orca.requestNotes.beforeModelRequest(output.messages);
    },
    // Around every tool call, on its path (OpenCode awaits both): when a session last could have written to the tree.
    // After: also, a call to a tool the agent lacks reaches OpenCode's `invalid` tool: say plainly what was called and what the agent has.
    'tool.execute.before': async (input) => toolActivity.before(input),
    'tool.execute.after': async (input, output) => {
      toolActivity.after(input);
      if (input.tool !== INVALID_TOOL) return;
      const text = unavailableToolText(input.args);
      if (text) output.output = text;
    },
    tool: {
      orca_ask_planner: askPlannerTool(orca, { viewerUrl: () => ui?.url, returns }),
      orca_list_plans: listPlansTool(orca),
      orca_describe_plan: describePlanTool(orca),
      orca_ask_specialist: askSpecialistTool(orca),
      // The agenda's tool exists unless the agents are not to use it (agenda.tools false; docs/agents.md).
      ...(agendaForModels ? { agenda: agendaTool(orca) } : {}),
    },
    // The compacted session keeps its unfinished plans and pending items, read from disk, not from the transcript.
    'experimental.session.compacting': async (input, output) => {
      try {
        const context = compactionContext(input.sessionID, listSummaries(orca.host.index), orca.agenda.list());
        if (context) output.context.push(context);
      } catch (error) {
        orca.log('warn', `compaction context not added: ${errorMessage(error)}`);
      }
    },
    // A plan waiting on a human must not be pushed on by an automatic "continue" after compaction.
    'experimental.compaction.autocontinue': async (input, output) => {
      const waiting = waitingSummaries(orca.host.index).filter((p) => p.caller_session_id === input.sessionID);
      if (waiting.length === 0) return;
      output.enabled = false;
      orca.log('info', `auto-continue after compaction suppressed: ${waiting.map((p) => `${p.plan_id} waits for ${p.waiting_for}`).join(', ')}`);
    },
    dispose: async () => {
      unregisterMain();
      // First: from here on Orca calls nothing of OpenCode's (a call would boot this instance again; createOrca).
      await orca.dispose();
      await pruning?.stop();
      await inspector?.stop();
      await ui?.stop();
    },
  } satisfies Hooks;
};
