// The plan viewer: #/ lists the plans, #/plan/<id> shows one. Both follow the plan files live.
import { follow, getPlan, getPlans } from './api.js';
import { h, replace } from './dom.js';
import { renderList } from './list.js';
import { createPlanPage } from './plan.js';

const main = document.getElementById('main');
const live = document.getElementById('live');
let stopFollowing = () => {};

const LIVE_WORDS = { live: 'live', reconnecting: 'reconnecting…', closed: 'disconnected: reload the page' };
function setLive(state) {
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

function showList() {
  document.title = 'Orca plans';
  const refresh = refresher(async () => {
    try {
      const data = await getPlans();
      document.getElementById('project').textContent = data.project;
      renderList(main, data);
    } catch (error) {
      replace(main, h('p', { class: 'problem' }, error.message));
    }
  });
  void refresh();
  stopFollowing = follow(undefined, (changes) => changes.list && void refresh(), setLive);
}

function showPlan(planId) {
  const page = createPlanPage(main, planId, () => void refresh());
  const refresh = refresher(async () => {
    try {
      page.update(await getPlan(planId));
    } catch (error) {
      page.problem(error.message);
    }
  });
  void refresh();
  stopFollowing = follow(planId, (changes) => changes.plans.includes(planId) && void refresh(), setLive);
}

function route() {
  stopFollowing();
  const planId = /^#\/plan\/(plan_\w+)$/.exec(location.hash)?.[1];
  if (planId) showPlan(planId);
  else showList();
}

window.addEventListener('hashchange', route);
route();
