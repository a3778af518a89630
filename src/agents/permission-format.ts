/**
 * OpenCode 1.18's permission format and the three functions of its evaluator the agents rely
 * on, ported from the 1.18.33 binary (`Permission.fromConfig`, `evaluate`, `Wildcard.match`):
 *
 * - Config form (agent `permission`, global `permission`): `{ [permission]: action | { [pattern]: action } }`,
 *   action `"allow" | "ask" | "deny"`. A string means pattern `"*"`. Keys may be wildcards (`"*"`,
 *   `"orca_*"`); plugin tools are checked under their tool name.
 * - It becomes an ordered ruleset `[{permission, pattern, action}]` in key order, and the LAST
 *   rule matching both the permission and the pattern wins (no match: "ask"). An agent's rules
 *   come after OpenCode's defaults and the user's global `permission`, a session's after the agent's.
 * - A tool is not offered to the model at all when the last rule matching its name has pattern
 *   `"*"` and action "deny" (write and apply_patch are looked up as `edit`).
 */
export type PermissionAction = 'allow' | 'ask' | 'deny';
export type PermissionPatterns = Readonly<Record<string, PermissionAction>>;
export type PermissionValue = PermissionAction | PermissionPatterns;
/** Config form. Key order matters: later keys win. */
export type PermissionMap = Record<string, PermissionValue>;

/** Ruleset form, as `session.create({permission})` takes it. */
export interface PermissionRule {
  permission: string;
  pattern: string;
  action: PermissionAction;
}

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];

export function isPermissionAction(value: unknown): value is PermissionAction {
  return typeof value === 'string' && ACTIONS.includes(value);
}

/** `*` is any run of characters, `?` one character; the rest is literal (1.18 `Wildcard.match`). */
export function matchesWildcard(text: string, pattern: string): boolean {
  let source = pattern
    .replaceAll('\\', '/')
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  if (source.endsWith(' .*')) source = `${source.slice(0, -3)}( .*)?`;
  return new RegExp(`^${source}$`, 's').test(text.replaceAll('\\', '/'));
}

/** Config form → ruleset, exactly as OpenCode's `fromConfig` orders it. */
export function toRuleset(map: PermissionMap): PermissionRule[] {
  return Object.entries(map).flatMap(([permission, value]) =>
    typeof value === 'string'
      ? [{ permission, pattern: '*', action: value }]
      : Object.entries(value).map(([pattern, action]) => ({ permission, pattern, action })),
  );
}

/** The action OpenCode takes for `permission` on `pattern`: the last matching rule, else "ask". */
export function evaluatePermission(permission: string, pattern: string, ...rulesets: PermissionRule[][]): PermissionAction {
  const rule = rulesets
    .flat()
    .findLast((r) => matchesWildcard(permission, r.permission) && matchesWildcard(pattern, r.pattern));
  return rule?.action ?? 'ask';
}

const EDIT_ALIASES: readonly string[] = ['edit', 'write', 'apply_patch'];

/** Whether OpenCode hides `tool` from the model under these rules (1.18 `Permission.disabled`). */
export function isToolHidden(tool: string, ...rulesets: PermissionRule[][]): boolean {
  const key = EDIT_ALIASES.includes(tool) ? 'edit' : tool;
  const rule = rulesets.flat().findLast((r) => matchesWildcard(key, r.permission));
  return rule?.pattern === '*' && rule.action === 'deny';
}

/**
 * `top` over `base`, key by key: a key in `top` replaces the key in `base` wholesale and moves
 * to the end, so it is evaluated after everything in `base` (last match wins). Works on a
 * permission map and on one key's pattern map alike.
 */
export function layerPermissions<V extends PermissionValue>(
  base: Readonly<Record<string, V>>,
  top: Readonly<Record<string, V>>,
): Record<string, V> {
  const out: Record<string, V> = { ...base };
  for (const [key, value] of Object.entries(top)) {
    delete out[key];
    out[key] = (typeof value === 'string' ? value : { ...(value as PermissionPatterns) }) as V;
  }
  return out;
}

/** Keeps only well-formed entries of a user-supplied permission (config form), in order. */
export function readPermissionMap(raw: unknown): PermissionMap {
  if (isPermissionAction(raw)) return { '*': raw };
  if (!isRecord(raw)) return {};
  const out: PermissionMap = {};
  for (const [key, value] of Object.entries(raw)) {
    if (isPermissionAction(value)) out[key] = value;
    else if (isRecord(value)) {
      const patterns = Object.entries(value).filter((e): e is [string, PermissionAction] => isPermissionAction(e[1]));
      out[key] = Object.fromEntries(patterns);
    }
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
