// The plans of the project: status, progress, cost, what each waits for.
import { h, replace } from './dom.js';
import { ago, cost, time, WAITING, words } from './format.js';

export function progressBar(progress) {
  const fill = h('span', { class: 'fill' });
  // Through CSSOM: the page's CSP allows no inline style attributes.
  fill.style.width = `${progress.total === 0 ? 0 : Math.round((progress.completed / progress.total) * 100)}%`;
  return h(
    'span',
    { class: 'progress', title: `${progress.completed} of ${progress.total} steps completed` },
    h('span', { class: 'bar' }, fill),
    h('span', { class: 'count' }, `${progress.completed}/${progress.total}`),
  );
}

export const badge = (status, extra = '') => h('span', { class: ['badge', `status-${status}`, extra], 'data-status': status }, words(status));

function row(plan) {
  // Steps whose state says running run only while a process holds the plan: a paused plan runs nothing.
  const running = plan.activity === 'running' && plan.progress.running.length > 0 ? h('span', { class: 'running-note' }, ` ${plan.progress.running.length} running`) : null;
  return h(
    'tr',
    { 'data-plan': plan.plan_id, 'data-status': plan.status },
    h('td', { class: 'mono' }, h('a', { href: `#/plan/${plan.plan_id}` }, plan.plan_id)),
    h('td', { class: 'goal' }, plan.goal || h('span', { class: 'muted' }, '(no goal yet)')),
    h('td', {}, badge(plan.status)),
    h('td', {}, now(plan)),
    h('td', {}, progressBar(plan.progress), running),
    h('td', { class: 'num' }, plan.usage?.cost !== undefined ? cost(plan.usage.cost) : ''),
    h('td', { title: time(plan.updated_at) }, ago(plan.updated_at)),
  );
}

/** What the plan is doing: the gate it waits at, running, paused (nothing runs it until it is resumed), or —. */
function now(plan) {
  if (plan.waiting_for) return h('span', { class: 'waiting' }, WAITING[plan.waiting_for] ?? plan.waiting_for);
  if (plan.activity === 'paused') return h('span', { class: 'paused', title: 'Work was in flight, but nothing runs it: ask Orca to continue it' }, 'paused');
  if (plan.activity === 'running') return h('span', { class: 'running-note' }, 'running');
  return h('span', { class: 'muted' }, '—');
}

export function renderList(root, data) {
  const plans =
    data.plans.length === 0
      ? h('p', { class: 'muted' }, `No plans yet in ${data.project}/.opencode/plans.`)
      : h(
          'table',
          { class: 'plans' },
          h('thead', {}, h('tr', {}, ['Plan', 'Goal', 'Status', 'Now', 'Progress', 'Cost', 'Updated'].map((t) => h('th', {}, t)))),
          h('tbody', {}, data.plans.map(row)),
        );
  const unreadable =
    data.unreadable.length === 0
      ? null
      : h(
          'section',
          { class: 'card' },
          h('h2', {}, 'Plan files that do not load'),
          h('ul', {}, data.unreadable.map((u) => h('li', {}, h('span', { class: 'mono' }, u.plan_id), `: ${u.reason}`))),
        );
  replace(root, h('section', { class: 'card' }, h('h1', {}, 'Plans'), plans), unreadable);
}
