// The server's API. The token travels in the cookie the page's own URL set; every call is same-origin.

async function answer(res) {
  let body;
  try {
    body = await res.json();
  } catch {
    throw new Error(`The server answered HTTP ${res.status} without JSON.`);
  }
  if (!res.ok) throw new Error(body?.error ?? `The server answered HTTP ${res.status}.`);
  return body;
}

export const getPlans = () => fetch('/api/plans', { headers: { accept: 'application/json' } }).then(answer);

export const getPlan = (planId) => fetch(`/api/plans/${encodeURIComponent(planId)}`, { headers: { accept: 'application/json' } }).then(answer);

/** Post a gate decision exactly as `orca decide` would: { choice, text?, step? }. */
export const decide = (planId, decision) =>
  fetch(`/api/plans/${encodeURIComponent(planId)}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(decision),
  }).then(answer);

/** What the plan (or one step) landed in the working tree: `{ sections: [{ step, title, lines: [[text, kind?]] }], cut }`. */
export const getDiff = (planId, step) =>
  fetch(`/api/plans/${encodeURIComponent(planId)}/diff${step ? `?step=${encodeURIComponent(step)}` : ''}`, { headers: { accept: 'application/json' } }).then(answer);

/** An undo or redo as `orca undo` / `orca redo` runs it: `{ apply, steps? }`; without apply, only what it would do. */
export const rewind = (planId, direction, body) =>
  fetch(`/api/plans/${encodeURIComponent(planId)}/${direction === 'redo' ? 'redo' : 'undo'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  }).then(answer);

/**
 * Follow the plan files: `onChange({list, plans})` on every change, and once more each time the
 * stream (re)opens, since changes may have been missed while it was closed. `onState` gets
 * "live" (with `{project}`), "reconnecting" or "closed". Returns a function that stops following.
 */
export function follow(planId, onChange, onState) {
  const source = new EventSource(planId ? `/api/events?plan=${encodeURIComponent(planId)}` : '/api/events');
  source.addEventListener('ready', (event) => {
    onState('live', JSON.parse(event.data));
    onChange({ list: true, plans: planId ? [planId] : [] });
  });
  source.addEventListener('change', (event) => onChange(JSON.parse(event.data)));
  source.addEventListener('error', () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
  return () => source.close();
}
