import type { RewindRefusal } from '../machines/rewind.machine.js';
import type { FileChange } from '../machines/types.js';
import type { LandedSection } from './landed-diff.js';
import type { Recovered, RewindReport } from './rewind-plan.js';

/**
 * An undo or redo in words, the same on every channel; `how` says what to type (or press) there
 * to go on: the command line's `orca undo … --yes`, the session's `/orca-undo … --yes`, the viewer's button.
 */
export interface RewindHow {
  /** Do what the dry run said: `orca undo plan_… --yes`. */
  confirm: (report: RewindReport) => string;
  /** Put back what an undo took: `orca redo plan_…`. */
  redo: (planId: string) => string;
  /** Undo these steps together: `orca undo plan_… --step a --step b`. */
  undoSteps: (planId: string, steps: string[]) => string;
}

export function rewindText(report: RewindReport, how: RewindHow): string {
  const lines = report.recovered ? [recoveredText(report.recovered), ''] : [];
  lines.push(...outcomeLines(report, how));
  return lines.join('\n');
}

/** What the start of a server (or of `orca undo`) found of a rewind a crash cut short. */
export function recoveredText(r: Recovered): string {
  const what = `An ${r.direction} of plan ${r.planId} (${r.steps.join(', ')}) was interrupted`;
  const left = r.left.length ? ` ${r.left.join(', ')} changed since and ${r.left.length === 1 ? 'was' : 'were'} left as ${r.left.length === 1 ? 'it is' : 'they are'}.` : '';
  return r.outcome === 'completed'
    ? `${what} after it had changed every file: it is done, and recorded.`
    : `${what}: your working tree was put back as it was before it.${left}`;
}

function outcomeLines(report: RewindReport, how: RewindHow): string[] {
  const c = report.context;
  const undo = c.direction === 'undo';
  const steps = c.chosen.join(', ');
  switch (report.state) {
    case 'previewed':
      return [
        `${undo ? `Undo would take the changes of ${steps} (plan ${c.planId}) back out of` : `Redo would put the changes of ${steps} (plan ${c.planId}) back in`} your working tree:`,
        ...fileLines(c.check?.files ?? []),
        'Your other changes (other files, other lines) stay; HEAD, the index and branches are not touched.',
        `Nothing has changed yet: ${how.confirm(report)}.`,
      ];
    case 'applied':
      return [
        `${undo ? `Took the changes of ${steps} (plan ${c.planId}) back out of` : `Put the changes of ${steps} (plan ${c.planId}) back in`} your working tree: ${count(c.check?.files.length ?? 0, 'file')}.`,
        ...fileLines(c.check?.files ?? []),
        undo ? `To put them back: ${how.redo(c.planId)}.` : 'They are in your working tree again, uncommitted.',
      ];
    case 'refused':
      return refusalLines(c.refusal!, report, how);
    case 'failed':
      return [`The ${c.direction} of plan ${c.planId} failed: ${c.error ?? 'no reason given'}. A file it changed is put back as before by the next start of OpenCode or of orca undo.`];
  }
}

