import type { PlanSnapshot } from '../host/plan-host.js';
import { checkVerdict } from '../machines/verification.js';
import type { DecisionRecord, FileChange, PlanVerification, StepRecord } from '../machines/types.js';
import { cutLine } from '../text/cut.js';
import { lineCounts } from '../text/step-diff.js';
import { formatCost } from '../usage/format.js';

/**
 * What a plan did, in the conversation, when it ends
 * (docs/design.md, "What the user gets at the end"): per step its status, agent, review and any Retry or re-run, and the files it landed with
 * +/-; the verification check by check and where it ran, old failures told from new ones; the totals;
 * and where the changes are, with the commands that show them and take them back. Up to
 * STEPS_IN_FULL steps each take two lines (a 4-step plan fits 24 rows at 80 columns); a longer plan
 * gives a line per step first and its files after.
 */

/** Steps shown with their files under them; beyond, the step lines come first and the files after. */
const STEPS_IN_FULL = 4;
/** A line of the note, for 80 columns. */
const WIDTH = 78;

const MARK: Record<StepRecord['status'], string> = { completed: '✓', stopped: '✗', running: '▶', pending: '·', awaiting_decision: '!', awaiting_resume: '!', awaiting_merge: '!' };
const STATUS: Record<StepRecord['status'], string> = {
  completed: 'done',
  stopped: 'stopped',
  running: 'stopped while running',
  pending: 'not run',
  awaiting_decision: 'failed',
  awaiting_resume: 'interrupted',
  awaiting_merge: 'its changes did not apply',
};

export function outcomeNote(snapshot: Pick<PlanSnapshot, 'context' | 'hasTag'>, { now = new Date() }: { now?: Date } = {}): string {
  const c = snapshot.context;
  const completed = snapshot.hasTag('outcome.completed');
  const done = c.steps.filter((s) => s.status === 'completed').length;
  const lines = [`Orca: plan ${c.plan_id} ${completed ? 'completed' : 'stopped'}, ${done} of ${c.steps.length} step${c.steps.length === 1 ? '' : 's'} done: ${cutLine(c.goal ?? c.request, 120)}`];
  const full = c.steps.length <= STEPS_IN_FULL;
  for (const step of c.steps) {
    lines.push(cutLine(stepHead(step, c.decisions, c.policy.review_agents.includes(step.agent)), WIDTH));
    if (full) lines.push(...stepDetail(step));
  }
  if (!full) {
    const changed = c.steps.filter((s) => filesOf(s).length > 0);
    if (changed.length) lines.push('Files:', ...changed.flatMap((s) => [`${s.id}:`, ...stepDetail(s)]));
  }
  lines.push(...verificationLines(c.verification ?? null, completed, c.decisions.some((d) => d.gate === 'verification' && d.option === 'Accept as is')));
  lines.push(totals(c.steps, c.usage?.cost ?? 0, durationMs(c.decisions, c.verification ?? null, now)));
  lines.push(...whereLines(c.plan_id, c.steps), `Each step's summary and history: orca show ${c.plan_id}`);
  return lines.join('\n');
}

/** `✓ s3 (coder) done · review passed in round 2, after 1 fix · retried once`. */
function stepHead(step: StepRecord, decisions: readonly DecisionRecord[], reviewed: boolean): string {
  const parts = [`${MARK[step.status]} ${step.id} (${step.agent}) ${STATUS[step.status]}`];
  const review = reviewWords(step, reviewed);
  if (review) parts.push(review);
  parts.push(...retryWords(step, decisions));
  if (step.status !== 'completed' && step.failures.length) parts.push(cutLine(step.failures.at(-1)!.error, 60));
  return parts.join(' · ');
}

/** How its review went: `review passed in round 1`, `… in round 3, after 2 fixes`; null when not reviewed. */
export function reviewWords(step: Pick<StepRecord, 'status' | 'review_round'>, reviewed: boolean): string | null {
  if (!reviewed || step.review_round === undefined) return null;
  const round = step.review_round;
  const fixes = round - 1;
  if (step.status !== 'completed') return `review round ${round}`;
  return `review passed in round ${round}${fixes ? `, after ${fixes} fix${fixes === 1 ? '' : 'es'}` : ''}`;
}

/** The decisions that ran it again: `retried once`, `run again on top of your tree`, `marked done by you`. */
function retryWords(step: StepRecord, decisions: readonly DecisionRecord[]): string[] {
  const mine = decisions.filter((d) => d.step_id === step.id);
  const count = (gate: DecisionRecord['gate'], option: string) => mine.filter((d) => d.gate === gate && d.option === option).length;
  const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
  const words: string[] = [];
  const retries = count('deviation', 'Retry');
  if (retries) words.push(`retried ${times(retries)}`);
  const onTop = count('merge', 'Run again on top');
  if (onTop) words.push(`run again on top of your tree${onTop > 1 ? ` ${times(onTop)}` : ''}`);
  const reruns = count('resume', 'Re-run');
  if (reruns) words.push(`re-run after a restart${reruns > 1 ? ` ${times(reruns)}` : ''}`);
  if (count('resume', 'Mark done')) words.push('marked done by you');
  if (count('merge', 'Resolved by hand')) words.push('resolved by you');
  return words;
}

