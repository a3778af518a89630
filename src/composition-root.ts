import type { PluginInput } from '@opencode-ai/plugin';
import type { OrcaOptions } from './config/options.js';
import { opencodePorts } from './opencode/session-ports.js';
import { qualityPorts } from './opencode/quality-ports.js';
import { planPolicy } from './config/policy.js';
import type { SessionMonitor } from './opencode/session-monitor.js';
import type { ToolActivity } from './opencode/tool-activity.js';
import { PlanHost, type PlanHostOptions } from './host/plan-host.js';
import { PlanStore } from './persistence/plan-store.js';
import type { PlanFields } from './persistence/plan-file.js';
import { appendJournal, type JournalEntry } from './persistence/journal.js';
import { safeToasts, watchForToasts, type Toast } from './notices/toasts.js';
import { interruptedPlans, listSummaries } from './persistence/plan-index.js';
import { sessionsFromClient, type SessionsPort } from './opencode/sessions.js';
import { createQuestionAsker, NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL, type QuestionAsker } from './hitl/native-question/index.js';
import { AgendaRuntime } from './agenda/runtime.js';
import { agendaActions, type CommandRunner } from './agenda/bridges/plan-actions.js';
import { publishLifecycle } from './agenda/bridges/plan-lifecycle.js';
import { PlanFollower } from './host/follow.js';
import { autoChoice } from './decisions/auto-policy.js';
import { autoAnswer } from './hitl/resolve.js';
import { commandRunnerFromClient } from './agenda/bridges/command-runner.js';
import type { CoercionRecord, CountInPlan, TurnRecord } from './opencode/turn-port.js';
import { journalUncountedUsage } from './opencode/uncounted-usage.js';
import { totalTokens } from './machines/usage.js';
import { DEFAULT_CONCURRENCY } from './machines/plan.machine.js';
import type { UsageMeter } from './opencode/usage-meter.js';
import { createUsageHistory, USAGE_HISTORY_NAME, type UsageHistory } from './usage/history.js';
import { join } from 'node:path';
import { toolTitlesFromClient, type ToolTitlePort } from './opencode/tool-title.js';
import { createTurnRunner, type ReconcileRecord } from './opencode/turn-runner.js';
import { journalProtocolMemory } from './opencode/protocol-memory.js';
import { DEFAULT_VERIFY_SECONDS, modelOf, outputProtocolOf } from './config/options.js';
import { planFollowers, watchForNotes, type PlanFollowers } from './notices/plan-notes.js';
import { notePortsWith, sessionNotes, type SessionNotes } from './notices/session-notes.js';
import { startupNotice, unfinishedPlansToast, type StartupNotice } from './notices/startup-notice.js';
import { errorMessage } from './errors.js';
import type { QualityPorts, WorkspacePorts } from './machines/ports.js';
import type { WorkspaceKind } from './machines/types.js';
import { isolationSettings } from './config/options.js';
import { createWorkspaces, type GitRepository, type Workspaces, type WorkspaceSupport } from './workspace/index.js';
import { workspaceKindOf, workspaceKindText } from './workspace/kind.js';
import { clientUntilEnded, closeDirectoryWith } from './opencode/instances.js';
import { runChecks, verifyPort } from './opencode/verify-port.js';
import { createRequestNotes, type RequestNotes } from './opencode/request-notes.js';
import { createBaseChecks, type BaseChecks } from './workspace/base-checks.js';
import { failingChecks, plannerFailuresNote } from './prompts/base-failures.js';
import { settleInterruptedRewinds, type RewindDeps } from './rewind/rewind-plan.js';
import { recoveredText } from './rewind/rewind-words.js';
import { warmSlotWith } from './passive/warmup.js';
import { worktreesWanted } from './machines/threading.js';
import { hasLiveSteps } from './persistence/retention.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Everything the tools and hooks of one OpenCode instance share. */
export interface Orca {
  directory: string;
  options: OrcaOptions;
  host: PlanHost;
  store: PlanStore;
  sessions: SessionsPort;
  asker: QuestionAsker;
  /** The project's agenda (docs/design.md, "Agenda"): held by this process, or reached through its inbox. */
  agenda: AgendaRuntime;
  /** Follows the plans the agenda started (the auto policy answers their gates, or a human does elsewhere). */
  follower: PlanFollower;
  /** This project's recent turns per agent, for forecasts (read on first use). */
  history: UsageHistory;
  /** Retitles running tool calls (orca_ask_planner's progress); absent where there is no server. */
  titles?: ToolTitlePort;
  /** Record a prompt's usage: the plan's journal, the history, and (a read-only ask) the plan's sums. */
  recordTurn(record: TurnRecord): void;
  /** Orca's own lines in a session, without a model turn (a plan's outcome, Esc, a decision made elsewhere). */
  notes: SessionNotes;
  /** The plans an orca_ask_planner call (an Orca turn) follows here: its result reports their outcome, no note does. */
  turnFollowers: PlanFollowers;
  /** The toast about unfinished plans, held until a client listens (feed it OpenCode's events). */
  startup: StartupNotice;
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void;
  showToast(toast: Toast): void;
  /** Where file-changing steps work here, and the worktrees of this repository's plans. */
  workspace: { kind: WorkspaceKind; reason: string | null; worktrees: Workspaces | null };
  /** Why steps share the project directory (when they do), for the first plan's approval document: once. */
  workspaceNotice(): string | null;
  /** What a session's next model requests are told besides its transcript (the checks failing before a plan, for its planner). */
  requestNotes: RequestNotes;
  /** What undo and redo of a plan's landed changes need here: the plans, the repository (null without git), the include list. */
  rewind: RewindDeps;
  /** Stops the agenda, polling and toasts, releases every plan; resolves when nothing is still being written. */
  dispose(): Promise<void>;
}