function refusalLines(refusal: RewindRefusal, report: RewindReport, how: RewindHow): string[] {
  const planId = report.context.planId;
  switch (refusal.reason) {
    case 'plan_not_ended':
      return [`Plan ${planId} is ${refusal.status.replaceAll('_', ' ')}: an undo takes back a plan that has ended (completed, stopped or rejected), so its steps do not build on what it took. Let it end, or stop it at its gate, then undo.`];
    case 'unknown_steps':
      return [`Plan ${planId} has no step ${refusal.steps.join(', ')}; its steps: ${report.context.steps.map((s) => s.id).join(', ')}.`];
    case 'not_recorded':
      return [
        !report.git
          ? 'The project is not in a git repository: Orca recorded no landed change to take back (your usual tools, or your editor, can).'
          : refusal.steps.length
            ? `Orca recorded no landed change of ${refusal.steps.join(', ')}: ${refusal.steps.length === 1 ? 'it' : 'they'} changed no file, never landed, or ran before Orca kept what landed.`
            : `Orca recorded no landed change of plan ${planId}: its steps changed no file, never landed, or ran before Orca kept what landed.`,
      ];
    case 'already_undone':
      return [`The changes of ${refusal.steps.join(', ')} were taken back already: ${how.redo(planId)} puts the last undo back.`];
    case 'nothing_to_undo':
      return [`Nothing of plan ${planId} is in your working tree to take back: its changes were taken back already, or are not there any more.`];
    case 'nothing_to_redo':
      return [`No undo of plan ${planId} to put back.`];
    case 'dependents':
      return [
        ...refusal.dependents.map((d) => `${d.of} cannot be taken back without ${d.step}: ${d.step} depends on it and landed after it.`),
        `Nothing changed. To take them back together: ${how.undoSteps(planId, [...new Set([...report.context.asked, ...refusal.dependents.map((d) => d.step)])])}.`,
      ];
    case 'changed_since':
      return [
        `Nothing changed: these lines changed since ${report.context.direction === 'undo' ? 'the plan landed them' : 'the undo'}, so the ${report.context.direction} does not apply cleanly:`,
        ...refusal.clashes.map((c) => `  ${c.path || '(a patch)'}${c.line !== null ? `:${c.line}` : ''} (${c.step === 'undo' ? 'the undo' : `step ${c.step}`}): ${c.detail}`),
        'Put those lines back as the plan left them, or take the rest back by hand (orca diff shows what it landed).',
      ];
  }
}

const STATUS_WORDS: Record<FileChange['status'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', renamed: 'renamed' };

/** `  modified  src/a.ts  +3 −1`, one line per file. */
export function fileLines(files: readonly FileChange[]): string[] {
  const width = Math.min(48, Math.max(0, ...files.map((f) => f.path.length)));
  return files.map((f) => `  ${STATUS_WORDS[f.status].padEnd(8)}  ${f.path.padEnd(width)}  ${f.added === null ? 'binary' : `+${f.added} −${f.removed}`}`);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A line of `orca diff`: its text, and what it is (a diff's line kinds, a heading, a comment). */
export type DiffLine = readonly [text: string, kind?: 'added' | 'removed' | 'hunk' | 'heading'];

/**
 * What a plan landed, as a unified diff: each step's patch in the order they landed, under a `#` line
 * naming the step (git apply reads past such lines). A step an undo took back, or with nothing
 * recorded, is named and left out.
 */
export function landedDiffLines(planId: string, sections: readonly LandedSection[]): DiffLine[] {
  if (sections.length === 0) return [[`# plan ${planId}: no step landed a change`, 'heading']];
  return sections.flatMap((s): DiffLine[] => {
    const files = s.files.map((f) => `${f.path} ${f.added === null ? 'binary' : `+${f.added} −${f.removed}`}`).join(', ');
    const head = `# ${planId} · ${s.step} (${s.agent})`;
    if (s.undoneAt) return [[`${head} · taken back by an undo at ${when(s.undoneAt)} (orca redo ${planId} puts it back)`, 'heading']];
    if (!s.at) return [[`${head} · Orca recorded no landed change (it changed no file, or ran without git)`, 'heading']];
    if (s.patch === null) return [[`${head} · landed ${when(s.at)} · ${files} · its patch is gone from beside the plan file`, 'heading']];
    if (s.patch.length === 0) return [[`${head} · landed ${when(s.at)} · no change`, 'heading']];
    return [[`${head} · landed ${when(s.at)} · ${files}`, 'heading'], ...s.patch.replace(/\n$/, '').split('\n').map(patchLine)];
  });
}

/** `2026-12-06 06:15:19Z`: an ISO time as people read it. */
const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

function patchLine(line: string): DiffLine {
  if (line.startsWith('@@')) return [line, 'hunk'];
  if (line.startsWith('+') && !line.startsWith('+++')) return [line, 'added'];
  if (line.startsWith('-') && !line.startsWith('---')) return [line, 'removed'];
  return [line];
}
