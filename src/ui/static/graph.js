// The step graph, drawn as SVG from the layout the server computed (dagre): boxes coloured by
// state, running steps pulsing, attempts and reviewer rounds on each box, a step an undo took back marked.
import { h, replace, s } from './dom.js';
import { phaseNow, phaseWords, words } from './format.js';

const clip = (text, max) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const pathOf = (points) => points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' ');

function node(n, selected, onSelect) {
  const meta = [n.attempts > 1 ? `attempt ${n.attempts}` : n.attempts === 1 ? '1 attempt' : '', n.review ?? '', n.taken_back ? 'taken back' : ''].filter(Boolean).join(' · ');
  const select = onSelect ? () => onSelect(n.id) : undefined;
  return s(
    'g',
    {
      class: ['node', `status-${n.status}`, n.id === selected && 'selected', n.taken_back && 'taken-back'],
      transform: `translate(${n.x},${n.y})`,
      'data-step': n.id,
      'data-status': n.status,
      tabindex: onSelect ? 0 : undefined,
      role: onSelect ? 'button' : undefined,
      onclick: select,
      onkeydown: select && ((event) => (event.key === 'Enter' || event.key === ' ') && select()),
    },
    s('title', {}, `${n.id} (${n.agent}): ${words(n.status)}${n.phase ? `, ${phaseWords(n.phase)}` : ''}${meta ? `, ${meta}` : ''}`),
    n.status === 'running' ? s('rect', { class: 'pulse', x: -4, y: -4, width: n.width + 8, height: n.height + 8, rx: 11 }) : null,
    s('rect', { class: 'box', width: n.width, height: n.height, rx: 8 }),
    s('text', { class: 'id', x: 10, y: 20 }, clip(n.id, 16)),
    s('text', { class: 'agent', x: n.width - 10, y: 20, 'text-anchor': 'end' }, n.agent),
    s('text', { class: 'state', x: 10, y: 40 }, clip(`${words(n.status)}${n.phase && n.phase !== n.status ? ` · ${phaseNow(n.phase)}` : ''}`, 26)),
    meta ? s('text', { class: 'meta', x: 10, y: 58 }, meta) : null,
  );
}

/** One graph as an SVG element; `idPrefix` keeps marker ids apart when two graphs share the page. */
export function renderGraph(graph, { selected, onSelect, idPrefix, label }) {
  if (graph.nodes.length === 0) return h('p', { class: 'muted' }, 'No steps yet: the planner has not proposed a plan.');
  const marker = `${idPrefix}-arrow`;
  return s(
    'svg',
    { class: 'graph', viewBox: `0 0 ${graph.width} ${graph.height}`, width: graph.width, height: graph.height, role: 'img', 'aria-label': label },
    s('defs', {}, s('marker', { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { class: 'arrow', d: 'M0,0 L10,5 L0,10 z' }))),
    graph.edges.map((e) => s('path', { class: 'edge', d: pathOf(e.points), 'marker-end': `url(#${marker})`, 'data-from': e.from, 'data-to': e.to })),
    graph.nodes.map((n) => node(n, selected, onSelect)),
  );
}

const LEGEND = ['pending', 'running', 'awaiting_decision', 'awaiting_resume', 'awaiting_merge', 'completed', 'stopped'];

/** The current graph, and beside it an earlier version when the plan file keeps revisions and one is chosen. */
export function renderGraphPanel(root, view, ui, selected, onSelect, onRevision) {
  const chosen = view.revisions.find((r) => r.index === ui.revision);
  const picker =
    view.revisions.length === 0
      ? null
      : h(
          'label',
          { class: 'revision-picker' },
          'Beside it: ',
          h(
            'select',
            { onchange: (event) => onRevision(event.target.value === '' ? undefined : Number(event.target.value)) },
            h('option', { value: '' }, 'nothing'),
            view.revisions.map((r) => h('option', { value: r.index, selected: r.index === ui.revision }, `previous: ${r.label}`)),
          ),
        );
  const current = h('figure', { class: 'graph-box', 'data-graph': 'current' }, h('figcaption', {}, chosen ? 'Current plan' : 'Steps'), renderGraph(view.graph, { selected, onSelect, idPrefix: 'current', label: 'the plan’s steps' }));
  const previous = chosen
    ? h('figure', { class: 'graph-box previous', 'data-graph': `revision-${chosen.index}` }, h('figcaption', {}, chosen.label), renderGraph(chosen.graph, { idPrefix: `rev${chosen.index}`, label: chosen.label }))
    : null;
  replace(
    root,
    h('div', { class: 'graph-head' }, h('h2', {}, 'Step graph'), h('span', { class: 'legend' }, LEGEND.map((st) => h('span', { class: ['swatch', `status-${st}`] }, words(st)))), picker),
    h('div', { class: 'graphs' }, current, previous),
  );
}