/** What Orca needs from OpenCode, as ports: the plugin passes adapters of its client, tests their fakes. */
export interface OrcaParts {
  directory: string;
  options: OrcaOptions;
  sessions: SessionsPort;
  asker: QuestionAsker;
  notes: SessionNotes;
  monitor: SessionMonitor;
  log: Orca['log'];
  showToast(toast: Toast): void;
  /** Runs an agenda `command` action (default: refused, for hosts without OpenCode). */
  runCommand?: CommandRunner;
  inspect?: PlanHostOptions['inspect'];
  titles?: ToolTitlePort;
  /** What git can do for this project (plugin start); absent: steps share the project directory, unmeasured. */
  support?: WorkspaceSupport;
  /** When each session's tool calls last ran (opencode/tool-activity.ts); absent: every measurement of the shared tree takes a snapshot of its own. */
  toolActivity?: Pick<ToolActivity, 'quietSince'>;
  /** Lets OpenCode drop its instance for a directory no longer used (a removed worktree); absent: nothing to drop. */
  closeDirectory?: (directory: string) => Promise<void>;
  /** Gets OpenCode's instance for a worktree slot's folder ready ahead (one in-process turn there); absent: the first step there waits for it. */
  warmDirectory?: (directory: string) => Promise<void>;
}

/** How long a disposing Orca waits for the calls it sent OpenCode before: one answered after the dispose boots the instance again. */
const IN_FLIGHT_WAIT_MS = 2_000;

