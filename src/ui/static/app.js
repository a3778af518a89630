// The plan viewer: #/ lists the plans, #/plan/<id> shows one. Both follow the plan files live.
import { follow, getPlan, getPlans } from './api.js';
import { h, replace } from './dom.js';
import { renderList } from './list.js';
import { createPlanPage } from './plan.js';

const main = document.getElementById('main');
const live = document.getElementById('live');
let stopFollowing = () => {};
/** Bumped at each navigation: a fetch that returns after the page moved on must not draw over it. */
let generation = 0;

const LIVE_WORDS = { live: 'live', reconnecting: 'reconnecting…', closed: 'disconnected: reload the page' };
function setLive(state, info) {
  if (info?.project) document.getElementById('project').textContent = info.project;
  live.dataset.live = state;
  live.textContent = LIVE_WORDS[state] ?? state;
}

/** Fetch-and-render with at most one fetch in flight; changes during it cause exactly one more. */
function refresher(load) {
  let running = false;
  let again = false;
  return async function refresh() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await load();
      } while (again);
    } finally {
      running = false;
    }
  };
}

function showList(current) {
  document.title = 'Orca plans';
  const refresh = refresher(async () => {
    try {
      const data = await getPlans();
      if (!current()) return;
      renderList(main, data);
    } catch (error) {
      if (current()) replace(main, h('p', { class: 'problem' }, error.message));
    }
  });
  void refresh();
  stopFollowing = follow(undefined, (changes) => changes.list && void refresh(), setLive);
}

function showPlan(planId, current) {
  const page = createPlanPage(main, planId, () => void refresh());
  const refresh = refresher(async () => {
    try {
      const view = await getPlan(planId);
      if (current()) page.update(view);
    } catch (error) {
      if (current()) page.problem(error.message);
    }
  });
  void refresh();
  stopFollowing = follow(planId, (changes) => changes.plans.includes(planId) && void refresh(), setLive);
}

function route() {
  stopFollowing();
  const mine = ++generation;
  const current = () => mine === generation;
  const planId = /^#\/plan\/(plan_\w+)$/.exec(location.hash)?.[1];
  if (planId) showPlan(planId, current);
  else showList(current);
}

window.addEventListener('hashchange', route);
route();
