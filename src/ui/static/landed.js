// What the plan landed in the working tree: each step's files, its patch on demand (coloured, as
// text: a model wrote much of it), the Undo… and Redo… buttons (a dry run first, then the confirming
// button), and the plan's undos and redos. The server runs what `orca undo` and `orca redo` run.
import { getDiff } from './api.js';
import { h, replace } from './dom.js';
import { time } from './format.js';

/** "+10 −2", or "binary" when git counts no lines. */
const counts = (f) => (f.added === null || f.removed === null ? 'binary' : `+${f.added} −${f.removed}`);

const CONFIRM = { undo: 'Take these changes back', redo: 'Put these changes back' };
const CHANNEL = { cli: 'orca undo', command: 'slash command', viewer: 'plan viewer' };

function fileList(files) {
  return h(
    'ul',
    { class: 'changes mono' },
    files.map((f) => h('li', { 'data-path': f.path }, f.path, ' ', h('span', { class: 'counts' }, counts(f)), f.status !== 'modified' ? ` (${f.status}${f.from ? ` from ${f.from}` : ''})` : null)),
  );
}

/** A patch's lines in a <pre>, each a text node in a span of its kind: added, removed, hunk. */
export function diffLines(lines) {
  return h(
    'pre',
    { class: 'diff mono' },
    lines.map(([text, kind]) => h('span', { class: ['dl', kind && `dl-${kind}`] }, text, '\n')),
  );
}

function renderDiff(diff) {
  return [
    diff.sections.map((section) =>
      section.lines.length ? diffLines(section.lines) : h('p', { class: 'muted' }, section.title),
    ),
    diff.cut ? h('p', { class: 'message error' }, diff.cut) : null,
  ];
}

/** The step's patch, fetched when opened (and again after each redraw that finds it open). */
function patch(planId, step, ui) {
  const body = h('div', { class: 'patch-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const details = h('details', { class: 'patch', 'data-step': step.step, open: ui.openPatches.has(step.step) }, h('summary', {}, 'The patch'), body);
  let loading = false;
  const load = () => {
    if (loading) return;
    loading = true;
    getDiff(planId, step.step).then(
      (diff) => replace(body, renderDiff(diff)),
      (error) => replace(body, h('p', { class: 'error' }, error.message)),
    );
  };
  details.addEventListener('toggle', () => {
    if (details.open) {
      ui.openPatches.add(step.step);
      load();
    } else ui.openPatches.delete(step.step);
  });
  if (details.open) load();
  return details;
}

function landedStep(planId, step, view, ui, onRewind) {
  const offered = view.rewind.ended && step.undone_at === null;
  return h(
    'li',
    { class: ['landed-step', step.undone_at && 'taken-back'], 'data-step': step.step },
    h(
      'div',
      { class: 'landed-head' },
      h('strong', {}, step.step),
      ' ',
      h('span', { class: 'agent-name' }, step.agent),
      h('span', { class: 'muted' }, ` · landed ${time(step.at)}`),
      offered
        ? h('button', { type: 'button', class: 'decide rewind-ask', 'data-rewind': 'undo', 'data-step': step.step, disabled: ui.rewind.busy, title: `What undoing only ${step.step} would change`, onclick: () => onRewind('undo', [step.step], false) }, 'Undo this step…')
        : null,
    ),
    step.undone_at ? h('p', { class: 'taken-back-note' }, `Taken back by an undo at ${time(step.undone_at)}: not in your working tree now.`) : null,
    fileList(step.files),
    patch(planId, step, ui),
  );
}

function preview(p, ui, onRewind, onCancel) {
  return h(
    'div',
    { class: 'rewind-preview', 'data-testid': 'rewind-preview', 'data-direction': p.direction },
    h('h3', {}, p.direction === 'undo' ? 'What Undo would do' : 'What Redo would do'),
    h('pre', { class: 'rewind-text' }, p.text),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', class: ['decide', 'rewind-confirm', `rewind-${p.direction}`], 'data-confirm': p.direction, disabled: ui.rewind.busy, onclick: () => onRewind(p.direction, p.steps, true) }, CONFIRM[p.direction]),
      h('button', { type: 'button', class: 'decide', disabled: ui.rewind.busy, onclick: onCancel }, 'Cancel'),
    ),
  );
}

function records(list) {
  if (list.length === 0) return null;
  return [
    h('h3', {}, 'Undos and redos'),
    h(
      'table',
      { class: 'undos', 'data-testid': 'undos' },
      h('thead', {}, h('tr', {}, ['When', 'What', 'Steps', 'From', 'Files'].map((t) => h('th', {}, t)))),
      h(
        'tbody',
        {},
        list.map((u) =>
          h(
            'tr',
            { 'data-kind': u.kind },
            h('td', {}, time(u.at)),
            h('td', {}, h('strong', {}, u.kind === 'undo' ? 'Undo: taken back' : 'Redo: put back')),
            h('td', {}, u.steps.join(', ')),
            h('td', {}, CHANNEL[u.channel] ?? u.channel),
            h('td', { class: 'mono' }, u.files.map((f, i) => [i ? ', ' : '', `${f.path} ${counts(f)}`])),
          ),
        ),
      ),
    ),
  ];
}

/** The card, or nothing when the plan landed nothing Orca recorded and was never undone. */
export function renderLanded(root, view, ui, { onRewind, onCancel }) {
  const r = view.rewind;
  if (r.landed.length === 0 && r.records.length === 0) return replace(root);
  const busy = ui.rewind.busy;
  replace(
    root,
    h(
      'section',
      { class: 'card landed', 'data-testid': 'landed' },
      h(
        'div',
        { class: 'landed-top' },
        h('h2', {}, 'What it landed'),
        h('span', { class: 'muted' }, 'in your working tree, uncommitted'),
        h(
          'span',
          { class: 'buttons' },
          r.undo ? h('button', { type: 'button', class: 'decide rewind-ask', 'data-rewind': 'undo', disabled: busy, title: 'What undoing every step in your working tree would change', onclick: () => onRewind('undo', [], false) }, 'Undo…') : null,
          r.redo ? h('button', { type: 'button', class: 'decide rewind-ask', 'data-rewind': 'redo', disabled: busy, title: 'What putting back the last undo would change', onclick: () => onRewind('redo', [], false) }, 'Redo…') : null,
        ),
      ),
      r.ended ? null : h('p', { class: 'muted' }, 'Undo… comes once the plan has ended (completed, failed or rejected).'),
      ui.rewind.preview ? preview(ui.rewind.preview, ui, onRewind, onCancel) : null,
      ui.rewind.message ? h('pre', { class: ['message', 'rewind-text', ui.rewind.message.kind], role: 'status', 'data-testid': 'rewind-message' }, ui.rewind.message.text) : null,
      h('ol', { class: 'landed-steps' }, r.landed.map((step) => landedStep(view.plan_id, step, view, ui, onRewind))),
      records(r.records),
    ),
  );
}