/** Orca over OpenCode's client: its sessions, question dialog, log and toasts. */
export function createOrca(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: OrcaOptions,
  hooks: Pick<PlanHostOptions, 'inspect'> & { monitor: SessionMonitor; meter?: UsageMeter; support?: WorkspaceSupport; toolActivity?: Pick<ToolActivity, 'quietSince'> },
): Orca {
  const { directory } = input;
  // From the moment OpenCode disposes this instance, Orca calls nothing of OpenCode's (clientUntilEnded: a call would
  // boot the instance again). Its log and toasts then have nowhere to go: OpenCode's log is reached through the
  // instance, and stderr prints over the TUI (seen in tmux at 80x24). What is left to say then is a refused call of a
  // chain begun before the end, or a free slot's reset cut short, which the next start does again.
  const ending = clientUntilEnded(input.client);
  const { client } = ending;
  const ended = ending.ended;
  const log: Orca['log'] = (level, message, extra) => {
    if (ended()) return;
    // The log is the last resort: a failing log call has nowhere left to report to.
    void client.app.log({ body: { service: 'orca', level, message, ...(extra ? { extra } : {}) } }).catch(() => {});
  };
  const orca = assembleOrca({
    directory,
    options,
    sessions: sessionsFromClient(client, directory, (level, message) => log(level, message), hooks.meter),
    asker: createQuestionAsker({ client, directory, log: (level, message) => log(level, message) }),
    notes: sessionNotes(notePortsWith(client, directory, { agent: QUESTION_AGENT_ID, model: QUESTION_MODEL, prefix: NOTE_PREFIX }), (level, message) => log(level, message)),
    monitor: hooks.monitor,
    ...(hooks.toolActivity ? { toolActivity: hooks.toolActivity } : {}),
    titles: toolTitlesFromClient(client, directory),
    log,
    runCommand: commandRunnerFromClient(client, directory),
    showToast: (toast) => {
      if (ended()) return; // no TUI of this instance is left to show it
      void client.tui.showToast({ body: toast, query: { directory } }).catch((error: unknown) => {
        log('warn', `toast "${toast.title}" could not be shown: ${errorMessage(error)}`);
      });
    },
    ...(hooks.inspect ? { inspect: hooks.inspect } : {}),
    ...(hooks.support ? { support: hooks.support } : {}),
    closeDirectory: closeDirectoryWith(client),
    warmDirectory: warmSlotWith(client),
  });
  const dispose = orca.dispose;
  orca.dispose = async () => {
    const answered = ending.end(IN_FLIGHT_WAIT_MS);
    await dispose();
    await answered;
  };
  return orca;
}

