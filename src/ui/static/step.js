// The selected step: what it produced, how it failed and what the human said, its usage, and what fed its prompt.
import { h, list, section } from './dom.js';
import { bytes, phaseWords, time, usage, words } from './format.js';
import { badge } from './list.js';

function output(step) {
  if (!step.output) return null;
  return section(
    'Output',
    h('p', {}, step.output.summary),
    step.output.artifacts.length ? [h('h3', {}, 'Artifacts'), list(step.output.artifacts, { class: 'mono' })] : null,
    step.output.key_findings.length ? [h('h3', {}, 'Key findings'), list(step.output.key_findings)] : null,
  );
}

function failures(step) {
  if (step.failures.length === 0 && !step.breaker && step.warnings.length === 0) return null;
  return section(
    'Failures',
    step.failures.length
      ? h(
          'ol',
          { class: 'failures' },
          step.failures.map((f) => h('li', { value: f.attempt }, f.what ? h('strong', { class: 'failure-kind' }, `${f.what}: `) : null, h('span', { class: 'error' }, f.error), f.guidance ? h('div', { class: 'guidance' }, 'The human’s guidance: ', h('q', {}, f.guidance)) : null)),
        )
      : null,
    step.breaker ? h('p', { class: 'breaker' }, step.breaker) : null,
    step.warnings.length ? [h('h3', {}, 'Warnings'), list(step.warnings)] : null,
  );
}

/** "+10 −2", or "binary" when git counts no lines. */
const counts = (f) => (f.added === null || f.removed === null ? 'binary' : `+${f.added} −${f.removed}`);

/** What the step really changed (git): each file with its counts, the files it did not declare flagged. */
function changes(step) {
  const c = step.changes;
  if (!c) return null;
  return section(
    'Changes',
    h('p', { 'data-testid': 'changes-summary' }, c.summary),
    step.taken_back_at ? h('p', { class: 'taken-back-note', 'data-testid': 'taken-back' }, `Taken back by an undo at ${time(step.taken_back_at)}: not in your working tree now.`) : null,
    c.files.length
      ? h(
          'ul',
          { class: 'changes mono' },
          c.files.map((f) =>
            h(
              'li',
              { 'data-path': f.path },
              f.path,
              ' ',
              h('span', { class: 'counts' }, counts(f)),
              f.status !== 'modified' ? ` (${f.status}${f.from ? ` from ${f.from}` : ''})` : null,
              f.undeclared ? h('span', { class: 'undeclared' }, ' not declared') : null,
            ),
          ),
        )
      : null,
    c.note ? h('p', { class: 'muted' }, `Measured in the ${c.note}.`) : null,
    c.overlap ? h('p', { class: 'muted' }, `It ${c.overlap}.`) : null,
    c.patch_path ? h('p', { class: 'muted' }, 'The whole patch: ', h('span', { class: 'mono' }, c.patch_path)) : null,
  );
}

/** The files whose change did not apply, each with its clashing regions (cut on the server), as text. */
export function conflicts(list) {
  return h(
    'div',
    { class: 'conflicts' },
    list.map((c) => [h('h3', {}, `Conflict in ${c.path}`), c.hunks.map((hunk) => h('pre', { class: 'hunk mono' }, hunk))]),
  );
}

const ROLE_WORDS = { specialist: 'Specialist', reviewer: 'Reviewer', fixer: 'Fixer', ask: 'Read-only asks' };

/** The step's usage by whose turns they were; what older plan files recorded without a role is "not attributed". */
function byRole(step) {
  const roles = step.usage_by_role;
  if (!roles) return null;
  const attributed = Object.values(roles).reduce((n, u) => n + (u.turns ?? 0), 0);
  const rest = (step.usage.turns ?? 0) - attributed;
  return h(
    'ul',
    { class: 'usage-by-role', 'data-testid': 'usage-by-role' },
    Object.entries(roles).map(([role, u]) => h('li', {}, h('strong', {}, `${ROLE_WORDS[role] ?? role}: `), usage(u))),
    rest > 0 ? h('li', { class: 'muted' }, `Not attributed: ${rest} Orca turn${rest === 1 ? '' : 's'} (recorded before roles were)`) : null,
  );
}

function fedBy(step) {
  const fed = step.fed_by;
  return section(
    'What fed its prompt',
    h(
      'p',
      {},
      fed.steps.length === 0
        ? 'No earlier steps: it depends on none.'
        : ['Outputs of: ', fed.steps.map((d, i) => [i ? ', ' : '', h('strong', {}, d.id), ` (${d.agent}${d.has_output ? '' : ', no output yet'})`])],
    ),
    fed.missing.length ? h('p', { class: 'error' }, `Depends on steps that are not in the plan: ${fed.missing.join(', ')}`) : null,
    fed.files.length ? [h('h3', {}, 'Files'), list(fed.files, { class: 'mono' })] : null,
    h('p', { class: 'muted', 'data-testid': 'prompt-size' }, `Prompt: ${fed.prompt_chars.toLocaleString('en')} characters (${bytes(fed.prompt_bytes)}), rendered from the plan file as the plugin renders it for the ${step.failures.length && step.status !== 'completed' ? 'next' : 'latest'} attempt.`),
  );
}

export function renderStep(step) {
  return h(
    'div',
    { class: 'step', 'data-step': step.id },
    h('h2', {}, `Step ${step.id} `, h('span', { class: 'agent-name' }, step.agent), ' ', badge(step.status)),
    step.phase ? h('p', { class: 'muted', 'data-testid': 'phase' }, `Now: ${phaseWords(step.phase)}`) : null,
    h('p', { class: 'description' }, step.description),
    step.success ? h('p', {}, h('strong', {}, 'Done when: '), step.success) : null,
    h('p', { class: 'muted' }, [`${step.attempts} attempt${step.attempts === 1 ? '' : 's'}`, step.review, step.session_id ? `session ${step.session_id}` : ''].filter(Boolean).join(' · ')),
    output(step),
    failures(step),
    changes(step),
    step.conflicts ? section('Did not apply to your working tree', conflicts(step.conflicts)) : null,
    step.usage ? section('Usage', h('p', {}, usage(step.usage)), byRole(step)) : null,
    fedBy(step),
  );
}
