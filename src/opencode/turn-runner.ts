import type { z } from 'zod';
import type { CandidateSource } from '../protocol/json-candidates.js';
import type { OutputProtocol } from '../protocol/output-protocol.js';
import { runProtocolTurn, withUsage, type TurnPort, type TurnReply } from '../protocol/protocol-turn.js';
import { turnStart } from '../prompts/turn-header.js';
import { addUsage, ZERO_USAGE, type Usage } from '../machines/usage.js';
import { inMemoryProtocolMemory, type ProtocolMemory } from './protocol-memory.js';
import { recoverTurn, type ReconcileRecord } from './reconcile.js';
import type { InterruptedTurn } from '../machines/types.js';
import { usageOfError } from '../machines/turn.js';
import type { CountInPlan, OnCoercion, OnTurn, TurnRecord } from './turn-port.js';
import type { UncountedUsage } from './uncounted-usage.js';
import type { SessionMonitor, SessionStatus } from './session-monitor.js';
import type { SessionsPort } from './sessions.js';
import { errorMessage, OrcaError } from '../errors.js';

export type { ReconcileRecord } from './reconcile.js';

/** One turn Orca starts in a child session. */
export interface TurnSpec<T> {
  planId: string;
  /** The step a step turn belongs to (specialist, reviewer, fixer), for the journal's `turn` lines. */
  stepId?: string;
  /** Which kind of turn: names it in logs and in the journal's `turn` and `reconcile` entries. */
  role: ReconcileRecord['role'];
  sessionId: string;
  /** The OpenCode agent prompted (planner, a specialist, reviewer); `agents.<id>.output` is read for it. */
  agent: string;
  /** The first line of the prompt, naming plan, step, agent and attempt (prompts/turn-header.ts). */
  header: string;
  /** The prompt's body; the output protocol section is appended to it. */
  prompt: string;
  schema: z.ZodType<T>;
  /** The schema as JSON Schema, for structured output. */
  jsonSchema: object;
  /** Names the output in errors, e.g. "coder output". */
  label: string;
  /** Apply the tool-loop breaker to the session while the turn runs (step turns). */
  guard?: boolean;
  /** A restarted turn with this key first looks at what its session already holds (see reconcile.ts). */
  idempotencyKey?: string;
  /**
   * Whether a restarted turn that left no result may simply run again (the step machine's
   * `rerun`). When false it does not run: the runner returns the interruption and the machine asks
   * a human at its resume gate. Absent: it always runs again.
   */
  rerun?: boolean;
  signal: AbortSignal;
}

/** A finished turn: its answer and what all its prompts cost together. */
export interface TurnOutcome<T> {
  value: T;
  /**
   * Every prompt of the turn summed (a refused structured attempt and the corrections included). A
   * turn reused after a restart brings none: the process that ran it journaled its prompts (what a
   * run stopped with its plan left uncounted reaches the plan on its own: countInPlan).
   */
  usage: Usage;
  corrections: number;
  /** Where the answer was read: structured output, a place in the text, or an earlier run (`reconciled`). */
  via: 'structured' | CandidateSource | 'reconciled';
  /** The protocol the answer came with. */
  protocol: OutputProtocol;
}

/** One run of a turn, for a run its signal stops: what its prompts cost so far and the prompt in flight. */
interface TurnRun {
  spent: Usage;
  /** Settles (never rejects) when the prompt in flight has, and its cost is in `spent`. */
  inFlight?: Promise<void>;
  /** The prompt the signal stopped before it answered, and what OpenCode recorded of it. */
  stoppedPrompt?: { usage: Usage; correction: boolean };
}

/** A restarted turn that left no result and may not run again without a human (TurnSpec.rerun false). */
export interface TurnInterrupted {
  interrupted: InterruptedTurn;
  usage: Usage;
}

/**
 * The tool-loop breaker aborted the turn's session; `reason` is what the step reports. What the
 * turn cost rides along as `error.usage` (machines/turn.ts usageOfError), like every turn error.
 */