/** The composition root: the plan host over the ports, its index loaded, inbox polling and toasts on. */
export function assembleOrca(given: OrcaParts): Orca {
  // Every toast (plans', the agenda's, the start-up notice, the idle reminder) shows model-written text safely.
  const parts: OrcaParts = { ...given, showToast: safeToasts(given.showToast) };
  const { directory, options, sessions, monitor, log, showToast } = parts;
  const store = PlanStore.forProject(directory);
  // Only side effects in flight in a plan restored from disk look for what an earlier process left.
  const isRecovering = (idempotencyKey: string) => host.isRecovering(idempotencyKey);
  // A journal line records what happened; a journal that cannot take it (disk full) is logged and
  // never fails the turn or the restart that produced it.
  const journalLine = (planId: string, entry: JournalEntry, what: string) => {
    try {
      appendJournal(store.journalPathOf(planId), [entry]);
    } catch (error) {
      log('warn', `plan ${planId}: its journal did not take ${what}: ${errorMessage(error)}`);
    }
  };
  const onReconcile = ({ plan_id, ...record }: ReconcileRecord) => {
    log('info', `plan ${plan_id}: ${record.role} session ${record.session_id}: ${record.decision}${record.detail ? ` (${record.detail})` : ''}`);
    journalLine(plan_id, { at: new Date().toISOString(), kind: 'reconcile', ...record }, 'a reconciliation');
  };
  const history = createUsageHistory(join(store.dir, USAGE_HISTORY_NAME), { log: (level, message) => log(level, message) });
  // Every prompt's usage: one journal line per turn and the history behind forecasts. The plan's
  // sums come from the ports' results through the machines, except a read-only ask's (tools/ask-specialist.ts)
  // and a stopped turn's (countInPlan). A line that records no prompt, or a stopped prompt that had
  // spent nothing, tells a forecast nothing.
  const recordTurn = ({ plan_id, ...record }: TurnRecord) => {
    if (plan_id) journalLine(plan_id, { at: new Date().toISOString(), kind: 'turn', ...record }, "a turn's usage");
    const spent = record.usage.turns > 0 && (!record.aborted || totalTokens(record.usage) > 0 || record.usage.cost > 0);
    if (spent) history.record(record.agent, record.usage);
  };
  // What a turn stopped by its signal cost reaches its plan through the plan's own usage event, if
  // the plan runs here now; else the turn runner keeps it for when the plan runs the turn again.
  const countInPlan: CountInPlan = ({ plan_id, step_id, role, usage }) => {
    if (!host.isLive(plan_id)) return false;
    const event = { type: 'usage.recorded' as const, ...(step_id !== undefined && role !== 'planner' && role !== 'verifier' ? { stepId: step_id, role } : {}), usage };
    // The chart says whether it still takes usage (a finished plan does not).
    if (!host.open(plan_id).getSnapshot().can(event)) return false;
    host.send(plan_id, event);
    return true;
  };
  // An answer accepted with slips forgiven (JSONC, a string taken as a list, …): said in the plan's journal.
  const onCoercion = ({ plan_id, ...record }: CoercionRecord) => {
    log('info', `plan ${plan_id}: ${record.agent}'s answer accepted with slips forgiven: ${record.coerced.join('; ')}`);
    journalLine(plan_id, { at: new Date().toISOString(), kind: 'coercion', ...record }, 'a forgiven slip');
  };
  // Every turn Orca starts goes through this one runner: protocol, corrections, breaker, abort, reconciliation.
  const turns = createTurnRunner(sessions, {
    monitor,
    protocolOf: (agent) => outputProtocolOf(options, agent),
    memory: journalProtocolMemory({ journalPathOf: (planId) => store.journalPathOf(planId), modelOf: (agent) => modelOf(options, agent) }),
    isRecovering,
    onReconcile,
    onTurn: recordTurn,
    countInPlan,
    uncounted: journalUncountedUsage((planId) => store.journalPathOf(planId)),
    onCoercion,
    log: (level, message) => log(level, message),
  });
  const quality = qualityPorts(sessions, {
    directory,
    hookTimeoutMs: planPolicy(options).hook_timeout_ms,
    idle: monitor,
    turns,
    log: (level, message) => log(level, message),
  });
  const workspace = assembleWorkspaces(parts, store);
  const worktrees = workspace.worktrees;
  const commandTimeoutMs = (options.verification?.timeout_seconds ?? DEFAULT_VERIFY_SECONDS) * 1000;
  const baseChecks = worktrees && parts.support?.ok ? assembleBaseChecks(parts.support, worktrees, directory, commandTimeoutMs, log) : null;
  const verify = verifyPort(sessions, turns, {
    directory,
    commandTimeoutMs,
    ...(worktrees ? { tree: { state: (signal) => worktrees.treeState(signal), changedSince: (state, signal) => worktrees.changedSince(state, signal) } } : {}),
    ...(baseChecks ? { baseChecks } : {}),
    log: (level, message) => log(level, message),
  });
  const requestNotes = createRequestNotes();
  const rewind: RewindDeps = { store, repo: parts.support ? (parts.support.ok ? parts.support : (parts.support.repository ?? null)) : null, include: isolationSettings(options).include };
  // An undo or redo a crash cut short is settled now (each file as before, or recorded as done), and said.
  void settleInterruptedRewinds(rewind)
    .then((settled) => {
      for (const recovered of settled) {
        log('warn', recoveredText(recovered));
        showToast({ title: 'Orca: an undo was interrupted', message: recoveredText(recovered), variant: 'warning' });
      }
    })
    .catch((error: unknown) => log('error', `an interrupted undo could not be settled (orca undo settles it): ${errorMessage(error)}`));
  const host: PlanHost = new PlanHost({
    store,
    policy: { ...planPolicy(options).plan, workspace: workspace.kind },
    ports: {
      ...quality,
      // A step's hooks may write to the user's tree: no snapshot begun before serves as the next step's base.
      ...(worktrees ? { runStepHooks: touchingTree(quality.runStepHooks, worktrees) } : {}),
      ...verify,
      ...opencodePorts(sessions, { turns, isRecovering, onReconcile }),
      ...(workspace.worktrees ?? NO_WORKSPACES),
    },
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.max_attempts ? { maxAttempts: options.max_attempts } : {}),
    ...(parts.inspect ? { inspect: parts.inspect } : {}),
    log,
  });
  host.loadIndex(); // logs what it quarantined
  // Interrupted plans are listed, never re-run silently: resuming is an explicit orca_ask_planner call.
  const interrupted = interruptedPlans(listSummaries(host.index));
  const notice = unfinishedPlansToast(interrupted);
  if (notice) log('info', `${notice.title}: ${notice.message}`);
  const startup = startupNotice(notice, showToast, (message) => log('info', message));
  // Decisions from the CLI or another terminal reach plans running here within a second.
  const stopPolling = host.pollInboxes();
  const { agenda, follower, stopAgenda } = assembleAgenda(parts, host, store);
  const followers = planFollowers();
  const stopToasts = watchForToasts(host, showToast, (planId) => followers.has(planId));
  const stopNotes = watchForNotes(host, { notes: parts.notes, followers });
  const stopSweeping = workspace.worktrees ? sweepWorktrees(host, workspace.worktrees, log) : () => {};
  const stopPreparing = workspace.worktrees ? prepareWorktrees(host, workspace.worktrees, parts.warmDirectory, log) : () => {};
  const commands = options.verification?.commands ?? [];
  const stopChecking = baseChecks && worktrees && commands.length > 0 ? checkBeforePlanning(host, { baseChecks, worktrees, commands, requestNotes, log }) : () => {};
  return {
    directory,
    options,
    host,
    store,
    sessions,
    asker: parts.asker,
    agenda,
    follower,
    history,
    recordTurn,
    ...(parts.titles ? { titles: parts.titles } : {}),
    notes: parts.notes,
    turnFollowers: followers,
    startup,
    log,
    showToast,
    workspace,
    workspaceNotice: once(workspace.reason !== null && parts.support ? `Where its steps work: ${workspaceKindText(workspace)}.` : null),
    requestNotes,
    rewind,
    async dispose() {
      stopSweeping();
      stopPreparing();
      stopChecking();
      await stopAgenda();
      stopPolling();
      stopToasts();
      stopNotes();
      await host.dispose();
      history.flush(); // the turns the plans' last cascades recorded
      // Free slots not reset yet are reset now, while the process lives; never waited for: OpenCode disposes an
      // instance to reload its config too, and one it re-creates while this one is still disposing has none of
      // Orca's agents ("Agent not found", usage e2e). A reset cut short is recovered at the next start.
      void workspace.worktrees?.settle().catch((error: unknown) => log('warn', `free worktree slots were not reset at the end: ${errorMessage(error)}`));
    },
  };
}

