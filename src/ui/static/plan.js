// One plan: its header, the gate it waits at, what it landed (with Undo… and Redo…), the step graph
// beside the selected step, the lists, the decisions and the journal. Each part is redrawn only when its own data changed, so a live
// update never wipes the guidance someone is typing.
import { decide, rewind } from './api.js';
import { h, list, replace, section } from './dom.js';
import { cost, time, usage, WAITING, words } from './format.js';
import { renderGates } from './gate.js';
import { renderGraphPanel } from './graph.js';
import { renderLanded } from './landed.js';
import { badge, progressBar } from './list.js';
import { renderStep } from './step.js';
import { renderDecisions, renderTimeline } from './timeline.js';

export function createPlanPage(root, planId, refresh) {
  const ui = {
    selected: undefined,
    revision: undefined,
    guidance: '',
    message: null,
    busy: false,
    showStates: true,
    // An Undo… or Redo… asked: its dry run waiting for the confirming button, or what it did (or why not).
    rewind: { busy: false, preview: null, message: null },
    /** The steps whose patch is open under What it landed. */
    openPatches: new Set(),
  };
  const el = {
    problem: h('div'),
    head: h('div'),
    gates: h('div'),
    landed: h('div'),
    graph: h('div', { class: 'graph-panel card' }),
    step: h('aside', { class: 'step-panel card' }),
    facts: h('div'),
    decisions: h('div'),
    timeline: h('div'),
  };
  el.body = h('div', { hidden: true }, el.head, el.gates, el.landed, h('div', { class: 'plan-body' }, el.graph, el.step), el.facts, el.decisions, el.timeline);
  replace(root, h('a', { class: 'back', href: '#/' }, '← all plans'), el.problem, el.body);
  const drawn = {};
  let view;

  /** Redraw `part` when the data it shows changed (or when forced). */
  function draw(part, data, render, force = false) {
    const key = JSON.stringify(data);
    if (!force && drawn[part] === key) return;
    drawn[part] = key;
    render();
  }

  const selectedStep = () =>
    view.steps.find((st) => st.id === ui.selected) ??
    view.steps.find((st) => st.status === 'awaiting_decision' || st.status === 'awaiting_resume' || st.status === 'awaiting_merge') ??
    view.steps.find((st) => st.status === 'running') ??
    view.steps[0];

  /**
   * A message about a decision (its confirmation or why it was refused) belongs to the gates it
   * answered: it stays while they are open or while no gate is, and goes once another gate opens
   * (other gates, or the same kind again after the plan recorded a decision).
   */
  // The gates as they stand, not whether a decision waits at one: the decision just sent must not outlive its own message.
  const gatesNow = () => JSON.stringify(view.gates.map(({ queued, ...gate }) => gate));
  const say = (kind, text) => ({ kind, text, gates: gatesNow(), decisions: view.decisions.length });
  const outlived = (message) => view.gates.length > 0 && (gatesNow() !== message.gates || view.decisions.length > message.decisions);

  async function onDecide(gate, option) {
    const text = ui.guidance.trim();
    if (option.needs_text && !text) {
      ui.message = say('error', `${option.label} needs your guidance for the planner: write it in the box above.`);
      drawAll(true);
      el.gates.querySelector('textarea')?.focus();
      return;
    }
    ui.busy = true;
    const sent = say('busy', `Sending ${option.label}…`);
    ui.message = sent;
    drawAll(true);
    try {
      const result = await decide(planId, { choice: option.choice, ...(text ? { text } : {}), ...(gate.step_id ? { step: gate.step_id } : {}) });
      ui.message = { ...sent, kind: 'ok', text: `${result.summary}: ${result.message}${result.note ? ` (note: ${result.note})` : ''}` };
      ui.guidance = '';
    } catch (error) {
      ui.message = { ...sent, kind: 'error', text: error.message };
    } finally {
      ui.busy = false;
      drawAll(true);
      refresh();
    }
  }

  /** Undo… or Redo… (`apply` false): the server's dry run, shown with the button that confirms it; confirmed (`apply` true): done. */
  async function onRewind(direction, steps, apply) {
    ui.rewind = { busy: true, preview: apply ? ui.rewind.preview : null, message: { kind: 'busy', text: apply ? `${direction === 'undo' ? 'Taking the changes back' : 'Putting the changes back'}…` : 'Asking what it would change…' } };
    drawAll();
    try {
      const result = await rewind(planId, direction, { apply, ...(steps.length ? { steps } : {}) });
      ui.rewind = apply ? { busy: false, preview: null, message: { kind: 'ok', text: result.text } } : { busy: false, preview: { direction, steps, text: result.text }, message: null };
    } catch (error) {
      ui.rewind = { busy: false, preview: null, message: { kind: 'error', text: error.message } };
    } finally {
      drawAll();
      refresh();
    }
  }

  function onRewindCancel() {
    ui.rewind = { busy: false, preview: null, message: null };
    drawAll();
  }

  function drawAll(forceGates = false) {
    const step = selectedStep();
    draw('head', [view.goal, view.status, view.state, view.waiting_for, view.progress, view.usage, view.dispatches, view.updated_at], () => replace(el.head, head(view)));
    if (ui.message && !ui.busy && outlived(ui.message)) ui.message = null;
    draw('gates', [view.gates, view.queued, ui.message], () => renderGates(el.gates, view, ui, onDecide), forceGates);
    draw('landed', [view.rewind, ui.rewind], () => renderLanded(el.landed, view, ui, { onRewind, onCancel: onRewindCancel }));
    draw('graph', [view.graph, view.revisions, step?.id, ui.revision], () =>
      renderGraphPanel(el.graph, view, ui, step?.id, (id) => {
        ui.selected = id;
        drawAll();
      }, (revision) => {
        ui.revision = revision;
        drawAll();
      }),
    );
    draw('step', step, () => replace(el.step, step ? renderStep(step) : h('p', { class: 'muted' }, 'No steps yet.')));
    draw('facts', [view.assumptions, view.risks, view.verification, view.relevant_files], () => replace(el.facts, facts(view)));
    draw('decisions', view.decisions, () => replace(el.decisions, renderDecisions(view)));
    draw('timeline', [view.timeline, ui.showStates], () =>
      replace(el.timeline, renderTimeline(view, ui, (show) => {
        ui.showStates = show;
        drawAll();
      })),
    );
  }

  return {
    update(next) {
      view = next;
      replace(el.problem);
      el.body.hidden = false;
      document.title = `${next.plan_id} · ${words(next.status)} · Orca`;
      drawAll();
    },
    /** The plan cannot be shown (its file does not load, say): only why, and what to do; the page follows the file and redraws when it loads. */
    problem(message) {
      replace(el.problem, h('p', { class: 'problem' }, message), h('p', { class: 'muted' }, PROBLEM_ADVICE));
      el.body.hidden = true;
    },
  };
}