export class TurnAbortedError extends OrcaError {
  override readonly name = 'TurnAbortedError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface TurnRunnerOptions {
  /** Guards sessions against tool loops, and reports session status (structured output refusals). */
  monitor?: Pick<SessionMonitor, 'guard' | 'abortReason' | 'watchStatus'>;
  /** The protocol configured for an agent (`agents.<id>.output`); default text for every agent. */
  protocolOf?: (agent: string) => OutputProtocol;
  /** Which plan's agents refused structured output; default: remembered in this process only. */
  memory?: ProtocolMemory;
  /**
   * Whether the side effect with this idempotency key may have started before (it was in flight in
   * a restored snapshot). Only then is its session searched for what it left. Default: always.
   */
  isRecovering?: (idempotencyKey: string) => boolean;
  onReconcile?: (record: ReconcileRecord) => void;
  /**
   * Told of every prompt once it is answered, with what it cost (the journal's `turn` lines, the
   * usage history); and of a turn stopped before its result (`aborted`), and of what stopped runs
   * left uncounted once its plan counts it (`counted`).
   */
  onTurn?: OnTurn;
  /**
   * A turn stopped by its signal never hands its result, nor what it cost, to its machine. This
   * counts that cost in the plan if the plan still runs here (a chart that left the state);
   * otherwise (Esc released the plan) the journal keeps it `uncounted` until the plan runs the
   * turn again. Without it, such cost is only journaled.
   */
  countInPlan?: CountInPlan;
  /** What earlier stopped runs of a turn left uncounted (journal-backed); asked when a restored turn runs again. */
  uncounted?: UncountedUsage;
  /** Told of a turn whose answer was accepted with slips forgiven (JSONC, a string taken as a list, …): the journal's `coercion` lines. */
  onCoercion?: OnCoercion;
  log?: (level: 'info' | 'warn', message: string) => void;
}

export interface TurnRunner {
  /** A turn that may be interrupted (`rerun` given) answers, or reports the interruption. */
  run<T>(spec: TurnSpec<T> & { rerun: boolean }): Promise<TurnOutcome<T> | TurnInterrupted>;
  run<T>(spec: TurnSpec<T>): Promise<TurnOutcome<T>>;
  /**
   * Orca is about to abort the session for a reason its machine learns elsewhere (the idle watch:
   * TIMEOUT). The turn running there then neither fails nor corrects: it waits to be stopped, so
   * the machine hears the reason, not "the turn ended with MessageAbortedError".
   */
  expectAbort(sessionId: string): void;
}

/** A provider's refusal of structured output's forced tool choice (reasoning models, "thinking mode"). */
const TOOL_CHOICE_REFUSAL = /does not support (this |the )?tool[_ ]choice|tool[_ ]choice[^.\n]{0,40}(is )?not supported/i;
export const isToolChoiceRefusal = (message: string | undefined) => message !== undefined && TOOL_CHOICE_REFUSAL.test(message);

/**
 * Every turn Orca starts goes through here (planner, specialist, reviewer, fixer, and their
 * correction prompts): a blocking prompt in the session with the agent, the output protocol
 * (text by default, structured output when configured and not known to be refused), tolerant
 * parsing with at most two correction prompts, the tool-loop breaker, abort through the signal
 * (what a stopped turn cost still counted), and for a restarted turn the reuse of a result its
 * session already holds.
 */