/** Hooks that may write to the user's tree: a snapshot begun before or while they run is no next step's base. */
function touchingTree(runStepHooks: QualityPorts['runStepHooks'], worktrees: Workspaces): QualityPorts['runStepHooks'] {
  return (input, signal) => {
    worktrees.touch();
    return runStepHooks(input, signal).finally(() => worktrees.touch());
  };
}

/** Steps of a project git cannot follow never open a workspace (their policy says `none`): these are never called. */
const NO_WORKSPACES: WorkspacePorts = {
  openWorkspace: () => Promise.reject(new Error('no workspace here: the project is not in a git repository')),
  followSlot: () => () => {},
  measureStep: () => Promise.reject(new Error('no workspace here: the project is not in a git repository')),
  captureStep: () => Promise.reject(new Error('no workspace here: the project is not in a git repository')),
  mergeStep: () => Promise.reject(new Error('no workspace here: the project is not in a git repository')),
};

/** Where file-changing steps work (`isolation` and git), said once in the log; the worktrees' ports when git is there. */
function assembleWorkspaces({ directory, options, support, closeDirectory, toolActivity, log }: OrcaParts, store: PlanStore): Orca['workspace'] {
  const settings = isolationSettings(options);
  const resolved = support ? workspaceKindOf(settings.mode, support) : { kind: 'none' as const, reason: 'git was not asked (no OpenCode server)' };
  if (support) log('info', workspaceKindText(resolved));
  const worktrees =
    support && resolved.kind !== 'none'
      ? createWorkspaces({
          directory,
          support,
          // Each attempt's whole patch, beside its plan file.
          patchPathOf: (planId, stepId, attempt) => join(store.dir, `${planId}.patches`, `${stepId}.${attempt}.patch`),
          include: settings.include,
          ...(settings.setup ? { setup: settings.setup } : {}),
          setupTimeoutMs: settings.setupTimeoutMs,
          keepSlots: options.concurrency ?? DEFAULT_CONCURRENCY,
          ...(toolActivity ? { quietSince: (sessionId: string) => toolActivity.quietSince(sessionId) } : {}),
          log,
        })
      : null;
  return { ...resolved, worktrees: worktrees && closeDirectory ? closingInstances(worktrees, closeDirectory, log) : worktrees };
}

