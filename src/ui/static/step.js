// The selected step: what it produced, how it failed and what the human said, its usage, and what fed its prompt.
import { h, list, section } from './dom.js';
import { bytes, usage, words } from './format.js';
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
          step.failures.map((f) => h('li', { value: f.attempt }, h('span', { class: 'error' }, f.error), f.guidance ? h('div', { class: 'guidance' }, 'The human’s guidance: ', h('q', {}, f.guidance)) : null)),
        )
      : null,
    step.breaker ? h('p', { class: 'breaker' }, step.breaker) : null,
    step.warnings.length ? [h('h3', {}, 'Warnings'), list(step.warnings)] : null,
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
    step.phase ? h('p', { class: 'muted' }, `Now: ${words(step.phase)}`) : null,
    h('p', { class: 'description' }, step.description),
    step.success ? h('p', {}, h('strong', {}, 'Done when: '), step.success) : null,
    h('p', { class: 'muted' }, [`${step.attempts} attempt${step.attempts === 1 ? '' : 's'}`, step.review, step.session_id ? `session ${step.session_id}` : ''].filter(Boolean).join(' · ')),
    output(step),
    failures(step),
    step.usage ? section('Usage', h('p', {}, usage(step.usage))) : null,
    fedBy(step),
  );
}