/** The files it landed, as git applied them, on at most two lines under it: `    src/a.ts +3 −1, src/b.ts +10 −0 (new)`. */
function stepDetail(step: StepRecord): string[] {
  const words = filesOf(step).map(fileWords);
  if (words.length === 0) return step.diff && step.status === 'completed' ? ['    no file changed'] : [];
  const lines: string[] = [];
  let line = '   ';
  for (let i = 0; i < words.length; i++) {
    const item = ` ${words[i]}${i < words.length - 1 ? ',' : ''}`;
    // On the second line, room is kept to say how many more files orca diff shows.
    const room = lines.length === 1 && i < words.length - 1 ? WIDTH - MORE_WORDS : WIDTH;
    if (line.length + item.length > room && line.trim()) {
      if (lines.length === 1) return [...lines, `${line} … ${words.length - i} more`];
      lines.push(line);
      line = '   ';
    }
    line += item;
  }
  return [...lines, line];
}

/** Room for ` … 12 more`. */
const MORE_WORDS = 12;
const fileWords = (f: FileChange) => `${f.path} ${lineCounts(f)}${f.status === 'added' ? ' (new)' : f.status === 'deleted' ? ' (deleted)' : ''}`;
/** What a step landed: the files of the patch git applied to the user's tree (a merge's), else its own diff's. */
const filesOf = (step: StepRecord): FileChange[] => (step.status === 'completed' ? (step.diff?.landed?.files ?? step.diff?.files ?? []) : []);

/** The verification: each check, passed, failed, or failing before the plan too. */
function verificationLines(v: PlanVerification | null, completed: boolean, accepted: boolean): string[] {
  if (!v) return [completed ? 'Verification: none (nothing configured to check: verification.commands, verification.turn).' : 'Verification: not run (the plan stopped before it).'];
  const where = v.where ? ` in your project (${v.where})` : '';
  const old = v.checks.filter((c) => checkVerdict(c) === 'old').length;
  const failed = v.checks.filter((c) => checkVerdict(c) === 'new').length;
  const head = failed
    ? `failed (${failed} check${failed === 1 ? '' : 's'})${accepted ? ', and you accepted the plan as it is' : ''}`
    : old
      ? `no new failure (${old} check${old === 1 ? ' fails' : 's fail'} as before the plan)`
      : 'passed';
  return [
    `Verification${where}: ${head}`,
    ...v.checks.map((c) => {
      const verdict = checkVerdict(c);
      const mark = verdict === 'passed' ? '✓' : verdict === 'old' ? '~' : '✗';
      const words =
        verdict === 'old' ? " (failing before the plan too, not the plan's)" : verdict === 'new' ? (c.before && !c.before.passed ? ' (failing before the plan too, with a failure more now)' : ' (fails now)') : '';
      return `    ${cutLine(`${mark} ${c.name}${words}`, WIDTH - 4)}`;
    }),
    ...(v.changed.length ? [`    ${cutLine(`it changed ${v.changed.join(', ')}`, WIDTH - 4)}`] : []),
  ];
}

function totals(steps: readonly StepRecord[], cost: number, ms: number | null): string {
  const files = new Map<string, FileChange>();
  let added = 0;
  let removed = 0;
  for (const step of steps) {
    for (const f of filesOf(step)) {
      files.set(f.path, f);
      added += f.added ?? 0;
      removed += f.removed ?? 0;
    }
  }
  const time = ms === null ? '' : ` · ${durationWords(ms)}`;
  const measured = steps.some((s) => s.diff) ? `${files.size} file${files.size === 1 ? '' : 's'} changed, +${added} −${removed} · ` : '';
  return `Total: ${measured}${formatCost(cost)}${time}`;
}

/** Where the changes are, and the two commands. */
function whereLines(planId: string, steps: readonly StepRecord[]): string[] {
  const landed = steps.filter((s) => filesOf(s).length > 0);
  if (!steps.some((s) => s.diff)) return ['No change was measured: no step changed files, or the project is not in a git repository.'];
  if (landed.length === 0) return ['No file changed.'];
  if (!landed.some((s) => s.diff?.landed)) return ['The changes are in your project folder (no git: Orca recorded no patch to show or take back).'];
  return ['The changes are in your working tree, not committed:', `    /orca-diff ${planId} shows them`, `    /orca-undo ${planId} takes them back`];
}

/** From the approval to the end (the verification's, or now). */
function durationMs(decisions: readonly DecisionRecord[], v: PlanVerification | null, now: Date): number | null {
  const approved = decisions.find((d) => d.gate === 'approval' && d.option === 'Approve');
  if (!approved) return null;
  const end = v?.at ? Date.parse(v.at) : now.getTime();
  const ms = end - Date.parse(approved.at);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

function durationWords(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