/**
 * A slot's OpenCode instance stays while the slot does (it is what makes the next step start warm);
 * once a step gives its slot back and more are free than the pool keeps, the extra slots and their
 * instances go.
 */
function closingInstances(worktrees: Workspaces, closeDirectory: (directory: string) => Promise<void>, log: Orca['log']): Workspaces {
  const close = (dir: string) => void closeDirectory(dir).catch((error: unknown) => log('warn', errorMessage(error)));
  const trim = () =>
    void worktrees
      .trim()
      .then((dirs) => dirs.forEach(close))
      .catch((error: unknown) => log('warn', `extra worktree slots were not removed: ${errorMessage(error)}`));
  return {
    ...worktrees,
    async mergeStep(input, signal) {
      const outcome = await worktrees.mergeStep(input, signal);
      if (outcome.type === 'merged') trim();
      return outcome;
    },
    async removePlan(planId) {
      const released = await worktrees.removePlan(planId);
      trim();
      return released;
    },
  };
}

/**
 * A plan's slots go back to the pool once its steps are no longer alive (tag `plan.steps`: it ended,
 * or went back to its planner): at start, those of plans that ended or are gone (and what a process
 * that died left on the slots); then each plan's as it leaves. Never in a write's way.
 */
function sweepWorktrees(host: PlanHost, worktrees: Workspaces, log: Orca['log']): () => void {
  const release = (planId: string) =>
    void worktrees.removePlan(planId).catch((error: unknown) => log('warn', `plan ${planId}: its worktree slots were not given back: ${errorMessage(error)}`));
  const notRunning = (planId: string) => {
    const summary = listSummaries(host.index).find((s) => s.plan_id === planId);
    return summary === undefined || !hasLiveSteps(summary.status);
  };
  void worktrees
    .plansWithFolders()
    .then((plans) => plans.filter(notRunning).forEach(release))
    .catch((error: unknown) => log('warn', `leftover worktree slots were not looked for: ${errorMessage(error)}`));
  // What a process that died left on the slots (a reset cut short, a slot given back and never reset).
  void worktrees.recover().catch((error: unknown) => log('warn', `worktree slots left by an earlier process were not looked at: ${errorMessage(error)}`));
  const live = new Set<string>();
  return host.observe('the worktree sweeper', ({ planId, snapshot }) => {
    if (snapshot.hasTag('plan.steps')) live.add(planId);
    else if (live.delete(planId)) release(planId);
  });
}

/**
 * Worktree slots made ready while nothing waits on them: made while the planner drafts (one) and
 * while the human reads the plan (as many as its first file-changing steps, within the pool), and
 * then, while the human reads (tag `workspaces.warm`), their OpenCode instances warmed; once per
 * slot in this process. The steps then find them ready. Never in a write's way.
 */
function prepareWorktrees(host: PlanHost, worktrees: Workspaces, warm: ((directory: string) => Promise<void>) | undefined, log: Orca['log']): () => void {
  const asked = new Map<string, string>();
  const warmed = new Set<string>();
  return host.observe('the worktree preparer', ({ planId, snapshot }) => {
    if (!snapshot.hasTag('workspaces.prepare')) {
      asked.delete(planId);
      return;
    }
    const wanted = worktreesWanted(snapshot.context);
    const warming = Boolean(warm) && snapshot.hasTag('workspaces.warm');
    const ask = `${wanted}:${warming}`;
    if (wanted === 0 || asked.get(planId) === ask) return;
    asked.set(planId, ask);
    void worktrees
      .prepare(wanted)
      .then((dirs) =>
        Promise.all(
          dirs
            .filter((dir) => warming && !warmed.has(dir))
            .map((dir) => {
              warmed.add(dir);
              return warm!(dir).catch((error: unknown) => {
                warmed.delete(dir);
                throw error;
              });
            }),
        ),
      )
      .catch((error: unknown) => log('warn', `plan ${planId}: worktree slots were not made ready ahead (its steps make them when they start): ${errorMessage(error)}`));
  });
}

