import { modelCalls, totalTokens, TURN_ROLES, type TurnRole, type Usage, type UsageByRole } from '../machines/usage.js';

/**
 * Money and tokens for people: "$0.12", "$0.0042", "12,345 tokens", "1.2M tokens". Cost is in the
 * currency of the models' configured prices (OpenCode's `cost`); like OpenCode, shown as dollars.
 */
export function formatCost(cost: number): string {
  if (cost === 0) return '$0.00';
  if (cost < 0.01) return `$${cost.toPrecision(2).replace(/0+$/, '').replace(/\.$/, '')}`;
  return `$${cost.toFixed(2)}`;
}

export function formatTokens(tokens: number): string {
  if (tokens < 100_000) return Math.round(tokens).toLocaleString('en-US');
  if (tokens < 10_000_000) return `${(tokens / 1_000).toFixed(0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/**
 * "2 Orca turns, 5 model calls": the prompts Orca sent and the model requests they made (a turn
 * with tool calls makes several). Usage recorded before model calls were counted says so.
 */
export function turnsText(usage: Usage): string {
  const calls = modelCalls(usage);
  const turns = `${usage.turns} Orca turn${usage.turns === 1 ? '' : 's'}`;
  return calls === undefined ? `${turns} (model calls not recorded)` : `${turns}, ${calls} model call${calls === 1 ? '' : 's'}`;
}

/** "2 Orca turns, 5 model calls, 12,345 tokens, $0.12". */
export function usageText(usage: Usage): string {
  return `${turnsText(usage)}, ${formatTokens(totalTokens(usage))} tokens, ${formatCost(usage.cost)}`;
}

const ROLE_WORDS: Record<TurnRole, string> = { specialist: 'specialist', reviewer: 'reviewer', fixer: 'fixer', ask: 'read-only asks' };

/**
 * A step's usage by whose turns they were: "specialist 1 Orca turn, 3 model calls, 9,000 tokens,
 * $0.03; reviewer …". Turns recorded before roles were (old plan files) are "not attributed".
 * Empty when the step has no split.
 */
export function roleUsageParts(total: Usage | undefined, byRole: UsageByRole | undefined): string[] {
  if (!byRole) return [];
  const parts = TURN_ROLES.flatMap((role) => (byRole[role] ? [`${ROLE_WORDS[role]} ${usageText(byRole[role])}`] : []));
  const attributed = TURN_ROLES.reduce((n, role) => n + (byRole[role]?.turns ?? 0), 0);
  if (total && total.turns > attributed) parts.push(`not attributed ${total.turns - attributed} Orca turn${total.turns - attributed === 1 ? '' : 's'}`);
  return parts;
}

/**
 * The share of prompt tokens the provider served from its cache: cache reads over every prompt token
 * (OpenCode counts `input` without the cached part, and cache reads and writes apart). Null when the
 * provider reported no cache use at all (it may not report it) or nothing was sent.
 */
export function cacheHitShare(usage: Pick<Usage, 'input' | 'cache_read' | 'cache_write'>): number | null {
  const prompt = usage.input + usage.cache_read + usage.cache_write;
  if (prompt === 0 || usage.cache_read + usage.cache_write === 0) return null;
  return usage.cache_read / prompt;
}

/** Every field, for a detailed view: "in 1,200 · out 300 · reasoning 0 · cache read 4,000 · cache write 0 · cache hits 77%". */
export function tokenClasses(usage: Usage): string {
  const share = cacheHitShare(usage);
  return [
    `in ${formatTokens(usage.input)}`,
    `out ${formatTokens(usage.output)}`,
    `reasoning ${formatTokens(usage.reasoning)}`,
    `cache read ${formatTokens(usage.cache_read)}`,
    `cache write ${formatTokens(usage.cache_write)}`,
    ...(share === null ? [] : [`cache hits ${Math.round(share * 100)}%`]),
  ].join(' · ');
}
