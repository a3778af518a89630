// How numbers, times and states read on the page.

/** "2026-01-02 03:04:05" in the viewer's local time. */
export function time(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso || '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** "3 s ago", "5 min ago", "2 h ago", else the date. */
export function ago(iso, now = Date.now()) {
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return time(iso).slice(0, 10);
}

export const cost = (n) => (typeof n === 'number' ? `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}` : '');

export function tokens(n) {
  if (typeof n !== 'number') return '';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function bytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} kB`;
}

/**
 * "2 Orca turns · 5 model calls · 12.3k in · 4.1k out · 1.0k reasoning · 8.0k cache read · 0 cache write · cache hits 39% · $0.0123",
 * from whatever fields are present (model calls are not recorded in usage from older plan files).
 */
export function usage(u) {
  if (!u) return '';
  const parts = [];
  if (u.turns !== undefined) parts.push(`${u.turns} Orca turn${u.turns === 1 ? '' : 's'}`);
  if (u.model_calls !== undefined) parts.push(`${u.model_calls} model call${u.model_calls === 1 ? '' : 's'}`);
  else if (u.turns) parts.push('model calls not recorded');
  for (const [key, label] of [['input', 'in'], ['output', 'out'], ['reasoning', 'reasoning'], ['cache_read', 'cache read'], ['cache_write', 'cache write']]) {
    if (u[key] !== undefined) parts.push(`${tokens(u[key])} ${label}`);
  }
  // The share of prompt tokens served from the provider's cache (as orca show: src/usage/format.ts cacheHitShare).
  const cached = (u.cache_read ?? 0) + (u.cache_write ?? 0);
  const prompt = (u.input ?? 0) + cached;
  if (cached > 0 && prompt > 0) parts.push(`cache hits ${Math.round(((u.cache_read ?? 0) / prompt) * 100)}%`);
  if (u.cost !== undefined) parts.push(cost(u.cost));
  return parts.join(' · ');
}

/** Words for a state name: "awaiting_decision" → "awaiting decision". */
export const words = (state) => String(state ?? '').replace(/_/g, ' ');

/** Words for a step chart's state path: "opening_workspace.waiting_for_slot" → "opening workspace · waiting for slot". */
export const phaseWords = (phase) => String(phase ?? '').split('.').map(words).join(' · ');

/** What a step is doing now, its innermost state in words: "waiting for slot", "fixing". */
export const phaseNow = (phase) => words(String(phase ?? '').split('.').at(-1));

export const WAITING = {
  approval: 'approval',
  question: "the planner's question",
  deviation: 'a decision on a failed step',
  budget: 'a decision at the budget gate',
  resume: 'a decision on an interrupted step',
};