/** The configured checks run on a tree of the project in a slot (workspace/base-checks.ts), as the verification runs them. */
function assembleBaseChecks(repo: GitRepository, worktrees: Workspaces, directory: string, timeoutMs: number, log: Orca['log']): BaseChecks {
  return createBaseChecks({
    repo,
    directory,
    openSlotAt: (commit, planId, signal) => worktrees.openSlotAt(commit, planId, signal),
    run: async (commands, cwd, signal) => (await runChecks(commands, cwd, timeoutMs, '', signal)).map((c) => ({ command: c.name, passed: c.passed, output: c.output })),
    log,
  });
}

/**
 * While a plan's planner drafts (tag `workspaces.prepare`, its session open), the configured checks
 * run once on the project as it is, in a slot, off the planner's way; those that fail already are told
 * to the planner's next requests (request-notes.ts), and the verification finds them kept when the
 * plan's base is that tree. Once per plan in this process; never in a write's way.
 */
function checkBeforePlanning(
  host: PlanHost,
  { baseChecks, worktrees, commands, requestNotes, log }: { baseChecks: BaseChecks; worktrees: Workspaces; commands: readonly string[]; requestNotes: RequestNotes; log: Orca['log'] },
): () => void {
  const stopping = new AbortController();
  const begun = new Set<string>();
  const stop = host.observe('the checks before planning', ({ planId, snapshot }) => {
    const sessionId = snapshot.context.planner_session_id;
    if (!sessionId || !snapshot.hasTag('workspaces.prepare') || begun.has(planId)) return;
    begun.add(planId);
    void (async () => {
      const commit = await worktrees.treeState(stopping.signal);
      const failing = failingChecks(await baseChecks.of(commit, commands, planId, stopping.signal));
      const note = plannerFailuresNote(failing);
      if (note) requestNotes.set(sessionId, note);
      // The plan keeps them: each later step and the verifying turn are told (its chart takes it in any state it runs in).
      const event = { type: 'checks.failing_before' as const, checks: failing };
      if (failing.length && host.isLive(planId) && host.open(planId).getSnapshot().can(event)) host.send(planId, event);
    })().catch((error: unknown) => {
      if (!stopping.signal.aborted) log('warn', `plan ${planId}: the configured checks did not run before planning (the verification runs them on the plan's base if one fails): ${errorMessage(error)}`);
    });
  });
  return () => {
    stopping.abort(new Error('Orca is stopping'));
    stop();
  };
}

/**
 * The agenda over the plan host: its actions start, resume and follow plans; Orca's lifecycle is
 * published on its bus; it runs in this process when it holds the agenda's lease.
 */
function assembleAgenda({ directory, options, sessions, log, showToast, runCommand }: OrcaParts, host: PlanHost, store: PlanStore) {
  const stopping = new AbortController();
  const follower = new PlanFollower(host, (gate) => autoAnswer({ options, log }, gate), log);
  const { poll_seconds: pollSeconds, ...limits } = options.agenda ?? {};
  const agenda: AgendaRuntime = new AgendaRuntime({
    directory,
    limits,
    ...(pollSeconds ? { pollSeconds } : {}),
    ports: {
      ...agendaActions({
        host,
        store,
        follower,
        runCommand: runCommand ?? (async ({ command }) => Promise.reject(new Error(`/${command}: no OpenCode client to run commands with`))),
        sessionExists: async (id) => (await sessions.get(id)) !== null,
        autoAnswers: (gate) => autoChoice(gate, options.hitl?.auto) !== null,
        signal: stopping.signal,
      }),
      log: (level, message) => log(level, message),
      toast: showToast,
    },
  });
  const depthOf = (file: PlanFields) => {
    if (!file.agenda_item) return 0;
    try {
      return agenda.get(file.agenda_item.agenda_id).depth + 1;
    } catch {
      return 1; // the item is gone from the log: still one hop below whatever started it
    }
  };
  const stopLifecycle = publishLifecycle(host, (event, depth) => agenda.publish(event.kind, event.subject, event.message, depth), depthOf, log);
  agenda.start();
  return {
    agenda,
    follower,
    async stopAgenda() {
      stopping.abort(new Error('Orca is stopping'));
      stopLifecycle();
      await agenda.stop();
      await follower.stop();
    },
  };
}

/** `text` the first time it is asked for, null after. */
function once(text: string | null): () => string | null {
  let left = text;
  return () => {
    const said = left;
    left = null;
    return said;
  };
}
