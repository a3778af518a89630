// Where the plan waits and why, with the gate's options as buttons. A click posts exactly what
// `orca decide` posts (the server runs the same function); nothing else on the page changes a plan.
import { h, replace } from './dom.js';
import { conflicts } from './step.js';

export function renderGates(root, view, ui, onDecide) {
  const actionable = view.gates.some((g) => g.options.length > 0);
  if (view.gates.length === 0 && !ui.message) return replace(root);
  // A gate whose decision waits to be applied takes no other; another step's gate still does.
  const blocked = (gate) => ui.busy || Boolean(gate.queued);
  const guidance = actionable
    ? h(
        'label',
        { class: 'guidance-box' },
        'Guidance or note (optional; Request Changes needs it)',
        h('textarea', { rows: 2, maxlength: 4000, placeholder: 'e.g. use the v2 API', oninput: (event) => (ui.guidance = event.target.value) }),
      )
    : null;
  if (guidance) guidance.querySelector('textarea').value = ui.guidance;
  replace(
    root,
    h(
      'section',
      { class: 'card gates', 'data-testid': 'gates' },
      h('h2', {}, view.gates.length ? 'Waiting for you' : 'Decision'),
      view.gates.map((gate) =>
        h(
          'div',
          { class: ['gate', `gate-${gate.kind}`], 'data-gate': gate.kind, 'data-step': gate.step_id },
          h('h3', {}, gate.title),
          gate.detail.map((line) => h('p', {}, line)),
          gate.conflicts ? conflicts(gate.conflicts) : null,
          gate.options.length
            ? h(
                'div',
                { class: 'buttons' },
                gate.options.map((option) =>
                  h(
                    'button',
                    { type: 'button', class: ['decide', `choice-${option.choice}`], 'data-choice': option.choice, 'data-step': gate.step_id, disabled: blocked(gate), onclick: () => onDecide(gate, option) },
                    option.label,
                  ),
                ),
              )
            : null,
        ),
      ),
      guidance,
      view.queued.length ? h('p', { class: 'message busy' }, `A decision waits to be applied: ${view.queued.join('; ')}.`) : null,
      ui.message ? h('p', { class: ['message', ui.message.kind], role: 'status' }, ui.message.text) : null,
    ),
  );
}
