import { totalTokens, type Usage } from '../machines/usage.js';

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

/** "3 turns, 12,345 tokens, $0.12". */
export function usageText(usage: Usage): string {
  return `${usage.turns} turn${usage.turns === 1 ? '' : 's'}, ${formatTokens(totalTokens(usage))} tokens, ${formatCost(usage.cost)}`;
}

/** Every field, for a detailed view: "in 1,200 · out 300 · reasoning 0 · cache read 4,000 · cache write 0". */
export function tokenClasses(usage: Usage): string {
  return [
    `in ${formatTokens(usage.input)}`,
    `out ${formatTokens(usage.output)}`,
    `reasoning ${formatTokens(usage.reasoning)}`,
    `cache read ${formatTokens(usage.cache_read)}`,
    `cache write ${formatTokens(usage.cache_write)}`,
  ].join(' · ');
}