const PROBLEM_ADVICE =
  'This page shows the plan again as soon as its file loads. A plan file that does not load can be fixed by hand, or moved aside by orca doctor (to .opencode/plans/.quarantine/, its reason beside it).';

function head(view) {
  const facts = [
    ['Plan', h('span', { class: 'mono' }, view.plan_id)],
    ['State', view.state],
    ['Waiting for', view.waiting_for ? h('strong', { class: 'waiting' }, WAITING[view.waiting_for] ?? view.waiting_for) : 'nothing'],
    ['Progress', progressBar(view.progress), view.progress.running.length ? ` · running: ${view.progress.running.join(', ')}` : ''],
    view.usage ? ['Usage', usage(view.usage)] : null,
    view.dispatches ? ['Dispatches', `${view.dispatches.used} of ${view.dispatches.cap}`] : null,
    ['Created', time(view.created_at)],
    ['Updated', time(view.updated_at)],
  ].filter(Boolean);
  return h(
    'section',
    { class: 'card plan-head' },
    h('h1', {}, badge(view.status, 'big'), ' ', view.goal || '(no goal yet)', view.usage?.cost !== undefined ? h('span', { class: 'cost' }, cost(view.usage.cost)) : null),
    h('dl', { class: 'facts' }, facts.map(([term, ...value]) => [h('dt', {}, term), h('dd', {}, value)])),
  );
}

function facts(view) {
  return h(
    'div',
    { class: 'fact-lists' },
    section('Assumptions', list(view.assumptions)),
    section('Risks', list(view.risks)),
    section('Verification', list(view.verification)),
    section('Relevant files', list(view.relevant_files, { class: 'mono' })),
  );
}
