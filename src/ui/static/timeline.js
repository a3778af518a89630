// The decisions taken at the plan's gates, and its journal as a timeline (newest first), in the
// words of `orca show`'s history: the server sends each entry as text.
import { h } from './dom.js';
import { time } from './format.js';

export function renderDecisions(view) {
  if (view.decisions.length === 0) return h('section', { class: 'card' }, h('h2', {}, 'Decisions'), h('p', { class: 'muted' }, 'None yet.'));
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, 'Decisions'),
    h(
      'table',
      { class: 'decisions' },
      h('thead', {}, h('tr', {}, ['When', 'Gate', 'Step', 'Option', 'Channel', 'Text'].map((t) => h('th', {}, t)))),
      h('tbody', {}, view.decisions.map((d) => h('tr', {}, h('td', {}, time(d.at)), h('td', {}, d.gate), h('td', {}, d.step_id ?? ''), h('td', {}, h('strong', {}, d.option)), h('td', {}, d.channel), h('td', {}, d.text ?? '')))),
    ),
  );
}

export function renderTimeline(view, ui, onShowStates) {
  const { total, items } = view.timeline;
  const shown = (ui.showStates ? items : items.filter((i) => i.kind !== 'state')).slice().reverse();
  const count = total > items.length ? `${total} entries, the latest ${items.length} here` : `${total} entries`;
  return h(
    'section',
    { class: 'card' },
    h(
      'div',
      { class: 'timeline-head' },
      h('h2', {}, 'Journal'),
      h('span', { class: 'muted' }, count),
      h('label', {}, h('input', { type: 'checkbox', checked: ui.showStates, onchange: (event) => onShowStates(event.target.checked) }), ' states entered'),
    ),
    total === 0
      ? h('p', { class: 'muted' }, 'No journal yet.')
      : h(
          'ol',
          { class: 'timeline', reversed: true },
          shown.map((item) => h('li', { class: ['tl', `tl-${item.kind}`] }, h('time', {}, time(item.at)), h('span', { class: 'text' }, item.text))),
        ),
  );
}