export function createTurnRunner(sessions: SessionsPort, options: TurnRunnerOptions = {}): TurnRunner {
  const { monitor, protocolOf = () => 'text', memory = inMemoryProtocolMemory(), isRecovering = () => true, onReconcile, onTurn, onCoercion, countInPlan, uncounted, log } = options;

  /** Sessions Orca is aborting for its machine's own reason (expectAbort). */
  const expectedAborts = new Set<string>();
  /** Never settles: the turn's signal (the machine stopping it) is its only way out. */
  const untilStopped = () => new Promise<never>(() => {});

  /** A `turn` line of the spec's turn. */
  const turnRecord = (spec: TurnSpec<unknown>, line: Pick<TurnRecord, 'correction' | 'usage' | 'aborted' | 'uncounted' | 'counted'>): TurnRecord => ({
    plan_id: spec.planId,
    ...(spec.stepId !== undefined ? { step_id: spec.stepId } : {}),
    role: spec.role,
    agent: spec.agent,
    session_id: spec.sessionId,
    ...(spec.idempotencyKey !== undefined ? { idempotency_key: spec.idempotencyKey } : {}),
    ...line,
  });

  /** The port for one run of a turn: a structured prompt is watched for the provider refusing it. */
  const portFor = (spec: TurnSpec<unknown>, run: TurnRun): TurnPort => ({
    async prompt(text, { jsonSchema, signal, correction = false }) {
      const send = async () => {
        const answered = sessions.prompt({ sessionID: spec.sessionId, agent: spec.agent, text, ...(jsonSchema ? { jsonSchema } : {}), ...(signal ? { signal } : {}) }).then(
          (reply) => {
            run.spent = addUsage(run.spent, reply.usage);
            onTurn?.(turnRecord(spec, { correction, usage: reply.usage }));
            return reply;
          },
          (error: unknown) => {
            // Stopped with its turn: its line is written once the run is settled (settleStopped).
            if (spec.signal.aborted) {
              const usage = usageOfError(error) ?? { ...ZERO_USAGE, turns: 1 };
              run.spent = addUsage(run.spent, usage);
              run.stoppedPrompt = { usage, correction };
            }
            throw error;
          },
        );
        run.inFlight = answered.then(
          () => {},
          () => {},
        );
        const reply = await answered;
        return expectedAborts.has(spec.sessionId) ? untilStopped() : reply;
      };
      if (!jsonSchema) return send();
      // OpenCode retries some refusals forever (a retryable status), showing the provider's message in the
      // session's status: stop the prompt then. A 400 simply ends the prompt with the error.
      let retried: string | undefined;
      let stopping: Promise<void> | undefined;
      const unwatch = monitor?.watchStatus(spec.sessionId, (status: SessionStatus) => {
        if (status.type !== 'retry' || !isToolChoiceRefusal(status.message) || stopping) return;
        retried = status.message;
        stopping = sessions.abort(spec.sessionId).catch((error: unknown) => {
          log?.('warn', `plan ${spec.planId}: aborting the refused structured prompt in session ${spec.sessionId} failed: ${errorMessage(error)}`);
        });
      });
      try {
        const reply = await send();
        await stopping;
        const refusal = retried ?? (isToolChoiceRefusal(reply.error) ? reply.error : undefined);
        if (refusal === undefined) return reply;
        // Remembered before the text attempt runs: whatever it answers, this model refuses structured output.
        log?.('warn', `plan ${spec.planId}: ${spec.agent}'s model refused structured output (${refusal.slice(0, 100)}); asking again with the text protocol, and the plan's later ${spec.agent} turns use it`);
        try {
          memory.rememberRefusal(spec.planId, { agent: spec.agent, reason: refusal, sessionId: spec.sessionId });
        } catch (error) {
          log?.('warn', `plan ${spec.planId}: could not record that ${spec.agent}'s model needs the text protocol: ${errorMessage(error)}`);
        }
        return { ...reply, refusal } satisfies TurnReply;
      } finally {
        unwatch?.();
      }
    },
  });

  /** The answer was taken with slips forgiven: said once per turn; a failing listener does not fail the turn. */
  const reportCoercion = (spec: TurnSpec<unknown>, coerced: string[]) => {
    try {
      onCoercion?.({ plan_id: spec.planId, ...(spec.stepId !== undefined ? { step_id: spec.stepId } : {}), role: spec.role, agent: spec.agent, session_id: spec.sessionId, coerced });
    } catch (error) {
      log?.('warn', `plan ${spec.planId}: the slips forgiven in ${spec.agent}'s answer were not recorded: ${errorMessage(error)}`);
    }
  };

  /** Counts in the plan now, if it runs here; a failing count is logged and leaves the usage uncounted. */
  const countNow = (spec: TurnSpec<unknown>, usage: Usage) => {
    if (!countInPlan) return false;
    try {
      return countInPlan({ plan_id: spec.planId, ...(spec.stepId !== undefined ? { step_id: spec.stepId } : {}), role: spec.role, usage });
    } catch (error) {
      log?.('warn', `plan ${spec.planId}: what a stopped ${spec.agent} turn cost was not counted in the plan: ${errorMessage(error)}`);
      return false;
    }
  };

  /**
   * The turn's signal stopped it (Esc released its plan, the server is stopping, or its chart left
   * the state): its machine gets neither its result nor what it cost. Once the prompt in flight has
   * settled (its fetch was aborted with the same signal), that cost is counted in the plan if the
   * plan runs on; otherwise the journal line keeps it `uncounted` for the plan to count when it runs
   * the turn again (countEarlierRuns). The prompt in flight gets its line here, `aborted`.
   */
  async function settleStopped(spec: TurnSpec<unknown>, run: TurnRun) {
    await run.inFlight;
    if (run.spent.turns === 0) return;
    const counted = countNow(spec, run.spent);
    if (counted && !run.stoppedPrompt) return; // every prompt has its line already, and the plan has the sum
    onTurn?.(
      turnRecord(spec, {
        correction: run.stoppedPrompt?.correction ?? false,
        usage: run.stoppedPrompt?.usage ?? ZERO_USAGE,
        aborted: true,
        ...(counted ? {} : { uncounted: run.spent }),
      }),
    );
  }

  /**
   * A restored turn may have run before and been stopped with its plan: what those runs cost and
   * the plan never counted is counted now, once (the `counted` line closes it). Their prompts'
   * own lines and the usage history were written by the process that ran them; reconciliation
   * never counts a session's earlier messages.
   */
  function countEarlierRuns(spec: TurnSpec<unknown>) {
    if (!uncounted || (spec.idempotencyKey !== undefined && !isRecovering(spec.idempotencyKey))) return;
    let owed: Usage;
    try {
      owed = uncounted.of({ planId: spec.planId, role: spec.role, sessionId: spec.sessionId, ...(spec.idempotencyKey !== undefined ? { idempotencyKey: spec.idempotencyKey } : {}) });
    } catch (error) {
      log?.('warn', `plan ${spec.planId}: what earlier stopped ${spec.agent} turns cost could not be read: ${errorMessage(error)}`);
      return;
    }
    if (owed.turns === 0 || !countNow(spec, owed)) return;
    try {
      onTurn?.(turnRecord(spec, { correction: false, usage: ZERO_USAGE, counted: owed }));
    } catch (error) {
      log?.('warn', `plan ${spec.planId}: the count of what earlier stopped ${spec.agent} turns cost was not recorded: ${errorMessage(error)}`);
    }
  }

  /** A restarted turn's earlier result or its interruption; undefined when it is to run (again). */
  async function reconciled<T>(spec: TurnSpec<T>, start: string): Promise<TurnOutcome<T> | TurnInterrupted | undefined> {
    const key = spec.idempotencyKey;
    if (key === undefined) return undefined;
    const record = { plan_id: spec.planId, role: spec.role, session_id: spec.sessionId, idempotency_key: key };
    const recovery = { sessions, isRecovering, ...(onReconcile ? { onReconcile } : {}) };
    const earlier = await recoverTurn(recovery, record, { prompt: start, schema: spec.schema, rerun: spec.rerun ?? true, signal: spec.signal });
    if (earlier === undefined) return undefined;
    if ('type' in earlier) return { interrupted: earlier, usage: ZERO_USAGE };
    // Its prompts were journaled by the process that ran them; what a run stopped with its plan cost
    // is counted by countEarlierRuns, never read again from the session's messages.
    return { value: earlier.value, usage: ZERO_USAGE, corrections: 0, via: 'reconciled', protocol: 'text' };
  }

  const runner = {
    expectAbort: (sessionId: string) => void expectedAborts.add(sessionId),

    async run<T>(spec: TurnSpec<T>): Promise<TurnOutcome<T> | TurnInterrupted> {
      expectedAborts.delete(spec.sessionId); // a new turn in the session (the fixer's) starts clean
      const start = turnStart(spec.header, spec.prompt);
      const configured = protocolOf(spec.agent);
      const protocol: OutputProtocol = configured === 'structured' && memory.needsText(spec.planId, spec.agent) ? 'text' : configured;
      const unguard = spec.guard ? monitor?.guard(spec.sessionId) : undefined;
      const brokenLoop = () => (spec.guard ? monitor?.abortReason(spec.sessionId) : undefined);
      const run: TurnRun = { spent: ZERO_USAGE };
      try {
        const earlier = await reconciled(spec, start);
        // After an await: a restored turn starts while its plan is restored, and the count is an event to the plan.
        countEarlierRuns(spec as TurnSpec<unknown>);
        if (earlier) return earlier;
        const result = await runProtocolTurn(portFor(spec as TurnSpec<unknown>, run), {
          schema: spec.schema,
          jsonSchema: spec.jsonSchema,
          prompt: start,
          protocol,
          signal: spec.signal,
          label: spec.label,
          // A session the breaker aborted gets no correction prompt: its turn ends here.
          afterReply: () => {
            const reason = brokenLoop();
            if (reason) throw new TurnAbortedError(reason);
          },
        });
        const reason = brokenLoop();
        if (reason) throw withUsage(new TurnAbortedError(reason), result.usage);
        if (result.coerced.length > 0) reportCoercion(spec, result.coerced);
        return { value: result.value, usage: result.usage, corrections: result.corrections, via: result.via, protocol: result.protocol };
      } catch (error) {
        if (error instanceof TurnAbortedError) throw error;
        // The breaker's abort reason wins over the turn's own error (an aborted prompt, a bad reply).
        const reason = brokenLoop();
        if (reason) throw withUsage(new TurnAbortedError(reason), usageOfError(error) ?? ZERO_USAGE);
        throw error;
      } finally {
        unguard?.();
        if (spec.signal.aborted)
          void settleStopped(spec as TurnSpec<unknown>, run).catch((error: unknown) => {
            log?.('warn', `plan ${spec.planId}: what a stopped ${spec.agent} turn cost was not recorded: ${errorMessage(error)}`);
          });
      }
    },
  };
  // The overloads are one function: only a turn given `rerun` can come back interrupted.
  return runner as TurnRunner;
}
